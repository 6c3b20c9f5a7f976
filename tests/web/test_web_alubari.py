"""The Alubari table in a real browser against the real stack (gateway, rules services, conductor).

A person's seat plays a whole 2-player game against the heuristic bot only by clicking what the
page offers (worker placements and stations on the board, the rest as buttons) up to the result
screen, with no console errors.  The moves are chosen from the seat's legal-move list so the game
stays short (the seat places its workers where the action runs by itself).  A spectator's page
of the same game shows the same board and result.  The game is played at a desktop size and at a
phone's (390×844), where the turn's actions stay on screen with the top of the board; at the
start, in the middle and at the end the table is checked for legibility (tests/support/
legibility.py: text of 12 px or more, moves of 44 px or more, no serious axe-core violation on the
board, no code name).  Screenshots go to ``test-artifacts/web/``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support import webgames
from tests.support.browser import chromium, console_errors
from tests.support.legibility import (
    MIN_TEXT_PX,
    SIZES,
    Size,
    assert_end_explained,
    assert_legible,
    axe_violations,
    describe_violations,
    open_table_at,
    small_tap_targets,
    smallest_text,
)
from tests.support.webplay import (
    move_kind,
    open_table,
    play_choosing,
    result_rows,
    result_visible,
    screenshot,
    wait_for,
)
from tests.words.test_sentences import CODE_NAME

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
const bar = document.getElementById('actions');
if (!bar) return false;
const r = bar.getBoundingClientRect();
return r.top < innerHeight && r.bottom <= innerHeight + 1;
"""

IN_BOARD = (
    "return arguments[0].map((t) => !!document.querySelector(t) && !!document.querySelector(t).closest('#board'));"
)


def board_violations(driver: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the table's own elements (the shell has its tests)."""
    found = []
    for violation in axe_violations(driver):
        targets = [str(node["target"][0]) for node in violation["nodes"]]
        nodes = [
            n for n, inside in zip(violation["nodes"], driver.execute_script(IN_BOARD, targets), strict=True) if inside
        ]
        if nodes:
            found.append({**violation, "nodes": nodes})
    return found


def check_legible(driver: Any, size: Size, when: str) -> None:
    """The page legible as every table must be (assert_legible), offered moves of 44 px or more at
    either size, no axe violation on the board, no code name."""
    assert_legible(driver, size, f"alubari {when}")
    size, what = smallest_text(driver)
    assert size >= MIN_TEXT_PX, f"{when}: {what}"
    # The offered moves (the shell's header links and its empty hover line are the shell's own tests').
    small = [target for target in small_tap_targets(driver) if re.search(r"\[data-move-index=\d+\]", target)]
    assert not small, f"{when}: small moves {small}"
    violations = board_violations(driver)
    assert not violations, f"{when}: {describe_violations(violations)}"
    shown = str(driver.execute_script("return document.getElementById('board').innerText"))
    assert not CODE_NAME.findall(shown), f"{when}: code names {CODE_NAME.findall(shown)[:5]}"


MY_TURN_DRAWN = """
const moves = document.getElementById('moves');
return !moves.classList.contains('busy') && document.querySelector('#board [data-move-index]') !== null
  ? document.body.dataset.version : null;
"""


def my_turn_drawn(driver: Any, url: str, game_id: str) -> bool:
    """The page shows the game's latest version with the seat's moves offered and no move on its way:
    the game waits for the seat, so the page stays as it is while it is checked."""
    version = driver.execute_script(MY_TURN_DRAWN)
    return version is not None and str(webgames.game(url, game_id)["version"]) == version


@pytest.mark.parametrize("size", SIZES, ids=[size.name for size in SIZES])
def test_a_seat_plays_alubari_against_a_bot_to_the_result(stack: dict[str, Any], size: Size) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "alubari", [{"name": "Asha"}, {"name": "Chai bot", "bot": "heuristic"}], seed=SEED)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    with chromium() as driver:
        open_table_at(driver, size, url, game_id, token)
        wait_for(driver, lambda: my_turn_drawn(driver, url, game_id), 60, "the first move offered")
        assert driver.find_elements("css selector", '#board [data-game="alubari"]'), "the Alubari table is drawn"
        # The turn's actions are on screen with the top of the board, without scrolling, and the
        # table says where its board choices are.
        assert driver.execute_script(ACTION_BAR_ON_SCREEN), "the turn's actions are on screen"
        assert driver.find_elements("css selector", "#board .alu-where .alu-jump"), "where the choices are"
        check_legible(driver, size, "start")
        screenshot(driver, f"alubari-start-{size.name}")
        middle = {"taken": False}

        def shoot(clicks: int) -> None:
            if clicks < 16 or middle["taken"]:
                return
            wait_for(driver, lambda: result_visible(driver) or my_turn_drawn(driver, url, game_id), 60, "my turn")
            if not result_visible(driver):
                middle["taken"] = True
                check_legible(driver, size, "middle")
                screenshot(driver, f"alubari-middle-{size.name}")

        played = play_choosing(driver, url, game_id, token, choose, timeout=300, on_click=shoot)
        assert middle["taken"], "the middle of the game was checked"
        screenshot(driver, f"alubari-end-{size.name}")
        assert result_visible(driver)
        check_legible(driver, size, "end")
        final = webgames.game(url, game_id, token)
        assert final["status"] == "finished"
        shown = result_rows(driver)
        assert shown["winners"] == ",".join(str(s) for s in final["result"]["winners"])
        assert sorted(row["seat"] for row in shown["rows"]) == [0, 1]
        assert_end_explained(driver, "alubari", ("Asha", "Chai bot"), final["result"]["winners"])
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
        assert not driver.find_elements("css selector", "#board .alu-where"), "a spectator has no choices to find"
        assert result_rows(driver)["winners"] == shown["winners"]
        assert not console_errors(driver)
