"""The turn-order trial (``turn_order_trial.py``) moves only the first player, and counts what it says."""

from __future__ import annotations

from turn_order_trial import first_player_moved, rulebook_first_player, summarize

from services.arena.schedule import table_seed
from services.common.runner import Match
from services.india_rails.engine import IndiaRailsEngine


def test_the_trial_moves_the_first_player_and_leaves_the_deal_alone() -> None:
    seed = table_seed(1, 3)
    rulebook = Match.start(IndiaRailsEngine(), 5, seed).state
    with first_player_moved(2):
        moved = Match.start(IndiaRailsEngine(), 5, seed).state
    again = Match.start(IndiaRailsEngine(), 5, seed).state

    assert rulebook["first"] == rulebook_first_player(5, seed)
    assert moved["first"] == (rulebook["first"] + 2) % 5
    assert moved["order"] == [(moved["first"] + i) % 5 for i in range(5)]
    assert [p["hand"] for p in moved["players"]] == [p["hand"] for p in rulebook["players"]]
    assert again["first"] == rulebook["first"]  # the engine is itself again after the block


def test_wins_are_counted_by_turn_position_and_by_where_the_best_hand_sat() -> None:
    outcomes = [
        # the best hand (seat 1) starts and wins
        {"finished": True, "winners": [1], "first": 1, "best_hand": 1, "cpu_seconds": 1.0},
        # seat 0 starts, the best hand (seat 1) is second and wins
        {"finished": True, "winners": [1], "first": 0, "best_hand": 1, "cpu_seconds": 1.0},
        # seat 2 starts and wins, the best hand (seat 0) was second
        {"finished": True, "winners": [2], "first": 2, "best_hand": 0, "cpu_seconds": 1.0},
        {"finished": False, "winners": [], "first": 0, "best_hand": 0, "cpu_seconds": 3.0},
    ]
    summary = summarize(3, outcomes)

    assert summary["unfinished"] == 1
    assert [p["wins"] for p in summary["wins_by_turn_position"]] == [2, 1, 0]
    assert [p["tables"] for p in summary["wins_by_turn_position"]] == [3, 3, 3]
    assert [(p["wins"], p["tables"]) for p in summary["best_hand_wins_by_its_position"]] == [(1, 1), (1, 2), (0, 0)]
    assert summary["best_hand_wins"] == {"wins": 2, "tables": 3}
    assert summary["cpu_seconds_per_table"] == 1.5
