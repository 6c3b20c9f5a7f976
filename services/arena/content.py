"""Content statistics: does having a card, tile, estate or turn position go with winning?

Every finished table reports, per seat, the content ids that seat used or owned by the
end (``Engine.content_facts``, e.g. ``"contract:12"``, ``"turn_position:1"``).  For each
id the arena compares the win rate of the seats that had it with the win rate of the
seats that did not, each with its Wilson 95 % interval.

The *fair band* of an item is the 95 % interval of its with-item win rate: when that
interval leaves out the run's base rate (the win rate of all seats together, about
``1/players``), the item is flagged ``high`` or ``low``.  Correlation is not cause: a
seat that owns more things tends to win, whatever the things are, so a flag says
"look here"; a designed item is worth tuning only when it stands out among the items
of its own kind (the report lists kinds side by side).  The comparison is only
meaningful when every seat plays the same bot (self-play), so that the content, not
the bot, differs between seats.

*Peers* answer "stands out among its kind" in figures: an item's seats are compared with
the seats that held as many items of the same kind (a seat with three Equipment cards
against every seat with three).  ``peer_expected_wins`` is the sum, over the item's seats,
of the win rate of their peers; ``peer_ratio`` is wins over that; ``peer_verdict`` is
``high``/``low`` when the wins lie more than 1.96 standard deviations from the expectation
(the peers' rates taken as known, a normal approximation).  A kind every seat holds once
(``turn_position``) has a single peer group, so there it says what the base rate says.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.arena.intervals import wilson
from services.arena.tables import TableResult

Z95 = 1.959963984540054
"""The two-sided 95 % point of the normal distribution."""

MIN_SEATS = 10
"""Items seen on fewer seats than this are left out: their intervals say nothing."""


@dataclass(frozen=True)
class SeatOutcome:
    """One seat of one finished table: its content ids and whether it won."""

    facts: frozenset[str]
    won: bool


def seat_outcomes(results: Iterable[TableResult]) -> list[SeatOutcome]:
    """Every seat of every finished table that reported content facts."""
    outcomes = []
    for result in results:
        if not result.finished or not result.facts:
            continue
        for seat, facts in enumerate(result.facts):
            outcomes.append(SeatOutcome(frozenset(facts), seat in result.winners))
    return outcomes


def _verdict(low: float, high: float, base: float) -> str:
    if low > base:
        return "high"
    if high < base:
        return "low"
    return "within"


def content_stats(outcomes: Sequence[SeatOutcome], min_seats: int = MIN_SEATS) -> list[dict[str, Any]]:
    """One row per content id seen on at least ``min_seats`` seats, by kind then id.

    Each row: ``item``, ``kind`` (the id before ``:``), ``seats``/``wins`` with it,
    ``win_rate`` and ``win_rate_ci95``, the same ``without_*`` for the other seats,
    ``lift`` (with − without), the run's ``base_rate`` and ``verdict``
    (``high``/``low``/``within``: where the with-item interval lies against the base),
    and the comparison with its peers (``peer_expected_wins``, ``peer_ratio``,
    ``peer_verdict``; module docstring).
    """
    total_seats = len(outcomes)
    total_wins = sum(o.won for o in outcomes)
    if total_seats == 0:
        return []
    base = total_wins / total_seats
    seats: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for outcome in outcomes:
        for fact in outcome.facts:
            seats[fact] += 1
            wins[fact] += outcome.won
    peers = _PeerExpectation(outcomes)
    rows = []
    for item in sorted(seats, key=_sort_key):
        if seats[item] < min_seats:
            continue
        row = _row(item, wins[item], seats[item], total_wins - wins[item], total_seats - seats[item], base)
        rows.append(row | peers.compare(item, wins[item]))
    return rows


def _kind(fact: str) -> str:
    return fact.partition(":")[0]


class _PeerExpectation:
    """Per item, the wins its seats' peers predict (the sum of their win rates) and that sum's variance."""

    def __init__(self, outcomes: Sequence[SeatOutcome]) -> None:
        held = [Counter(_kind(fact) for fact in outcome.facts) for outcome in outcomes]
        kinds = {kind for counts in held for kind in counts}
        seats: Counter[tuple[str, int]] = Counter()
        wins: Counter[tuple[str, int]] = Counter()
        for outcome, counts in zip(outcomes, held, strict=True):
            for kind in kinds:
                seats[kind, counts[kind]] += 1
                wins[kind, counts[kind]] += outcome.won
        self.expected: defaultdict[str, float] = defaultdict(float)
        self.variance: defaultdict[str, float] = defaultdict(float)
        for outcome, counts in zip(outcomes, held, strict=True):
            for fact in outcome.facts:
                peers = (_kind(fact), counts[_kind(fact)])
                rate = wins[peers] / seats[peers]
                self.expected[fact] += rate
                self.variance[fact] += rate * (1 - rate)

    def compare(self, item: str, wins: int) -> dict[str, Any]:
        """``item``'s ``wins`` against what its seats' peers predict (the ``peer_*`` fields of a row)."""
        expected, spread = self.expected[item], math.sqrt(self.variance[item])
        verdict = "within"
        if spread and abs(wins - expected) > Z95 * spread:
            verdict = "high" if wins > expected else "low"
        return {
            "peer_expected_wins": expected,
            "peer_ratio": wins / expected if expected else None,
            "peer_verdict": verdict,
        }


def _sort_key(item: str) -> tuple[str, int, str]:
    kind, _, name = item.partition(":")
    return (kind, int(name) if name.isdigit() else 0, name)


def _row(item: str, wins: int, seats: int, other_wins: int, other_seats: int, base: float) -> dict[str, Any]:
    low, high = wilson(wins, seats)
    rate = wins / seats
    other_rate = other_wins / other_seats if other_seats else None
    return {
        "item": item,
        "kind": item.partition(":")[0],
        "seats": seats,
        "wins": wins,
        "win_rate": rate,
        "win_rate_ci95": [low, high],
        "without_seats": other_seats,
        "without_win_rate": other_rate,
        "without_win_rate_ci95": list(wilson(other_wins, other_seats)) if other_seats else None,
        "lift": rate - other_rate if other_rate is not None else None,
        "base_rate": base,
        "verdict": _verdict(low, high, base),
    }


def flagged(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose interval leaves out the base rate, or whose wins stand out from their peers'."""
    return [row for row in rows if row["verdict"] != "within" or row.get("peer_verdict", "within") != "within"]


def turn_positions(outcomes: Sequence[SeatOutcome]) -> list[dict[str, Any]]:
    """The ``turn_position:K`` rows in turn order, however few seats: the first-player advantage
    where turn order does not follow seat numbers (a random or derived start player)."""
    found = [row for row in content_stats(outcomes, min_seats=1) if row["kind"] == "turn_position"]
    return sorted(found, key=lambda row: int(row["item"].partition(":")[2]))
