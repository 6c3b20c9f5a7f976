"""Every game plays from the keyboard alone: Tab to a move, Enter to play it (issue #42, item 3).

A real Chromium, the real stack, no clicks and no scripts that act: only Tab and Enter are sent,
until the seat's whole first turn is played (the bot then moves).  Before, Darjeeling's movement
choices and India Rails' track were drawn without a place in the keyboard's order.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from tests.support import webgames
from tests.support.webplay import open_table, wait_for

BOT = {"name": "Bot", "bot": "random"}
# What has the keyboard's focus: a move ("move"), a first step of one ("step", e.g. Darjeeling's
# start space before its facing), or nothing to choose (""); and whether it was seen this round.
FOCUSED = """
const at = document.activeElement;
if (!at || !(at.closest('#board') || at.closest('#moves'))) return ['', false];
const seen = at.dataset.keyboardSeen === '1';
at.dataset.keyboardSeen = '1';
if (at.matches('[data-move-index]')) return ['move', seen];
return [at.matches('[role=button], button') ? 'step' : '', seen];
"""


def _version(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.body.dataset.version || -1)"))


def _mine(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('turn').classList.contains('mine')"))


def _press(driver: Any, key: str) -> None:
    ActionChains(driver).send_keys(key).perform()


def _play_one_by_keys(driver: Any) -> str:
    """Tab to the first move on the board or among the moves and press Enter on it; when a whole
    round of Tabs finds only first steps (a choice in two steps), Enter on the first step."""
    steps = 0
    for _ in range(600):
        _press(driver, Keys.TAB)
        found, seen = driver.execute_script(FOCUSED)
        if found == "move" or (found == "step" and seen):
            _press(driver, Keys.ENTER)
            return str(found)
        steps += found == "step"
    raise AssertionError(f"600 Tabs reached no move ({steps} first steps)")


@pytest.mark.parametrize("game", ["darjeeling", "india_rails", "alubari", "tea_rum"])
def test_a_whole_turn_is_played_with_tab_and_enter_only(stack: dict[str, Any], browser: Any, game: str) -> None:
    url = str(stack["url"])
    created = webgames.create(url, game, [{"name": "Asha"}, BOT])
    open_table(browser, url, created["game_id"], created["seats"][0]["token"])
    wait_for(browser, lambda: _mine(browser), 60, "the seat's turn")
    moves = 0
    for _ in range(120):  # steps of one turn (India Rails builds track a segment at a time)
        if moves and _bot_moved(url, created["game_id"]):
            break  # the seat's turn ended: the other seat has played
        if not _mine(browser):
            continue
        before = _version(browser)
        if _play_one_by_keys(browser) == "move":
            wait_for(browser, lambda was=before: _version(browser) > was or not _mine(browser), 30, "the move to land")
            moves += 1
    assert moves, "no move was played from the keyboard"
    assert _bot_moved(url, created["game_id"]), f"the turn did not end after {moves} moves by keyboard"


def _bot_moved(url: str, game_id: str) -> bool:
    """The other seat has played since this seat's last move (so this seat's turn ended)."""
    events = httpx.get(f"{url}/v1/games/{game_id}/events", timeout=30).json()
    last = {event.get("seat"): event.get("version", 0) for event in events if event.get("version", 0) > 0}
    return last.get(1, 0) > last.get(0, 0) > 0
