"""Standings of a tournament after any number of rounds: pure, no I/O.

**Tournament points** come from a player's place at their table, counted pairwise: one point
for every tablemate placed below them and half a point for every tablemate tied with them
(a 3-player table gives 2, 1 and 0; a shared Tea & Rum victory gives both winners 1.5).  A
table of any size is thus worth the same per pairing, which keeps mixed table sizes fair.  A
bye is worth half a point per seat of a full table (the expected score of an average player).

**Tie-breaks**, in order, as they fit multiplayer tables:

1. the sum of the points of every opponent met (once per table shared: a multiplayer
   Buchholz),
2. head-to-head among the players still tied: the pairwise points each earned against the
   others of the tied group, at the tables they shared,
3. the player's rating when the tournament began (ordinal; absent = lowest),
4. the order of the entrants list (the operator's seeding).

Knockout standings rank first by how far a player got (the last round they played), then by
their place at that round's table, then as above.

Swiss pairings use the same order without the rating (3.): ratings move between two runs of
a tournament, and the tournament's seed alone must fix its pairings.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TableResult:
    """One finished table: entrants in seat order and their places (1 = first, ties equal)."""

    players: tuple[str, ...]
    ranking: tuple[int, ...]


@dataclass(frozen=True)
class RoundResult:
    """One finished round: its tables and the entrants who had a bye."""

    tables: tuple[TableResult, ...]
    byes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Standing:
    """One entrant's line in the standings."""

    external_id: str
    rank: int
    points: float
    opponents_points: float
    head_to_head: float
    rating: float | None
    withdrawn: bool = False
    last_round: int = 0


@dataclass
class _Tally:
    points: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    opponents: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    # (a, b) -> points a earned against b over every shared table
    pairwise: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    last_round: dict[str, int] = field(default_factory=dict)
    last_place: dict[str, int] = field(default_factory=dict)


def pairwise_points(mine: int, theirs: int) -> float:
    """What a place earns against one tablemate's place."""
    if mine < theirs:
        return 1.0
    return 0.5 if mine == theirs else 0.0


def table_points(table: TableResult) -> dict[str, float]:
    """Each seat's tournament points at one table."""
    points: dict[str, float] = defaultdict(float)
    for a, place_a in zip(table.players, table.ranking, strict=True):
        for b, place_b in zip(table.players, table.ranking, strict=True):
            if a != b:
                points[a] += pairwise_points(place_a, place_b)
    return dict(points)


def bye_points(table_size: int) -> float:
    """What a bye is worth: an average result at a full table."""
    return (table_size - 1) / 2


def _tally(rounds: Sequence[RoundResult], table_size: int) -> _Tally:
    tally = _Tally()
    for number, played in enumerate(rounds, start=1):
        for table in played.tables:
            for player, points in table_points(table).items():
                tally.points[player] += points
            for a, place_a in zip(table.players, table.ranking, strict=True):
                tally.last_round[a] = number
                tally.last_place[a] = place_a
                for b, place_b in zip(table.players, table.ranking, strict=True):
                    if a != b:
                        tally.opponents[a].append(b)
                        tally.pairwise[(a, b)] += pairwise_points(place_a, place_b)
        for player in played.byes:
            tally.points[player] += bye_points(table_size)
            tally.last_round[player] = number
            tally.last_place[player] = 1
    return tally


def _head_to_head(group: Sequence[str], tally: _Tally) -> dict[str, float]:
    return {a: sum(tally.pairwise.get((a, b), 0.0) for b in group if b != a) for a in group}


def standings(
    entrants: Sequence[str],
    rounds: Sequence[RoundResult],
    table_size: int,
    ratings: Mapping[str, float] | None = None,
    withdrawn: Sequence[str] = (),
    knockout: bool = False,
) -> list[Standing]:
    """Every entrant, best first, with their rank (1..n) and the figures behind it.

    ``ratings`` is ``None`` for the pairing order (no rating tie-break), else the ordinals at
    the tournament's start.
    """
    tally = _tally(rounds, table_size)
    seeding = {player: index for index, player in enumerate(entrants)}
    buchholz = {p: sum(tally.points.get(o, 0.0) for o in tally.opponents.get(p, [])) for p in entrants}

    def stage(player: str) -> tuple[float, ...]:
        if not knockout:
            return ()
        return (-tally.last_round.get(player, 0), tally.last_place.get(player, 0))

    def primary(player: str) -> tuple[float, ...]:
        return (*stage(player), -tally.points.get(player, 0.0), -buchholz[player])

    groups: dict[tuple[float, ...], list[str]] = defaultdict(list)
    for player in entrants:
        groups[primary(player)].append(player)
    h2h: dict[str, float] = {}
    for group in groups.values():
        h2h.update(_head_to_head(group, tally))
    rating_of = dict(ratings or {})
    use_rating = ratings is not None

    def key(player: str) -> tuple[float, ...]:
        rating = rating_of.get(player, float("-inf")) if use_rating else 0.0
        return (*primary(player), -h2h[player], -rating, seeding[player])

    ordered = sorted(entrants, key=key)
    gone = set(withdrawn)
    return [
        Standing(
            external_id=player,
            rank=rank,
            points=tally.points.get(player, 0.0),
            opponents_points=buchholz[player],
            head_to_head=h2h[player],
            rating=rating_of.get(player) if use_rating else None,
            withdrawn=player in gone,
            last_round=tally.last_round.get(player, 0),
        )
        for rank, player in enumerate(ordered, start=1)
    ]


def meetings(rounds: Sequence[RoundResult]) -> dict[frozenset[str], int]:
    """How often each pair of entrants shared a table."""
    met: dict[frozenset[str], int] = defaultdict(int)
    for played in rounds:
        for table in played.tables:
            for i, a in enumerate(table.players):
                for b in table.players[i + 1 :]:
                    met[frozenset((a, b))] += 1
    return dict(met)
