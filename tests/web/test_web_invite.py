"""Inviting and joining from the page (issue #42, item 7).

A private game created in the lobby shows its invitation link and code on the host's waiting
table; a second person (another Chromium profile, at a phone's size) opens the link, is asked a
name, joins with the code, the game starts, and the host's table names them. The open-games list
shows each game's time control and its bots in words, the waiting table too, and Darjeeling's
board is named by its region's name, not its code.

Real stack (Redis, rules services, conductor, uvicorn) and real headless Chromium.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from tests.support import webgames
from tests.support.webplay import console_errors, page_url, screenshot, wait_for

SELECT = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
LABELS = "return [...document.querySelectorAll('#board [aria-label]')].map((e) => e.getAttribute('aria-label'))"
TAB_MARK = """
const mine = document.querySelector('#turn').dataset.toAct.split(',').includes(document.body.dataset.seat);
const icon = document.querySelector('link[rel=icon]').dataset.yourTurn === String(mine);
return icon && document.title.startsWith('\u25cf') === mine;
"""
TEXT = "return (document.querySelector(arguments[0]) || {}).innerText || ''"


def _text(driver: Any, selector: str) -> str:
    return str(driver.execute_script(TEXT, selector))


def _create_private_game(driver: Any, url: str) -> str:
    """Asha creates a private Darjeeling game in the lobby: her seat, an open seat and a bot."""
    driver.get(page_url(url, ""))
    wait_for(driver, lambda: driver.find_elements("css selector", "#lobby #game-type option"), 30, "game types")
    driver.execute_script(SELECT, driver.find_element("id", "game-type"), "darjeeling")
    driver.execute_script(SELECT, driver.find_element("id", "player-count"), "3")
    kinds = driver.find_elements("css selector", "select.seat-kind")
    driver.execute_script(SELECT, kinds[1], "open")
    driver.execute_script(SELECT, kinds[2], "bot:random")
    driver.execute_script(SELECT, driver.find_element("id", "visibility"), "private")
    driver.find_element("id", "player-name").send_keys("Asha")
    driver.find_element("id", "create-game").click()
    refused = "return document.querySelector('#create-error').textContent"
    wait_for(driver, lambda: "#/game/" in driver.current_url or driver.execute_script(refused), 30, "the new table")
    assert "#/game/" in driver.current_url, driver.execute_script(refused)
    return str(driver.current_url.split("#/game/")[1].split("/")[0])


def test_a_private_game_is_joined_from_its_invitation_link(
    stack: dict[str, Any], browser: Any, second_browser: Any
) -> None:
    url = str(stack["url"])
    game_id = _create_private_game(browser, url)
    wait_for(browser, lambda: browser.find_elements("id", "invite-link"), 30, "the invitation")
    link = str(browser.find_element("id", "invite-link").get_attribute("value"))
    code = _text(browser, "#invite-code")
    assert re.fullmatch(r"[a-z2-9]{10}", code), code
    assert link.endswith(f"#/join/{game_id}/{code}") and link.startswith(f"{url}/play/"), link
    waiting = _text(browser, "#waiting")
    assert "random moves" in waiting and "(random)" not in waiting, waiting  # the bot in words
    assert not browser.find_elements("id", "join-form")  # the host holds a seat: no form to join another
    screenshot(browser, "invite-host-waiting")

    game = webgames.game(url, game_id)
    assert game["visibility"] == "private" and game["seats"][1]["open"] and game["seats"][1]["reserved"]
    listed = httpx.get(f"{url}/v1/games", params={"status": "waiting", "page_size": 100}, timeout=30).json()
    assert game_id not in {g["game_id"] for g in listed["games"]}  # unlisted: only the link finds it
    wrong = httpx.post(f"{url}/v1/games/{game_id}/join", json={"name": "Eve", "invite": "coffee"}, timeout=30)
    assert wrong.status_code == 403 and wrong.json()["code"] == "bad_invite"

    second_browser.set_window_size(390, 844)  # the friend opens the link on a phone
    second_browser.get(link)
    wait_for(second_browser, lambda: second_browser.find_elements("id", "join-name"), 30, "the join page")
    asked = second_browser.find_element("id", "join-name")
    assert asked.get_attribute("value") == "" and asked.get_attribute("required") is not None  # asked, not made up
    page = _text(second_browser, "#join-page")
    assert "Darjeeling" in page and "Asha" in page and "random moves" in page, page
    asked.send_keys("Bilal")
    screenshot(second_browser, "invite-join-phone")
    second_browser.find_element("id", "join-game").click()
    wait_for(second_browser, lambda: f"#/game/{game_id}" in second_browser.current_url, 30, "the joiner's table")
    for person in (browser, second_browser):
        wait_for(person, lambda p=person: p.execute_script("return document.body.dataset.status") == "active", 30)
    wait_for(browser, lambda: "Bilal" in _text(browser, "#game-title"), 30, "the joiner's name at the host's table")
    # Guests are shown with their guest mark ("Bilal (guest 3f9a)"): the names typed come first.
    assert [s["name"].split(" (guest")[0] for s in webgames.game(url, game_id)["seats"]][:2] == ["Asha", "Bilal"]
    assert second_browser.execute_script("return localStorage.getItem('chaiwala.name')") == "Bilal"
    assert second_browser.execute_script("return document.body.dataset.seat") == "1"
    # The tab's title and icon mark the player's turn, and only theirs (read together: a bot may move).
    for person in (browser, second_browser):
        wait_for(person, lambda p=person: p.execute_script(TAB_MARK) is True, 30, "the tab's mark")
    screenshot(browser, "invite-host-started")
    _play_until_the_host_log_names(browser, second_browser, url, game_id, "Bilal")
    assert console_errors(browser) == [] and console_errors(second_browser) == []


SEAT_TOKEN = """
const game = JSON.parse(localStorage.getItem('chaiwala.games') || '[]').find((g) => g.gameId === arguments[0]);
return game ? Object.entries(game.seats)[0] : null;
"""


def _play_until_the_host_log_names(host: Any, joiner: Any, url: str, game_id: str, name: str) -> None:
    """The two people's seats play their first legal moves (through the API) until the host's live
    log, whose stream opened before the join, has a line naming the joiner (issue #42, item 4)."""
    tokens = {int(seat): token for seat, token in (p.execute_script(SEAT_TOKEN, game_id) for p in (host, joiner))}
    for _ in range(40):
        if any(name in line for line in _text(host, "#log").splitlines()):
            return
        game = webgames.game(url, game_id)
        acting = [seat for seat in game.get("to_act", []) if seat in tokens]
        if game["status"] != "active" or not acting:
            time.sleep(0.2)  # the bot's turn
            continue
        headers = {"Authorization": f"Bearer {tokens[acting[0]]}"}
        legal = httpx.get(f"{url}/v1/games/{game_id}/legal-moves", headers=headers, timeout=30).json()
        move = {k: v for k, v in legal["moves"][0].items() if k not in ("text", "costs")}
        body = {"move": move, "expected_version": legal["version"]}
        httpx.post(f"{url}/v1/games/{game_id}/moves", headers=headers, json=body, timeout=30)
    wait_for(host, lambda: name in _text(host, "#log"), 10, f"{name} in the host's live log")


def test_open_games_show_time_controls_and_bots_in_words(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    players: list[dict[str, Any]] = [{"name": "Asha"}, {"open": True}, {"name": "Bot 3", "bot": "random"}]
    clock = {"bank_s": 600, "increment_s": 5}
    created = webgames.create(url, "darjeeling", players, clock=clock, options={"region": "sri_lanka"})
    game_id = created["game_id"]
    browser.get(page_url(url, ""))
    row = f"#open-games li[data-game-id='{game_id}']"
    wait_for(browser, lambda: browser.find_elements("css selector", row), 30, "the open game")
    line = _text(browser, row)
    assert "10:00 bank + 5 s per move" in line and "Bot 3 (random moves)" in line, line
    assert "(random)" not in line

    # Joining from the list asks the name too, offering the one set before.
    browser.execute_script("localStorage.setItem('chaiwala.name', 'Chen')")
    browser.find_element("css selector", f"{row} button.join").click()
    wait_for(browser, lambda: browser.find_elements("id", "join-name"), 30, "the join page")
    assert browser.find_element("id", "join-name").get_attribute("value") == "Chen"
    assert "10:00 bank + 5 s per move" in _text(browser, "#join-page")
    browser.find_element("id", "join-game").click()
    wait_for(browser, lambda: f"#/game/{game_id}" in browser.current_url, 30, "the table")
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.status") == "active", 30)
    assert webgames.game(url, game_id)["seats"][1]["name"].split(" (guest")[0] == "Chen"
    wait_for(browser, lambda: browser.find_elements("css selector", "#board .dj-board"), 30, "the board")
    labels = browser.execute_script(LABELS)
    assert "Darjeeling, Sri Lanka" in labels and not [a for a in labels if "sri_lanka" in a], labels
    assert console_errors(browser) == []
