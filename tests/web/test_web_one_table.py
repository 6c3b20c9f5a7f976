"""A click plays only in the game on screen, however the page got there (issue #42, item 1).

The bug: going from one table straight to another (a link, or Back/Forward) left the previous
table's listeners alive on reused elements, so one click posted moves to several games.  Here a
browser hops between tables of three games — by link, Back, Forward and link again — and at every
stop clicks one offered move; a wrapper around ``fetch`` installed before the page loads records
every POST, and each click must have made exactly one, to the game on screen.
"""

from __future__ import annotations

import json
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException

from tests.support import webgames
from tests.support.legibility import axe_violations
from tests.support.webplay import FETCHES, page_url, remember_seat, wait_for

BOT = {"name": "Bot", "bot": "random"}


def _on_screen(driver: Any) -> str:
    found = driver.execute_script("const t = document.getElementById('game-title'); return t ? t.dataset.gameId : ''")
    return str(found or "")


def _shows(driver: Any, game_id: str) -> bool:
    """The table of ``game_id`` is drawn, it is this seat's turn, and a move is offered."""
    script = """
const mine = document.getElementById('turn');
return Boolean(mine && mine.classList.contains('mine')
  && document.querySelector('#board [data-move-index], #moves [data-move-index]'));
"""
    return _on_screen(driver) == game_id and bool(driver.execute_script(script))


def _version(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.body.dataset.version || -1)"))


def _click_one(driver: Any, game_id: str) -> list[str]:
    """Click one move offered on the table of ``game_id`` (the board's first); the POSTs it made."""
    wait_for(driver, lambda: _shows(driver, game_id), 60, f"the table of {game_id} on its seat's turn")
    before = _version(driver)
    for _ in range(20):  # the page may redraw between finding the offer and clicking it
        offers = driver.find_elements("css selector", "#board [data-move-index]") or driver.find_elements(
            "css selector", "#moves [data-move-index]"
        )
        if not offers:
            continue
        try:
            driver.execute_script("window.__posts = []; arguments[0].scrollIntoView({block: 'center'});", offers[0])
            offers[0].click()
            break
        except StaleElementReferenceException:
            continue
    wait_for(driver, lambda: _version(driver) > before, 30, "the move to land")
    posts: list[str] = driver.execute_script("return window.__posts")
    return posts


def test_a_click_posts_once_to_the_game_on_screen_after_hops_back_and_forward(
    stack: dict[str, Any], browser: Any
) -> None:
    url = str(stack["url"])
    games = {
        kind: webgames.create(url, kind, [{"name": "Asha"}, BOT])
        for kind in ("alubari", "tea_rum", "darjeeling")
    }
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCHES})
    browser.get(page_url(url, ""))
    for kind, created in games.items():
        remember_seat(browser, created["game_id"], kind, 0, created["seats"][0]["token"])
    ids = {kind: created["game_id"] for kind, created in games.items()}
    browser.get(page_url(url, f"game/{ids['alubari']}/0"))
    browser.execute_script("window.__sameDocument = true")  # gone if a hop loaded the page again

    def hop(how: str, kind: str) -> None:
        if how == "link":
            browser.execute_script("location.hash = arguments[0]", f"#/game/{ids[kind]}/0")
        else:
            browser.execute_script(f"history.{how}()")
        wait_for(browser, lambda: _shows(browser, ids[kind]), 60, f"the table of {kind}")
        assert browser.title.startswith("●"), browser.title  # the tab marks the player's turn
        posts = _click_one(browser, ids[kind])
        assert posts == [f"/v1/games/{ids[kind]}/moves"], json.dumps({"after": how, "on": kind, "posts": posts})

    hop("link", "alubari")  # the first table (its hash is already set: the link changes nothing)
    hop("link", "tea_rum")
    hop("back", "alubari")
    hop("forward", "tea_rum")
    hop("link", "darjeeling")
    hop("back", "tea_rum")
    hop("link", "alubari")
    assert browser.execute_script("return window.__sameDocument === true"), "a hop reloaded the page"
    found = axe_violations(browser, ("minor", "moderate", "serious", "critical"))
    assert "page-has-heading-one" not in {v["id"] for v in found}, found


def test_the_lobby_reads_the_game_types_once_per_visit(stack: dict[str, Any], browser: Any) -> None:
    """The lobby refreshes its lists every 5 s; the game types (15 KB) are read once (issue #42)."""
    url = str(stack["url"])
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCHES})
    browser.get(page_url(url, ""))

    def listed() -> int:
        gets: list[str] = browser.execute_script("return window.__gets")
        return sum(path.endswith("/v1/games") for path in gets)

    wait_for(browser, lambda: listed() >= 6, 30, "three refreshes of the lobby's lists")
    gets: list[str] = browser.execute_script("return window.__gets")
    assert sum(path.endswith("/v1/game-types") for path in gets) == 1, gets
