"""Pairings and standings, pure: property tests over random results (hypothesis)."""

from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournament import pairing
from services.tournament.model import Entrant, Tournament
from services.tournament.standings import RoundResult, TableResult, meetings, standings, table_points

PLAYERS = [f"p{i}" for i in range(9)]


def _random_ranking(rng: random.Random, size: int) -> tuple[int, ...]:
    scores = [rng.randint(0, 3) for _ in range(size)]
    return tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)


def _play(tournament: Tournament, rng: random.Random) -> None:
    """Plan and finish rounds until the schedule ends, with random places."""
    while (plan := tournament.next_plan()) is not None:
        played = tournament.start_round(plan)
        for number, table in enumerate(played.tables):
            table.game_id = f"g{played.number}-{number}"
        played.status = "playing"  # as the director marks it once every table has its game
        for table in played.tables:
            assert tournament.record(table.game_id, list(_random_ranking(rng, len(table.players))))
        assert played.status == "finished"
        assert len(tournament.rounds) < 40


def _tournament(fmt: str, count: int, size: int, rounds: int = 3, advance: int = 1) -> Tournament:
    return Tournament(
        tournament_id="t", game_type="darjeeling", format=fmt, table_size=size,
        entrants=[Entrant(f"p{i}", f"P{i}") for i in range(count)], seed=1, seed_source="operator",
        rounds_planned=rounds, advance=advance,
    )  # fmt: skip


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32))
def test_swiss_nine_at_threes_never_repeats_a_pair_in_three_rounds(seed: int) -> None:
    tournament = _tournament("swiss", 9, 3)
    _play(tournament, random.Random(seed))
    assert len(tournament.rounds) == 3
    met = meetings(tournament.finished_rounds())
    assert max(met.values()) == 1  # 9 entrants, 3 rounds of triples: a repeat is always avoidable
    for played in tournament.rounds:
        seated = sorted(p for t in played.tables for p in t.players)
        assert seated == sorted(PLAYERS) and not played.byes


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 13), st.sampled_from([2, 3, 4]), st.integers(1, 5), st.integers(0, 2**32))
def test_swiss_seats_everyone_once_with_fair_byes(count: int, size: int, rounds: int, seed: int) -> None:
    tournament = _tournament("swiss", count, size, rounds)
    _play(tournament, random.Random(seed))
    byes: dict[str, int] = {}
    for played in tournament.rounds:
        seated = [p for t in played.tables for p in t.players]
        assert sorted(seated + played.byes) == sorted(tournament.ids)
        assert all(len(t.players) == size for t in played.tables)
        assert len(played.byes) == count % size
        for player in played.byes:
            byes[player] = byes.get(player, 0) + 1
    if byes:
        assert max(byes.values()) - min(byes.get(p, 0) for p in tournament.ids) <= 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32))
def test_first_seat_goes_to_whoever_moved_first_least(seed: int) -> None:
    tournament = _tournament("swiss", 9, 3)
    _play(tournament, random.Random(seed))
    firsts: dict[str, int] = {}
    for played in tournament.rounds:
        for table in played.tables:
            assert firsts.get(table.players[0], 0) == min(firsts.get(p, 0) for p in table.players)
        for table in played.tables:
            firsts[table.players[0]] = firsts.get(table.players[0], 0) + 1
    assert max(firsts.values()) <= 2


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 9), st.sampled_from([2, 3]), st.integers(0, 2**32))
def test_round_robin_every_pair_of_a_group_meets(count: int, size: int, seed: int) -> None:
    if count < size:
        return
    tournament = _tournament("round_robin", count, size)
    tournament.rounds_planned = pairing.round_robin_schedule_length(tournament.groups(), size)
    _play(tournament, random.Random(seed))
    met = meetings(tournament.finished_rounds())
    for a, b in itertools.combinations(tournament.ids, 2):
        assert met.get(frozenset((a, b)), 0) >= 1


def test_round_robin_of_four_in_pairs_is_a_perfect_schedule() -> None:
    groups = [["a", "b", "c", "d"]]
    assert pairing.round_robin_schedule_length(groups, 2) == 3


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.sampled_from([2, 3]), st.integers(0, 2**32))
def test_knockout_ends_with_one_table_and_its_winner_first(count: int, size: int, seed: int) -> None:
    tournament = _tournament("knockout", count, size)
    _play(tournament, random.Random(seed))
    final = tournament.rounds[-1]
    assert len(final.tables) == 1 and not final.byes
    table = final.tables[0]
    champion = tournament.standings()[0].external_id
    assert (table.ranking or [])[table.players.index(champion)] == 1
    # everyone who played a later round advanced from the round before
    for earlier, later in itertools.pairwise(tournament.rounds):
        winners = {p for t in earlier.tables for p in pairing.advancing(t.players, t.ranking or [], 1)}
        through = set(earlier.byes) | winners
        assert {p for t in later.tables for p in t.players} | set(later.byes) == through


def test_table_points_count_pairwise_places_and_ties() -> None:
    assert table_points(TableResult(("a", "b", "c"), (1, 2, 3))) == {"a": 2.0, "b": 1.0, "c": 0.0}
    assert table_points(TableResult(("a", "b", "c"), (1, 1, 3))) == {"a": 1.5, "b": 1.5, "c": 0.0}


def test_tie_breaks_opponents_points_then_head_to_head_then_rating() -> None:
    # a and b both score 1 + 1; a met the stronger field (c twice, who won everything else).
    rounds = [
        RoundResult((TableResult(("c", "a"), (1, 2)), TableResult(("b", "d"), (1, 2)))),
        RoundResult((TableResult(("a", "d"), (1, 2)), TableResult(("c", "b"), (1, 2)))),
        RoundResult((TableResult(("a", "e"), (1, 2)), TableResult(("b", "e"), (2, 1)))),
    ]
    table = standings(["a", "b", "c", "d", "e"], rounds, 2, ratings={})
    assert [s.external_id for s in table][:1] == ["c"]
    by_id = {s.external_id: s for s in table}
    assert by_id["a"].points == 2.0 and by_id["b"].points == 1.0
    # equal points and opponents' points: head-to-head decides, then the rating
    tied = [RoundResult((TableResult(("x", "y"), (1, 1)),))]
    assert [s.external_id for s in standings(["x", "y"], tied, 2, {"x": 1.0, "y": 5.0})] == ["y", "x"]
    h2h = [
        RoundResult((TableResult(("x", "y", "z"), (2, 1, 3)),)),
        RoundResult((TableResult(("x", "z", "y"), (1, 3, 2)),)),
    ]
    ranked = standings(["x", "y", "z"], h2h, 3, {"x": 9.0, "y": 0.0, "z": 0.0})
    assert ranked[0].points == ranked[1].points == 3.0
    assert ranked[0].external_id == "x"  # rating decides: same points, same opponents, h2h 1-1


def test_ranks_are_consistent_with_points() -> None:
    rng = random.Random(5)
    tournament = _tournament("swiss", 9, 3)
    _play(tournament, rng)
    table = tournament.standings()
    assert [s.rank for s in table] == list(range(1, 10))
    assert all(a.points >= b.points for a, b in itertools.pairwise(table))
    assert sum(s.points for s in table) == 3 * 3 * 3  # 3 points per table of three, 3 tables, 3 rounds
