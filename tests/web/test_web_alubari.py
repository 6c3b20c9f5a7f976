"""The Alubari table in a real browser against the real stack (gateway, rules services, conductor).

A person's seat plays a whole 2-player game against the heuristic bot only by clicking what the
page offers (worker placements and stations on the board, the rest as buttons) up to the result
screen, with no console errors.  The moves are chosen from the seat's legal-move list so the game
stays short (the seat places its workers where the action runs by itself).  A spectator's page
of the same game shows the same board and result.  The game is played at a desktop size and at a
phone's (390×844), where the table's own action bar stays on screen under the board.
Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import webgames
from tests.support.browser import chromium, console_errors
from tests.support.webplay import (
    move_kind,
    offered_element,
    open_table,
    play_choosing,
    result_rows,
    result_visible,
    screenshot,
    wait_for,
)

# Lay Track and Excavation run by themselves at the full work rate: the game ends in few clicks.
AREA_ORDER = "DBEACFG"
PREFERRED = ("decline_temp_worker", "finish_contracts", "build_station", "take_cube", "buy_equipment")
SEED = 7


def choose(moves: list[dict[str, Any]]) -> int:
    """A short game's move: a worker where the action runs by itself, no chai, no upkeep, then the end."""
    kinds = [move_kind(move) for move in moves]
    if "place_worker" in kinds:
        spaces = [i for i, kind in enumerate(kinds) if kind == "place_worker"]
        return min(
            spaces,
            key=lambda i: (AREA_ORDER.index(moves[i]["place_worker"]["area"]), moves[i]["place_worker"]["space"]),
        )
    for kind in PREFERRED:
        if kind in kinds:
            return kinds.index(kind)
    for i, kind in enumerate(kinds):
        body = moves[i][kind]
        if kind == "chai_boost" and not body.get("use"):
            return i
        if kind == "maintain_equipment" and not body.get("pay"):
            return i
    return kinds.index("end_action") if "end_action" in kinds else 0


ACTION_BAR_ON_SCREEN = """
const bar = document.querySelector('#board .alu-actions');
if (!bar) return false;
const r = bar.getBoundingClientRect();
return r.top < innerHeight && r.bottom <= innerHeight + 1;
"""


@pytest.mark.parametrize("size", [(1400, 1000), (390, 844)], ids=["desktop", "phone"])
def test_a_seat_plays_alubari_against_a_bot_to_the_result(stack: dict[str, Any], size: tuple[int, int]) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "alubari", [{"name": "Asha"}, {"name": "Chai bot", "bot": "heuristic"}], seed=SEED)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    tag = f"{size[0]}x{size[1]}"
    with chromium() as driver:
        driver.set_window_size(*size)
        open_table(driver, url, game_id, token)
        wait_for(driver, lambda: offered_element(driver, 0) is not None, 60, "the first move offered")
        assert driver.find_elements("css selector", '#board [data-game="alubari"]'), "the Alubari table is drawn"
        # The turn's choices are on screen with the top of the board, without scrolling.
        assert driver.execute_script(ACTION_BAR_ON_SCREEN), "the action bar is on screen"
        screenshot(driver, f"alubari-start-{tag}")
        middle = {"taken": False}

        def shoot(clicks: int) -> None:
            if clicks == 16 and not middle["taken"]:
                middle["taken"] = True
                screenshot(driver, f"alubari-middle-{tag}")

        played = play_choosing(driver, url, game_id, token, choose, timeout=300, on_click=shoot)
        screenshot(driver, f"alubari-end-{tag}")
        assert result_visible(driver)
        final = webgames.game(url, game_id, token)
        assert final["status"] == "finished"
        shown = result_rows(driver)
        assert shown["winners"] == ",".join(str(s) for s in final["result"]["winners"])
        assert sorted(row["seat"] for row in shown["rows"]) == [0, 1]
        # Every worker went onto the board's action spaces by a click on the board itself.
        placements = [kind for kind in played.kinds if kind == "place_worker"]
        assert placements and placements == [kind for kind in played.on_board if kind == "place_worker"]
        # The finished board still draws the whole table, with nothing left to click.
        assert not driver.find_elements("css selector", "#board [data-move-index]")
        assert driver.find_elements("css selector", '#board [data-panel="final-scores"]')
        # A spectator (no token) sees the same board and the same result; Alubari hides nothing.
        open_table(driver, url, game_id, None)
        wait_for(driver, lambda: result_visible(driver), 60, "the spectator's result")
        assert driver.find_elements("css selector", '#board [data-game="alubari"]')
        assert not driver.find_elements("css selector", "#board .alu-actions"), "a spectator has no action bar"
        assert result_rows(driver)["winners"] == shown["winners"]
        assert not console_errors(driver)
