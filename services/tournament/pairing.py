"""Who sits at which table, in which seat: pure, deterministic, no I/O.

* **Swiss.** Entrants are taken in standings order (best first).  Tables of exactly
  ``table_size`` are formed by a bounded branch-and-bound search whose cost is, in this
  order of weight: the number of pairs that shared a table before, then how far apart
  in points a table's players are, then how far apart in standings order.  The top-ranked
  unplaced entrant always opens the next table, so the first solution found is the greedy
  one and every later one is an improvement; the search stops after :data:`SEARCH_BUDGET`
  nodes (with 9 entrants at 3-player tables it is exhaustive).
* **Round-robin in groups.** The same search with every score equal, within each group, so
  each round seats as many new pairs as it can; the schedule ends when every pair of a
  group has shared a table.
* **Knockout.** The alive entrants in seeding order are snaked over the tables (1st, 2nd,
  … then back), so the strongest meet last; each table's top ``advance`` go through.
* **Byes.** When the entrants do not fill whole tables, the remainder sit out with a bye:
  those with the fewest byes so far, lowest in the standings first (knockout: highest
  seeds, who advance).
* **Seats.** Within a table, seats are assigned by the permutation that gives each player
  the positions they held least often (seat 0, who usually moves first, counts double).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SEARCH_BUDGET = 3_000
_REPEAT_WEIGHT = 1_000_000
_POINTS_WEIGHT = 1_000
_MIN_WINDOW = 8
Met = Mapping[frozenset[str], int]


@dataclass(frozen=True)
class Plan:
    """One round's seating: tables (entrants in seat order) and byes."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def choose_byes(order: Sequence[str], count: int, byes_had: Mapping[str, int]) -> list[str]:
    """``count`` entrants to sit out: fewest byes so far, then lowest in ``order``."""
    if count <= 0:
        return []
    position = {player: index for index, player in enumerate(order)}
    candidates = sorted(order, key=lambda p: (byes_had.get(p, 0), -position[p]))
    return sorted(candidates[:count], key=lambda p: position[p])


def _pairs_cost(group: Sequence[str], met: Met) -> int:
    return sum(met.get(frozenset((a, b)), 0) for a, b in itertools.combinations(group, 2))


class _Search:
    """Branch and bound over table partitions of ``order`` (see the module docstring)."""

    def __init__(self, order: Sequence[str], points: Mapping[str, float], met: Met, size: int) -> None:
        self.order = list(order)
        self.points = points
        self.met = met
        self.size = size
        self.position = {player: index for index, player in enumerate(order)}
        self.nodes = 0
        self.best: list[tuple[str, ...]] | None = None
        self.best_cost = float("inf")

    def table_cost(self, table: Sequence[str]) -> float:
        top = table[0]
        spread = sum(abs(self.points.get(top, 0.0) - self.points.get(p, 0.0)) for p in table[1:])
        distance = sum(self.position[p] - self.position[top] for p in table[1:])
        return _pairs_cost(table, self.met) * _REPEAT_WEIGHT + spread * 2 * _POINTS_WEIGHT + distance

    def run(self) -> list[tuple[str, ...]]:
        self._extend(self.order, [], 0.0)
        assert self.best is not None
        return self.best

    def _extend(self, remaining: list[str], tables: list[tuple[str, ...]], cost: float) -> None:
        if cost >= self.best_cost:
            return
        if not remaining:
            self.best, self.best_cost = list(tables), cost
            return
        head, rest = remaining[0], remaining[1:]
        # Tablemates come from the next few in standings order only, which bounds the branching.
        window = rest[: max(_MIN_WINDOW, 2 * self.size + 2)]
        options = [(head, *others) for others in itertools.combinations(window, self.size - 1)]
        options.sort(key=self.table_cost)
        for table in options:
            self.nodes += 1
            if self.nodes > SEARCH_BUDGET and self.best is not None:
                return
            left = [p for p in rest if p not in table]
            self._extend(left, [*tables, table], cost + self.table_cost(table))


def form_tables(order: Sequence[str], points: Mapping[str, float], met: Met, size: int) -> list[tuple[str, ...]]:
    """Tables of ``size`` from ``order`` (a multiple of ``size`` long), fewest repeats first."""
    if len(order) % size:
        raise ValueError("the entrants must fill whole tables")
    if not order:
        return []
    return _Search(order, points, met, size).run()


def assign_seats(table: Sequence[str], seat_counts: Mapping[str, Sequence[int]]) -> tuple[str, ...]:
    """The table's entrants in seat order: each gets the positions they held least often."""

    def cost(arrangement: tuple[str, ...]) -> int:
        total = 0
        for seat, player in enumerate(arrangement):
            held = seat_counts.get(player, ())
            count = held[seat] if seat < len(held) else 0
            total += count * (2 if seat == 0 else 1)
        return total

    arrangements: list[tuple[str, ...]] = list(itertools.permutations(table))
    return min(arrangements, key=cost)


def swiss_round(
    order: Sequence[str],
    points: Mapping[str, float],
    met: Met,
    byes_had: Mapping[str, int],
    seat_counts: Mapping[str, Sequence[int]],
    size: int,
) -> Plan:
    """A Swiss round: byes for the remainder, then tables of similar scores and new tablemates."""
    byes = choose_byes(order, len(order) % size, byes_had)
    playing = [p for p in order if p not in byes]
    tables = form_tables(playing, points, met, size)
    return Plan(tuple(assign_seats(t, seat_counts) for t in tables), tuple(byes))


def groups_of(entrants: Sequence[str], group_size: int) -> list[list[str]]:
    """Round-robin groups: the entrants dealt in turn over ``ceil(n / group_size)`` groups."""
    count = max(1, -(-len(entrants) // group_size))
    groups: list[list[str]] = [[] for _ in range(count)]
    for index, player in enumerate(entrants):
        groups[index % count].append(player)
    return groups


def round_robin_round(
    groups: Sequence[Sequence[str]],
    met: Met,
    byes_had: Mapping[str, int],
    seat_counts: Mapping[str, Sequence[int]],
    size: int,
) -> Plan:
    """One round of every group: as many pairs that have not met yet as the tables allow."""
    tables: list[tuple[str, ...]] = []
    byes: list[str] = []
    for group in groups:
        plan = swiss_round(group, {}, met, byes_had, seat_counts, size)
        tables.extend(plan.tables)
        byes.extend(plan.byes)
    return Plan(tuple(tables), tuple(byes))


def round_robin_done(groups: Sequence[Sequence[str]], met: Met) -> bool:
    """Whether every pair within every group has shared a table."""
    return all(met.get(frozenset(pair), 0) for group in groups for pair in itertools.combinations(group, 2))


def round_robin_schedule_length(groups: Sequence[Sequence[str]], size: int, limit: int = 64) -> int:
    """How many rounds the greedy schedule needs for every pair to meet (results never change it)."""
    met: dict[frozenset[str], int] = {}
    byes: dict[str, int] = {}
    for number in range(1, limit + 1):
        plan = round_robin_round(groups, met, byes, {}, size)
        for player in plan.byes:
            byes[player] = byes.get(player, 0) + 1
        for table in plan.tables:
            for a, b in itertools.combinations(table, 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
        if round_robin_done(groups, met):
            return number
    return limit


def knockout_round(alive: Sequence[str], size: int, seat_counts: Mapping[str, Sequence[int]]) -> Plan:
    """A knockout round: one final table when the alive fit, else snake-seeded tables and byes."""
    if len(alive) <= size:
        return Plan((assign_seats(alive, seat_counts),))
    count = len(alive) // size
    byes = tuple(alive[: len(alive) % size])  # the highest seeds sit out and advance
    playing = [p for p in alive if p not in byes]
    tables: list[list[str]] = [[] for _ in range(count)]
    for index, player in enumerate(playing):
        lap, offset = divmod(index, count)
        tables[offset if lap % 2 == 0 else count - 1 - offset].append(player)
    return Plan(tuple(assign_seats(t, seat_counts) for t in tables), byes)


def advancing(players: Sequence[str], ranking: Sequence[int], advance: int) -> list[str]:
    """A knockout table's top ``advance`` (ties at the cut broken by seat order)."""
    ordered = sorted(range(len(players)), key=lambda seat: (ranking[seat], seat))
    return [players[seat] for seat in ordered[:advance]]
