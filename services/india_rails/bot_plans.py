"""The India Rails heuristic bot's plan: the demand to chase, the route to build, the link between major cities.

Everything here is worked out afresh for each decision from the state the bot plays on (a
determinization of its seat's view, of which only the seat's own and public parts are read), in
a :class:`Decision` that lives as long as that one decision: nothing is carried from one move to
the next (see :mod:`services.india_rails.bots` for why).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from services.common.engine import State
from services.india_rails import track as tracks
from services.india_rails.bot_routes import (
    INF,
    RouteOf,
    closed_cities,
    component,
    demand_key,
    dijkstra,
    home,
    path,
)
from services.india_rails.content import BOARD, DEMAND_CARDS, LOAD_SOURCES, MAJOR_CENTRES, MAJOR_MILEPOSTS
from services.india_rails.operations import demand_matches

# Refusals that last (the rules will refuse the segment next turn too); budget and event limits pass.
LASTING_REFUSALS = frozenset({"blocking", "city_full", "city_entry_limit", "bridge_reserved"})
# How often one decision re-plans around newly found refusals (each round removes at least one segment).
REFUSAL_ROUNDS = 4


@dataclass
class Decision:
    """One decision of ``seat`` on ``state``: its plan, its major-city link and the segments it found refused.

    ``committed`` is the demand the search bot committed the seat to (or ``None``: the heuristic's
    own choice).  The plan and the link are computed at most once per decision, after the refused
    segments on their routes have been found (:func:`settle`).
    """

    state: State
    seat: int
    committed: tuple[int, int] | None = None
    refused: set[int] = field(default_factory=set)
    _plan: dict[str, Any] | None = field(default=None, init=False, repr=False)
    _major: list[int] | None = field(default=None, init=False, repr=False)
    _settled: bool = field(default=False, init=False, repr=False)

    @property
    def player(self) -> dict[str, Any]:
        """The deciding seat's player record."""
        player: dict[str, Any] = self.state["players"][self.seat]
        return player


def plan(d: Decision) -> dict[str, Any]:
    """The plan: the committed demand if workable, else the best-scored one, and the route to build."""
    settle(d)
    return _plan_now(d)


def major_route(d: Decision) -> list[int]:
    """Cheapest way from own track to the nearest major city not yet joined to it."""
    settle(d)
    return _major_now(d)


def settle(d: Decision) -> None:
    """Find the segments on the plan's route (and the major-city link, when it comes first) that the rules
    refuse for good, and plan again around them, until no new one turns up (or :data:`REFUSAL_ROUNDS`)."""
    if d._settled:
        return
    d._settled = True
    for _ in range(REFUSAL_ROUNDS):
        routes = [_plan_now(d)["route"]]
        if joining_majors(d.state, d.player):
            routes.insert(0, _major_now(d))
        found = set().union(*(lasting_refusals(d.state, d.seat, route) for route in routes))
        if found <= d.refused:
            return
        d.refused |= found
        d._plan, d._major = None, None


def _plan_now(d: Decision) -> dict[str, Any]:
    if d._plan is None:
        d._plan = make_plan(d)
    return d._plan


def _major_now(d: Decision) -> list[int]:
    if d._major is None:
        d._major = find_major_route(d)
    return d._major


def _unbuilt_segments(owner: dict[int, int], route: list[int]) -> Iterator[tuple[int, int, int]]:
    """The segments of ``route`` still to build, as (milepost, milepost, edge id): neither owned by
    anybody (``owner``: :func:`tracks.owners`), nor in a red area, nor inside a major city."""
    for a, b in itertools.pairwise(route):
        if a < 0 or b < 0:
            continue
        eid = BOARD.edge_between(a, b)
        if eid in owner or eid in BOARD.red_area or eid in BOARD.inside_major:
            continue
        yield a, b, eid


def lasting_refusals(state: State, seat: int, route: list[int]) -> set[int]:
    """Free segments of ``route``, next to own track, that the rules refuse for a lasting reason."""
    owner = tracks.owners(state)
    reach = tracks.network(state["players"][seat]["track"]) | MAJOR_MILEPOSTS
    ctx = tracks.BuildContext(state, seat)
    refused: set[int] = set()
    for a, b, eid in _unbuilt_segments(owner, route):
        for start, end in ((a, b), (b, a)):
            if start in reach:
                problem = tracks.build_problem(ctx, start, end)
                if problem and problem[0] in LASTING_REFUSALS:
                    refused.add(eid)
    return refused


def make_plan(d: Decision) -> dict[str, Any]:
    """The committed demand if workable, else the best-scored one, and the route to build.

    A target whose route cannot be built (:func:`stranded`) is passed over for the next one.
    """
    scored, route_of = targets(d)
    while True:
        target = pick(d, scored)
        if target is None:
            return {"target": None, "route": [], "score": -INF}
        route = route_of(target)
        if not stranded(d.state, d.seat, route):
            return {"target": target, "route": route, "score": target["score"]}
        scored = [t for t in scored if t is not target]


def stranded(state: State, seat: int, route: list[int]) -> bool:
    """Whether the route still needs track but none of its missing segments touches own track or a major city.

    The planner prices others' track as rent, so a cheapest route may cross an opponent's segment and
    go on building beyond it, where no building may start: no turn ever brings such a target closer.
    (This takes the place of the notes the bot once kept to give up a demand after eight turns without
    income: it is read from the board, so any process sees it at once.)
    """
    owner = tracks.owners(state)
    reach = tracks.network(state["players"][seat]["track"]) | MAJOR_MILEPOSTS
    missing = False
    for a, b, _ in _unbuilt_segments(owner, route):
        if a in reach or b in reach:
            return False
        missing = True
    return missing


def pick(d: Decision, scored: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The best-scored target of the committed demand, if any is workable, else the best-scored one.

    Ties go to the first found (as :func:`max` settles them), so with no commitment the plan is the
    heuristic's own.
    """
    chosen = [t for t in scored if demand_key(t["card"], t["demand"]) == d.committed] if d.committed else []
    return max(chosen or scored, key=lambda t: t["score"], default=None)


def options(d: Decision, count: int) -> list[tuple[int, int]]:
    """The ``count`` best-scored demands to chase (card, demand index), the heuristic's own choice first."""
    settle(d)
    scored, route_of = targets(d)
    found: list[tuple[int, int]] = []
    for target in sorted(scored, key=lambda t: -t["score"]):  # stable: ties in found order, as pick
        key = demand_key(target["card"], target["demand"])
        if key not in found and not stranded(d.state, d.seat, route_of(target)):
            found.append(key)
            if len(found) == count:
                break
    return found


def targets(d: Decision) -> tuple[list[dict[str, Any]], RouteOf]:
    """Every workable (demand, source) with its score, in the order they were found, and their routes."""
    if not d.player["track"]:
        return first_targets(d)
    return network_targets(d)


def network_targets(d: Decision) -> tuple[list[dict[str, Any]], RouteOf]:
    """Grow the network: cost of a demand = joining its source and its city to own track."""
    state, seat, player = d.state, d.seat, d.player
    owner = tracks.owners(state)
    starts = home(player)
    closed = closed_cities(owner, seat, len(state["players"])) - starts
    reach, parent = dijkstra(starts, owner, seat, closed=closed, refused=d.refused)
    scored: list[dict[str, Any]] = []
    for card, demand, source, at in candidates(state, seat):
        city = BOARD.cities[demand["city"]]
        dest = min(city.mileposts, key=lambda m: reach[m])
        cost = reach[dest] + (reach[at] if at >= 0 else 0) if source < 0 else reach[source] + reach[dest]
        if cost >= INF:
            continue
        value = score(demand["payout"], cost, budget(state, player), source < 0)
        scored.append({"card": card, "demand": demand, "source": source, "dest": dest, "score": value,
                       "cost": cost, "at": at})

    def route_of(target: dict[str, Any]) -> list[int]:
        route = path(parent, target["dest"])[::-1]
        branch = target["source"] if target["source"] >= 0 else target["at"]
        if branch >= 0:
            route = [*path(parent, branch)[::-1], -1, *route]
        return route

    return scored, route_of


def first_targets(d: Decision) -> tuple[list[dict[str, Any]], RouteOf]:
    """No track yet: a major city, then the source, then the demand city, around others' track."""
    state, seat, player = d.state, d.seat, d.player
    owner = tracks.owners(state)
    closed = closed_cities(owner, seat, len(state["players"]))
    reach, reach_parent = dijkstra(set(MAJOR_MILEPOSTS), owner, seat, rent=INF, closed=closed)
    lines: dict[int, tuple[Sequence[int], Sequence[int]]] = {}
    scored: list[dict[str, Any]] = []
    for card, demand, source, _ in candidates(state, seat):
        dest = BOARD.cities[demand["city"]].anchor
        if source < 0 or dest in closed or source in closed:
            continue
        if dest not in lines:
            lines[dest] = dijkstra([dest], owner, seat, rent=INF, closed=closed)
        between, _ = lines[dest]
        cost = between[source] + min(reach[source], reach[dest])
        if cost >= INF:
            continue
        value = score(demand["payout"], cost, budget(state, player))
        scored.append({"card": card, "demand": demand, "source": source, "dest": dest, "score": value,
                       "cost": cost, "at": -1})

    def route_of(target: dict[str, Any]) -> list[int]:
        source, dest = target["source"], target["dest"]
        line = path(lines[dest][1], source)  # source ... dest
        if reach[source] <= reach[dest]:
            return path(reach_parent, source)[::-1] + line[1:]
        return [*path(reach_parent, dest)[::-1], -1, *line[::-1]]

    return scored, route_of


def candidates(state: State, seat: int) -> list[tuple[int, dict[str, Any], int, int]]:
    """(card, demand, source milepost or -1 if carried, train milepost) for every workable demand."""
    player = state["players"][seat]
    found = []
    for card in player["hand"]:
        for demand in DEMAND_CARDS[card]["demands"]:
            carried_at = -2
            for train in player["trains"]:
                if any(demand_matches(demand, load, demand["city"]) for load in train["loads"]):
                    carried_at = train["at"]
            if carried_at != -2:
                found.append((card, demand, -1, carried_at))
                continue
            if state["tray"][demand["load"]] <= 0:
                continue
            region = BOARD.cities[demand["city"]].region
            for source in LOAD_SOURCES[demand["load"]]:
                if demand["load"] == "Pilgrims" and BOARD.cities[BOARD.city_at[source]].region == region:
                    continue
                found.append((card, demand, source, -1))
    return found


def score(payout: int, cost: int, budget: int, carried: bool = False) -> float:
    """Payout less the building cost; a demand the building budget cannot pay for is nearly worthless.

    ``budget`` is the cash the bot may spend on track; a load already on the train is worth
    finishing (its source is behind it).
    """
    value = payout - 1.5 * cost + (10 if carried else 0)
    if cost > budget:
        value -= 60
    return value


def find_major_route(d: Decision) -> list[int]:
    """Cheapest way from own track to the nearest major city not yet joined to it, around refused segments."""
    state, seat, player = d.state, d.seat, d.player
    owner = tracks.owners(state)
    joined = component(player["track"])
    missing = [c for c in MAJOR_CENTRES if c not in joined]
    if not missing:
        return []
    if not joined:
        joined = set(BOARD.cities["Delhi"].mileposts)
        missing = [c for c in missing if c not in joined]
    closed = closed_cities(owner, seat, len(state["players"])) - joined
    dist, parent = dijkstra(joined, owner, seat, rent=INF, closed=closed, refused=d.refused)
    goal = min(missing, key=lambda c: dist[c])
    if dist[goal] >= INF:
        return []
    return path(parent, goal)[::-1]


def reserve(state: State, cash: int) -> int:
    """Cash kept back from building for use fees once trains run (a third of the cash, at most 10M).

    None is kept while laying the first network; a poor bot keeps little, so that it can still
    build the last few segments to a cheap demand instead of waiting for income that cannot come.
    """
    return 0 if state["phase"] == "initial_build" else min(10, cash // 3)


def budget(state: State, player: dict[str, Any]) -> int:
    """What the bot may spend on track for its plan."""
    return int(player["cash"]) - reserve(state, int(player["cash"]))


def joining_majors(state: State, player: dict[str, Any]) -> bool:
    """Rich enough (or late enough in the game) to put joining the major cities, needed to win, first."""
    return player["cash"] >= 100 or (state["phase"] == "build" and player["turns"] > 30 and player["cash"] >= 40)
