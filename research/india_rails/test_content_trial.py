"""The content trial (``content_trial.py``) changes only what its variant names, and counts what it says."""

from __future__ import annotations

import math

import pytest
from content_trial import VARIANTS, compressed, summarize, winner_position

from services.arena.tables import TableResult, TableSpec
from services.common.engine import Move
from services.common.runner import Match, check_move_is_illegal
from services.india_rails.content import BOARD, DEMAND_CARDS
from services.india_rails.track import ENTRY_LIMITS
from tests.india_rails.india_rails_fixtures import city_with_free_edges, lay, lead_in, neighbours, new_match, set_turn


def _payouts() -> list[int]:
    return [d["payout"] for card in DEMAND_CARDS.values() for d in card["demands"]]


def test_compressed_payouts_pull_every_demand_towards_the_median_and_come_back() -> None:
    designed = _payouts()
    with VARIANTS["compressed-payouts"]():
        trial = _payouts()
    assert (compressed(11), compressed(34), compressed(98)) == (17, 34, 64)
    assert trial == [compressed(p) for p in designed]
    assert max(trial) - min(trial) < max(designed) - min(designed)
    assert _payouts() == designed


def _third_player_at_a_small_city() -> tuple[Match, Move]:
    """Seats 1 and 2 have track into a small city; seat 3, building, may lay the segment into it."""
    match = new_match(4, seed=1)
    city = BOARD.cities[city_with_free_edges("small", 3)].anchor
    around = [v for v in neighbours(city) if not BOARD.city_at[v]]
    lay(match.state, 1, [around[0], city])
    lay(match.state, 2, [around[1], city])
    lay(match.state, 3, lead_in(around[2], city))
    set_turn(match, 3, "build")
    return match, {"build_track": {"from_milepost": around[2], "to_milepost": city}}


def test_medium_cities_let_a_third_player_into_a_small_city_and_change_nothing_else() -> None:
    designed = _payouts()
    with VARIANTS["medium-cities"]():
        match, into_the_city = _third_player_at_a_small_city()
        match.play(3, into_the_city)
        assert _payouts() == designed
    match, into_the_city = _third_player_at_a_small_city()
    assert check_move_is_illegal(match, 3, into_the_city).code == "city_full"
    assert ENTRY_LIMITS == {"small": 2, "medium": 3}


def test_the_patches_are_undone_when_a_table_fails() -> None:
    designed = _payouts()
    with pytest.raises(RuntimeError), VARIANTS["compressed-payouts"](), VARIANTS["medium-cities"]():
        raise RuntimeError("a table failed")
    assert _payouts() == designed and ENTRY_LIMITS["small"] == 2


def _table(first: int, winners: tuple[int, ...], finished: bool = True) -> TableResult:
    spec = TableSpec(game="india_rails", bots=("heuristic",) * 5, seed=first)
    if not finished:
        return TableResult(spec, finished=False, moves=9, seconds=1.0)
    facts = tuple((f"turn_position:{(seat - first) % 5 + 1}",) for seat in range(5))
    ranking = tuple(range(1, 6))
    return TableResult(spec, True, 9, 1.0, (1.0,) * 5, ranking, winners, facts)


def test_the_winner_s_mean_turn_position_splits_a_shared_victory() -> None:
    tables = [
        _table(first=0, winners=(0,)),     # the start player wins: position 1
        _table(first=3, winners=(2,)),     # seat 2 sits fifth after seat 3: position 5
        _table(first=1, winners=(1, 3)),   # positions 1 and 3 share: the table counts 2
        _table(first=0, winners=(), finished=False),
    ]

    figure = winner_position(tables)

    assert figure["tables"] == 3
    assert figure["mean"] == pytest.approx((1 + 5 + (1 + 3) / 2) / 3)
    assert figure["lo"] < figure["mean"] < figure["hi"]
    assert summarize(5, tables)["winner_turn_position"] == figure


def test_no_finished_table_gives_no_figure() -> None:
    assert math.isnan(winner_position([_table(first=0, winners=(), finished=False)])["mean"])
