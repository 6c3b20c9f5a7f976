"""The India Rails heuristic bot's map searches: building costs, routes, train runs.

Pure functions of the board and the track on it.  The searches a bot turn asks again and again
are remembered by *all* their inputs (:data:`_SEARCHES`, :data:`_RUNS`), so a hit or a miss never
changes an answer: a bot decides the same in any process, with or without these memos.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from services.india_rails import track as tracks
from services.india_rails.content import BOARD, DEMAND_CARDS, MAJOR_CENTRES, MAJOR_MILEPOSTS
from services.india_rails.operations import TRACK_FEE

INF = 10**9
RENT_WEIGHT = 3  # planning weight of someone else's segment (rented, not built)


def _out_edges() -> list[list[tuple[int, int, int, bool]]]:
    """Per milepost: (neighbour, edge id, cost to build into the neighbour, red area?), minus city interiors."""
    table: list[list[tuple[int, int, int, bool]]] = [[] for _ in range(BOARD.count)]
    for u in range(BOARD.count):
        for v, eid in BOARD.adjacency[u]:
            red = eid in BOARD.red_area
            if eid in BOARD.inside_major and not red:
                continue
            table[u].append((v, eid, BOARD.cost_into(eid, v), red))
    return table


OUT_EDGES = _out_edges()
# A plan's route to a target (the mileposts to build along, -1 between separate pieces).
RouteOf = Callable[[dict[str, Any]], list[int]]


def demand_key(card: int, demand: dict[str, Any]) -> tuple[int, int]:
    """A demand's identity: its card and its place on the card."""
    return card, DEMAND_CARDS[card]["demands"].index(demand)


def dijkstra(sources: set[int] | list[int], owner: dict[int, int], seat: int,
             rent: int = RENT_WEIGHT, closed: frozenset[int] = frozenset(),
             refused: frozenset[int] | set[int] = frozenset()) -> tuple[Sequence[int], Sequence[int]]:
    """Cheapest building cost from ``sources`` to every milepost (own track and red areas free).

    Someone else's segment weighs ``rent`` (``INF`` to avoid it).  A bot turn asks the same
    question several times (planning in the operations phase, again in the building phase, and
    again on the next step of either), so answers are remembered by their inputs; the tables
    are tuples, shared by every caller that asks the same question.
    """
    key = (frozenset(sources), frozenset(owner.items()), seat, rent, frozenset(closed), frozenset(refused))
    found = _SEARCHES.get(key)
    if found is None:
        found = _search(sources, owner, seat, rent, closed, refused)
        if len(_SEARCHES) >= SEARCH_MEMO_SIZE:
            _SEARCHES.clear()  # bounded; a miss only costs a new search, never a different answer
        _SEARCHES[key] = found
    return found


# Searches by all their inputs: a pure function's memo, so a bot decides the same with or without it.
SEARCH_MEMO_SIZE = 128
_SEARCHES: dict[tuple[Any, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _search(sources: set[int] | list[int], owner: dict[int, int], seat: int, rent: int,
            closed: frozenset[int], refused: frozenset[int] | set[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The Dijkstra search behind :func:`dijkstra` (ties settle by milepost number, as ``heapq`` orders them)."""
    dist = [INF] * BOARD.count
    parent = [-1] * BOARD.count
    heap: list[tuple[int, int]] = []
    for s in sources:
        dist[s] = 0
        heap.append((0, s))
    heapq.heapify(heap)
    # Owned and refused edges weigh differently from the building cost; every other edge costs it.
    special: dict[int, int] = {eid: (0 if holder == seat else rent) for eid, holder in owner.items()}
    special.update(dict.fromkeys(refused, -1))
    weight = special.get
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        d, u = pop(heap)
        if d > dist[u]:
            continue
        for v, eid, cost, red in OUT_EDGES[u]:
            w = weight(eid, 0 if red else cost)
            if w < 0 or v in closed:
                continue
            nd = d + w
            if nd < dist[v]:
                dist[v] = nd
                parent[v] = u
                push(heap, (nd, v))
    return tuple(dist), tuple(parent)


_STATIC: dict[int, tuple[Sequence[int], Sequence[int]]] = {}


def static_costs(milepost: int) -> tuple[Sequence[int], Sequence[int]]:
    """Building cost on an empty board from ``milepost`` (cached for the process)."""
    table = _STATIC.get(milepost)
    if table is None:
        table = dijkstra([milepost], {}, -1)
        _STATIC[milepost] = table
    return table


def closed_cities(owner: dict[int, int], seat: int, players: int) -> frozenset[int]:
    """Small and medium cities this seat may no longer build into (full, or its three segments used)."""
    closed = set()
    for city in BOARD.cities.values():
        if city.size == "major":
            continue
        m = city.anchor
        present = tracks.entrants(owner, m)
        mine = present.count(seat)
        cap = tracks.ENTRY_LIMITS[city.size]
        if (mine == 0 and len(set(present)) >= min(cap, players)) or mine >= tracks.PER_PLAYER_ENTRY:
            closed.add(m)
    return frozenset(closed)


def path(parent: Sequence[int], end: int) -> list[int]:
    """The mileposts from ``end`` back to the search's source (``end`` first)."""
    path = [end]
    while parent[path[-1]] >= 0:
        path.append(parent[path[-1]])
    return path


def _usable(owner: dict[int, int], seat: int, paid: frozenset[int], fee_ok: bool) -> frozenset[int]:
    """Edges a train of ``seat`` may run over: red areas, own track, and others' track it paid for or can pay for."""
    return BOARD.red_area | {eid for eid, holder in owner.items()
                             if holder == seat or holder in paid or fee_ok}


def _runs_to(goals: frozenset[int], usable: frozenset[int]) -> dict[tuple[int, int], int]:
    """Steps from each train position (milepost, previous milepost) to the nearest goal, obeying the reversing rule.

    A breadth-first search backwards from the goals over positions; a train reverses only in a city.
    """
    runs: dict[tuple[int, int], int] = {}
    queue: deque[tuple[int, int]] = deque()
    for goal in sorted(goals):
        for x, eid in BOARD.adjacency[goal]:
            if eid in usable:
                runs[(goal, x)] = 0
                queue.append((goal, x))
    while queue:
        y, x = queue.popleft()
        if x in goals:
            continue  # a run stops at the first goal it reaches
        steps = runs[(y, x)] + 1
        for w, eid in BOARD.adjacency[x]:
            if eid not in usable or (w == y and not BOARD.city_at[x]) or (x, w) in runs:
                continue
            runs[(x, w)] = steps
            queue.append((x, w))
    return runs


# Run tables by all their inputs: a train's whole operations turn (same goals, same fees) reuses one.
RUN_MEMO_SIZE = 64
_RUNS: dict[tuple[Any, ...], dict[tuple[int, int], int]] = {}


def step_towards(train: dict[str, Any], goals: set[int], owner: dict[int, int], seat: int,
                  paid: set[int], cash: int) -> int:
    """The first milepost of the shortest run to a goal, exactly as :func:`first_step` finds it.

    The forward search returns the first neighbour, in map order, that starts a shortest run; so does
    this, from a table of run lengths shared by every step of the turn.
    """
    at, prev = train["at"], train["prev"]
    if at in goals:
        return -1
    fee_ok = cash >= TRACK_FEE
    key = (frozenset(goals), frozenset(owner.items()), seat, frozenset(paid), fee_ok)
    runs = _RUNS.get(key)
    if runs is None:
        runs = _runs_to(frozenset(goals), _usable(owner, seat, frozenset(paid), fee_ok))
        if len(_RUNS) >= RUN_MEMO_SIZE:
            _RUNS.clear()
        _RUNS[key] = runs
    best, shortest = -1, INF
    for y, _eid in BOARD.adjacency[at]:
        if y == prev and not BOARD.city_at[at]:
            continue
        length = runs.get((y, at))
        if length is not None and length < shortest:
            best, shortest = y, length
    return best


def first_step(train: dict[str, Any], goals: set[int], owner: dict[int, int], seat: int,
                paid: set[int], cash: int) -> int:
    """First milepost of the shortest run to a goal that obeys the reversing rule."""
    start = (train["at"], train["prev"])
    if train["at"] in goals:
        return -1
    seen = {start}
    queue: deque[tuple[tuple[int, int], int]] = deque([(start, -1)])
    while queue:
        (x, px), first = queue.popleft()
        for y, eid in BOARD.adjacency[x]:
            if eid not in BOARD.red_area:
                holder = owner.get(eid)
                if holder is None:
                    continue
                if holder != seat and holder not in paid and cash < TRACK_FEE:
                    continue
            if y == px and not BOARD.city_at[x]:
                continue
            state_key = (y, x)
            if state_key in seen:
                continue
            seen.add(state_key)
            step = y if first < 0 else first
            if y in goals:
                return step
            queue.append((state_key, step))
    return -1


def home(player: dict[str, Any]) -> set[int]:
    """Where building may usefully start: the own-track piece holding the train (or the biggest piece)."""
    links = tracks.rail_links(player["track"])
    own = tracks.network(player["track"])
    if not own:
        return set(MAJOR_MILEPOSTS)
    roots = [t["at"] for t in player["trains"] if t["at"] in own] or sorted(own)
    best: set[int] = set()
    done: set[int] = set()
    for root in roots:
        if root in done:
            continue
        seen = tracks.reachable(links, root)
        done |= seen
        if len(seen) > len(best):
            best = seen
        if root in [t["at"] for t in player["trains"]]:
            break
    return best


def component(track: list[int]) -> set[int]:
    """Mileposts joined to the largest group of major cities by own track and red areas."""
    links = tracks.rail_links(track)
    best: set[int] = set()
    for centre in MAJOR_CENTRES:
        if centre in best:
            continue
        seen = tracks.reachable(links, centre)
        if (sum(1 for c in MAJOR_CENTRES if c in seen), len(seen)) > (
                sum(1 for c in MAJOR_CENTRES if c in best), len(best)):
            best = seen
    return best if len(best) > 7 else set()
