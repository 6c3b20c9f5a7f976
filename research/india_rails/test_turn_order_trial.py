"""The turn-order trial (``turn_order_trial.py``) moves only the first player, and counts what it says."""

from __future__ import annotations

from turn_order_trial import first_player_moved, rulebook_first_player, summarize

from services.arena.schedule import table_seed
from services.arena.tables import TableResult, TableSpec
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


def _table(first: int, best: int, winners: tuple[int, ...], finished: bool = True) -> tuple[TableResult, int]:
    spec = TableSpec(game="india_rails", bots=("heuristic",) * 3, seed=first)
    facts = tuple((f"turn_position:{(seat - first) % 3 + 1}",) for seat in range(3))
    if not finished:
        return TableResult(spec, finished=False, moves=9, seconds=1.0), best
    return TableResult(spec, True, 9, 1.0, (1.0, 1.0, 1.0), (1, 2, 3), winners, facts), best


def test_wins_are_counted_by_turn_position_and_by_where_the_best_hand_sat() -> None:
    summary = summarize(3, [
        _table(first=1, best=1, winners=(1,)),  # the best hand starts and wins
        _table(first=0, best=1, winners=(1,)),  # the best hand is second and wins
        _table(first=2, best=0, winners=(2,)),  # the start player wins; the best hand was second
        _table(first=0, best=0, winners=(), finished=False),
    ])

    assert summary["games"] == 3 and summary["unfinished"] == 1
    assert [round(rate * 3) for rate in summary["turn_position_win_rate"]] == [2, 1, 0]
    assert [(p["wins"], p["tables"]) for p in summary["best_hand_wins_by_its_position"]] == [(1, 1), (1, 2), (0, 0)]
    assert summary["best_hand_wins"] == {"wins": 2, "tables": 3}
    assert [o["best_hand_position"] for o in summary["outcomes"]] == [1, 2, 2]
