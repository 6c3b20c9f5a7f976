"""The web client's player: a guest made on the first visit, whose games follow the token.

A guest creates a game in the lobby and plays a move; a second browser given the same player
token (nothing else: no seat token) finds the game under "my games", opens it as the same seat
and plays on (issue #32's browser check).
"""

from __future__ import annotations

import json
from typing import Any

from tests.support import secrets, webgames
from tests.support.webplay import wait_for
from tests.web.test_web_shell import _click_first_offer, _my_turn


def _player(driver: Any) -> dict[str, Any]:
    kept = driver.execute_script("return localStorage.getItem('chaiwala.player')")
    found: dict[str, Any] = json.loads(kept) if kept else {}
    return found


def test_a_guest_plays_and_finds_the_game_in_another_browser_with_the_same_token(
    stack: dict[str, Any], browser: Any, second_browser: Any
) -> None:
    url = str(stack["url"])
    browser.get(f"{url}/play/")
    wait_for(browser, lambda: _player(browser).get("token"), 20, "the guest made on the first visit")
    me = _player(browser)
    secrets.remember(me["token"])
    assert me["player_id"].startswith("guest:")
    wait_for(browser, lambda: browser.find_elements("css selector", "#lobby #game-type option"), 20, "game types")
    select = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
    browser.execute_script(select, browser.find_element("id", "game-type"), "darjeeling")
    browser.execute_script(select, browser.find_elements("css selector", "select.seat-kind")[1], "bot:random")
    browser.find_element("id", "create-game").click()
    wait_for(browser, lambda: "#/game/" in browser.current_url, 20, "the new table")
    game_id = browser.current_url.split("#/game/")[1].split("/")[0]
    seats = webgames.game(url, game_id)["seats"]
    assert seats[0]["external_id"] == me["player_id"]  # the seat is the guest's identity
    wait_for(browser, lambda: _my_turn(browser) or webgames.game(url, game_id)["version"] > 0, 30, "a turn")
    if _my_turn(browser):
        _click_first_offer(browser)

    second_browser.get(f"{url}/play/")
    # The first visit makes its own guest: let that finish before handing this browser the token,
    # or its late answer would overwrite the stored player after the test set it.
    wait_for(second_browser, lambda: _player(second_browser).get("token"), 20, "the second browser's first guest")
    second_browser.execute_script("localStorage.clear(); localStorage.setItem('chaiwala.player', arguments[0]);",
                                  json.dumps(me))  # fmt: skip
    second_browser.get(f"{url}/play/?again")
    mine = f"#my-games li[data-game-id='{game_id}'] a.play"
    wait_for(second_browser, lambda: second_browser.find_elements("css selector", mine), 30, "the game in my games")
    assert _player(second_browser)["player_id"] == me["player_id"]  # the same guest, not a new one
    second_browser.find_element("css selector", mine).click()
    wait_for(second_browser, lambda: f"#/game/{game_id}" in second_browser.current_url, 20, "the table")
    seat = wait_for(second_browser, lambda: second_browser.execute_script("return document.body.dataset.seat"), 30)
    assert seat == "0"  # the player token acts for the guest's own seat
    wait_for(second_browser, lambda: _my_turn(second_browser), 60, "the guest's turn in the second browser")
    _click_first_offer(second_browser)
