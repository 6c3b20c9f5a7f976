"""On a touch screen a move with a price or a warning is seen before it is played (issue #42, item 2).

A phone-sized Chromium with touch emulated; taps are real touch events sent through the DevTools
protocol (``Input.dispatchTouchEvent``), so the page sees ``pointerType == "touch"``.  In every game
the seat plays free moves with one tap until the board offers a costly one (its ``costs`` from the
API); one tap on that shows its sentence and price in ``#confirm`` and posts nothing, a second tap
posts it once.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support import webgames
from tests.support.legibility import PHONE, set_viewport
from tests.support.webplay import FETCHES, open_table, wait_for

BOT = {"name": "Bot", "bot": "random"}
CENTRE = """
const node = arguments[0];
node.scrollIntoView({block: 'center', inline: 'center'});
const box = node.getBoundingClientRect();
const x = box.left + box.width / 2, y = box.top + box.height / 2;
const hit = document.elementFromPoint(x, y);
return hit && (hit === node || node.contains(hit)) ? [x, y] : null;
"""


def _tap(driver: Any, node: Any) -> bool:
    """A real touch on the middle of ``node``; False when something else covers that point."""
    centre = driver.execute_script(CENTRE, node)
    if not centre:
        return False
    point = [{"x": centre[0], "y": centre[1]}]
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    return True


def _version(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.body.dataset.version || -1)"))


def _mine(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('turn').classList.contains('mine')"))


def _offers(driver: Any, url: str, game_id: str, token: str) -> tuple[list[Any], list[Any]]:
    """The board's costly and free offers of the position on screen (costs read from the API)."""
    legal = httpx.get(f"{url}/v1/games/{game_id}/legal-moves", headers={"Authorization": f"Bearer {token}"}).json()
    if legal.get("version") != _version(driver):
        return [], []
    costly: list[Any] = []
    free: list[Any] = []
    for node in driver.find_elements("css selector", "#board [data-move-index]"):
        index = int(node.get_attribute("data-move-index"))
        (costly if legal["moves"][index].get("costs") else free).append(node)
    return costly, free


def _wait_turn(driver: Any) -> int:
    offers = "#board [data-move-index], #moves [data-move-index]"
    wait_for(driver, lambda: _mine(driver) and driver.find_elements("css selector", offers), 60, "the seat's turn")
    return _version(driver)


# Tea & Rum's moves carry no `costs` (its prices are printed on the cards and buttons themselves):
# there a board move always plays on one tap, which is what its case checks.
PRICED = {"india_rails": True, "darjeeling": True, "alubari": True, "tea_rum": False}


@pytest.mark.parametrize("game", sorted(PRICED))
def test_a_costly_move_takes_two_taps_and_a_free_one_takes_one(stack: dict[str, Any], browser: Any, game: str) -> None:
    url = str(stack["url"])
    created = webgames.create(url, game, [{"name": "Asha"}, BOT])
    game_id, token = created["game_id"], created["seats"][0]["token"]
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCHES})
    set_viewport(browser, PHONE)
    open_table(browser, url, game_id, token)
    one_tap = False  # a free board move played by one tap, posted once
    for _ in range(60):
        before = _wait_turn(browser)
        costly, free = _offers(browser, url, game_id, token)
        browser.execute_script("window.__posts = []")
        if costly and _tap(browser, costly[0]):
            wait_for(browser, lambda: browser.find_elements("css selector", "#confirm:not([hidden]) #confirm-move"), 10)
            assert browser.execute_script("return window.__posts") == [], "a costly move played on its first tap"
            shown = browser.find_element("css selector", "#confirm .sentence")
            assert shown.text and shown.get_attribute("data-costs"), "the price is not shown before the move"
            assert _tap(browser, browser.find_element("css selector", "#confirm-move"))
            wait_for(browser, lambda was=before: _version(browser) > was, 30, "the confirmed move to land")
            assert browser.execute_script("return window.__posts") == [f"/v1/games/{game_id}/moves"]
            return
        if any(_tap(browser, node) for node in free):
            wait_for(browser, lambda was=before: _version(browser) > was, 30, "the free move to land")
            one_tap = one_tap or browser.execute_script("return window.__posts") == [f"/v1/games/{game_id}/moves"]
            if one_tap and not PRICED[game]:
                return
            continue
        # None on the board: a button, whose text already says the move and its price.
        _tap(browser, browser.find_element("css selector", "#moves [data-move-index]"))
        wait_for(browser, lambda was=before: _version(browser) > was, 30, "the move to land")
    pytest.fail(f"no {'costly' if PRICED[game] else 'free'} move offered on the {game} board in 60 moves")
