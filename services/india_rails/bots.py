"""The India Rails heuristic bot: plans a route to its best demand and runs its train along it.

The bot reads only what its seat may see: the board, everyone's track and trains, its own hand
and cash, the tray and the active events (all public in the rulebook); never other players' cash
or the deck.  Plans are cached per turn so a decision costs one or two shortest-path searches.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import Any, cast

from services.common.engine import Engine, Move, Seen, State
from services.common.rng import Rng
from services.india_rails import track as tracks
from services.india_rails.content import (
    BOARD,
    CITY_MILEPOSTS,
    DEMAND_CARDS,
    LOAD_SOURCES,
    MAJOR_CENTRES,
    MAJOR_MILEPOSTS,
    distances_from,
)
from services.india_rails.operations import TRACK_FEE, demand_matches
from services.india_rails.operations import capacity as ops_capacity

INF = 10**9
RENT_WEIGHT = 3  # planning weight of someone else's segment (rented, not built)
LASTING_REFUSALS = frozenset({"blocking", "city_full", "city_entry_limit", "bridge_reserved"})


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


def _path(parent: Sequence[int], end: int) -> list[int]:
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


def _step_towards(train: dict[str, Any], goals: set[int], owner: dict[int, int], seat: int,
                  paid: set[int], cash: int) -> int:
    """The first milepost of the shortest run to a goal, exactly as :meth:`HeuristicBot._first_step` finds it.

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


class HeuristicBot:
    """Route-planning bot: pick the most profitable reachable demand, build towards it, run the train."""

    def __init__(self) -> None:
        self._cache: dict[tuple[Any, ...], dict[str, Any]] = {}
        # Per seat: segments the rules refused on a planned route, demands that led nowhere.
        # Keyed by (game, seat): one bot object may play in many games at once.
        self._refused: dict[tuple[int, int], set[int]] = {}
        self._avoid: dict[tuple[int, int], set[tuple[int, int]]] = {}
        self._progress: dict[tuple[int, int], tuple[Any, int, int]] = {}
        # Per seat: the demand the search bot committed it to chase, and the hand it was chosen from
        # (:meth:`commit`; empty for the plain heuristic, which chases its best-scored demand).
        self.focus: dict[int, tuple[tuple[int, ...], tuple[int, int]]] = {}

    def _who(self, state: State, seat: int) -> tuple[int, int]:
        """This seat in this game (the game key is a private random number drawn at setup)."""
        if len(self._progress) > 512:
            self._refused.clear()
            self._avoid.clear()
            self._progress.clear()
        return int(state.get("game_key", 0)), seat

    # ---- entry point ------------------------------------------------------------

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """One legal move for ``seen.seat``, planned on a state sampled from what the seat may know."""
        legal, seat = seen.legal, seen.seat
        if len(legal) == 1:
            return legal[0]
        # A forked generator samples the hidden parts, so the bot's own draws stay as they were.
        return self.decide(engine.determinize(seen, rng.fork(0x1D1A)), seat, legal)

    def decide(self, state: State, seat: int, legal: Sequence[Move]) -> Move:
        """The move for ``seat`` in a full ``state`` of which it reads only what the seat may see.

        A playout of the search bot plays on a state already sampled from the searching seat's
        view, so it asks here directly, without sampling it again (a third of a move's cost).
        """
        kinds: dict[str, list[Move]] = {}
        for move in legal:
            kinds.setdefault(next(iter(move)), []).append(move)
        if "choose_lost_load" in kinds:
            return self._cheapest_load(state, seat, kinds["choose_lost_load"])
        if "answer_offer" in kinds:
            return {"answer_offer": {"accept": self._good_price(state)}}
        if "discard_demand" in kinds:
            return min(kinds["discard_demand"], key=lambda m: self._card_value(m["discard_demand"]["card"]))
        if state["phase"] == "operations":
            return self._operate(state, seat, kinds)
        return self._build(state, seat, kinds)

    # ---- planning -------------------------------------------------------------------

    def _plan(self, state: State, seat: int) -> dict[str, Any]:
        player = state["players"][seat]
        refused = self._refused.setdefault(self._who(state, seat), set())
        avoid = self._avoid.setdefault(self._who(state, seat), set())
        key = ("plan", self._who(state, seat), player["turns"], state["round"], len(state["deck"]), state["phase"],
               tuple(player["hand"]),
               len(refused), len(avoid), self.committed(state, seat),
               tuple(tuple(load) for t in player["trains"] for load in t["loads"]))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if len(self._cache) > 64:
            self._cache.clear()
        plan = self._make_plan(state, seat)
        self._cache[key] = plan
        return plan

    def _make_plan(self, state: State, seat: int) -> dict[str, Any]:
        """The committed demand (:attr:`focus`) if workable, else the best-scored one, and the route to build."""
        scored, route_of = self._targets(state, seat)
        plan: dict[str, Any] = {"target": None, "route": [], "score": -INF}
        target = self._pick(state, seat, scored)
        if target is None:
            return plan
        plan.update({"target": target, "route": route_of(target), "score": target["score"]})
        return plan

    def _targets(self, state: State, seat: int) -> tuple[list[dict[str, Any]], RouteOf]:
        """Every workable (demand, source) with its score, in the order they were found, and their routes."""
        if not state["players"][seat]["track"]:
            return self._first_targets(state, seat)
        return self._network_targets(state, seat)

    def _network_targets(self, state: State, seat: int) -> tuple[list[dict[str, Any]], RouteOf]:
        """Grow the network: cost of a demand = joining its source and its city to own track."""
        player = state["players"][seat]
        owner = tracks.owners(state)
        starts = self._home(player)
        closed = closed_cities(owner, seat, len(state["players"])) - starts
        refused = self._refused.get(self._who(state, seat), set())
        reach, parent = dijkstra(starts, owner, seat, closed=closed, refused=refused)
        scored: list[dict[str, Any]] = []
        avoid = self._avoid.get(self._who(state, seat), set())
        for card, demand, source, at in self._candidates(state, seat):
            if demand_key(card, demand) in avoid:
                continue
            city = BOARD.cities[demand["city"]]
            dest = min(city.mileposts, key=lambda m: reach[m])
            cost = reach[dest] + (reach[at] if at >= 0 else 0) if source < 0 else reach[source] + reach[dest]
            if cost >= INF:
                continue
            score = self._score(demand["payout"], cost, self._budget(state, player), source < 0)
            scored.append({"card": card, "demand": demand, "source": source, "dest": dest, "score": score,
                           "cost": cost, "at": at})

        def route_of(target: dict[str, Any]) -> list[int]:
            route = _path(parent, target["dest"])[::-1]
            branch = target["source"] if target["source"] >= 0 else target["at"]
            if branch >= 0:
                route = [*_path(parent, branch)[::-1], -1, *route]
            return route

        return scored, route_of

    # ---- the plan as a choice (what the search bot commits a seat to) ------------------------

    def _pick(self, state: State, seat: int, scored: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The best-scored target of the committed demand, if any is workable, else the best-scored one.

        Ties go to the first found (as :func:`max` settles them), so with no commitment the plan is the
        heuristic's own.
        """
        committed = self.committed(state, seat)
        chosen = [t for t in scored if demand_key(t["card"], t["demand"]) == committed] if committed else []
        return max(chosen or scored, key=lambda t: t["score"], default=None)

    def committed(self, state: State, seat: int) -> tuple[int, int] | None:
        """The demand ``seat`` is committed to chase (:attr:`focus`), while its hand is the one it was chosen from."""
        held = self.focus.get(seat)
        if held is None or held[0] != self.plan_context(state, seat):
            return None
        return held[1]

    @staticmethod
    def seat_count(state: State) -> int:
        """The number of rail barons at the table."""
        return len(state["players"])

    @staticmethod
    def plan_context(state: State, seat: int) -> tuple[int, ...]:
        """What a plan is chosen from: the seat's hand (a delivery or a discard changes it)."""
        return tuple(state["players"][seat]["hand"])

    def commit(self, state: State, seat: int, plan: Hashable | None) -> None:
        """Chase ``plan`` (a demand: card, demand index) while the hand holds; ``None``: the heuristic's own choice."""
        if plan is None:
            self.focus.pop(seat, None)
            return
        card, index = cast(tuple[int, int], plan)
        self.focus[seat] = (self.plan_context(state, seat), (card, index))

    def plan_options(self, state: State, seat: int, count: int) -> list[Hashable]:
        """The ``count`` best-scored demands to chase (card, demand index), the heuristic's own choice first.

        Reads only what :meth:`choose` reads (the seat's own hand and public parts), so any
        determinization of the seat's view gives the same options.
        """
        scored, _route_of = self._targets(state, seat)
        options: list[Hashable] = []
        for target in sorted(scored, key=lambda t: -t["score"]):  # stable: ties in found order, as _pick
            key = demand_key(target["card"], target["demand"])
            if key not in options:
                options.append(key)
        return options[:count]

    @staticmethod
    def _score(payout: int, cost: int, budget: int, carried: bool = False) -> float:
        """Payout less the building cost; a demand the building budget cannot pay for is nearly worthless.

        ``budget`` is the cash the bot may spend on track; a load already on the train is worth
        finishing (its source is behind it).
        """
        score = payout - 1.5 * cost + (10 if carried else 0)
        if cost > budget:
            score -= 60
        return score

    def _candidates(self, state: State, seat: int) -> list[tuple[int, dict[str, Any], int, int]]:
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

    def _first_targets(self, state: State, seat: int) -> tuple[list[dict[str, Any]], RouteOf]:
        """No track yet: a major city, then the source, then the demand city, around others' track."""
        player = state["players"][seat]
        owner = tracks.owners(state)
        closed = closed_cities(owner, seat, len(state["players"]))
        reach, reach_parent = dijkstra(set(MAJOR_MILEPOSTS), owner, seat, rent=INF, closed=closed)
        lines: dict[int, tuple[Sequence[int], Sequence[int]]] = {}
        scored: list[dict[str, Any]] = []
        for card, demand, source, _ in self._candidates(state, seat):
            dest = BOARD.cities[demand["city"]].anchor
            if source < 0 or dest in closed or source in closed:
                continue
            if dest not in lines:
                lines[dest] = dijkstra([dest], owner, seat, rent=INF, closed=closed)
            between, _ = lines[dest]
            cost = between[source] + min(reach[source], reach[dest])
            if cost >= INF:
                continue
            score = self._score(demand["payout"], cost, self._budget(state, player))
            scored.append({"card": card, "demand": demand, "source": source, "dest": dest, "score": score,
                           "cost": cost, "at": -1})

        def route_of(target: dict[str, Any]) -> list[int]:
            source, dest = target["source"], target["dest"]
            line = _path(lines[dest][1], source)  # source ... dest
            if reach[source] <= reach[dest]:
                return _path(reach_parent, source)[::-1] + line[1:]
            return [*_path(reach_parent, dest)[::-1], -1, *line[::-1]]

        return scored, route_of

    def _major_route(self, state: State, seat: int) -> list[int]:
        """Cheapest way from own track to the nearest major city not yet joined to it."""
        player = state["players"][seat]
        key = ("majors", self._who(state, seat), player["turns"], state["round"], len(state["deck"]), state["phase"],
               len(player["track"]) // 8)
        cached = self._cache.get(key)
        if cached is not None:
            return cached["route"]
        route = self._find_major_route(state, seat)
        self._cache[key] = {"route": route}
        return route

    def _find_major_route(self, state: State, seat: int) -> list[int]:
        player = state["players"][seat]
        owner = tracks.owners(state)
        component = self._component(player["track"])
        missing = [c for c in MAJOR_CENTRES if c not in component]
        if not missing:
            return []
        if not component:
            component = set(BOARD.cities["Delhi"].mileposts)
            missing = [c for c in missing if c not in component]
        closed = closed_cities(owner, seat, len(state["players"])) - component
        refused = self._refused.get(self._who(state, seat), set())
        dist, parent = dijkstra(component, owner, seat, rent=INF, closed=closed, refused=refused)
        goal = min(missing, key=lambda c: dist[c])
        if dist[goal] >= INF:
            return []
        return _path(parent, goal)[::-1]

    @staticmethod
    def _home(player: dict[str, Any]) -> set[int]:
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

    @staticmethod
    def _component(track: list[int]) -> set[int]:
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

    # ---- operations -------------------------------------------------------------------

    def _operate(self, state: State, seat: int, kinds: dict[str, list[Move]]) -> Move:
        player = state["players"][seat]
        if "deliver" in kinds:
            return max(kinds["deliver"], key=lambda m: DEMAND_CARDS[m["deliver"]["card"]]["demands"][
                m["deliver"]["demand"]]["payout"])
        plan = self._plan(state, seat)
        if not state["turn"]["acted"]:
            self._watch_progress(state, seat, plan)
        if "place_train" in kinds:
            return self._placement(state, seat, plan, kinds["place_train"])
        wanted = self._wanted_loads(state, seat)
        for move in kinds.get("pick_up", []):
            if move["pick_up"]["load"] in wanted:
                return move
        if "discard_hand" in kinds and self._should_discard(state, seat, plan):
            return {"discard_hand": {}}
        for move in kinds.get("drop_load", []):
            train = player["trains"][move["drop_load"]["train"]]
            load = train["loads"][move["drop_load"]["slot"]]
            if load[0] not in wanted and len(train["loads"]) >= 2:
                return move
        step = self._next_step(state, seat, plan, kinds.get("move_train", []))
        if step is not None:
            return step
        return {"end_operations": {}}

    def _wanted_loads(self, state: State, seat: int) -> set[str]:
        """Loads worth picking up here: the target's load (pilgrims only from another region)."""
        plan = self._plan(state, seat)
        target = plan["target"]
        if not target or target["source"] < 0:
            return set()
        player = state["players"][seat]
        at = next((t["at"] for t in player["trains"] if t["at"] >= 0), -1)
        if at != target["source"] and target["demand"]["load"] == "Pilgrims":
            return set()
        return {target["demand"]["load"]}

    def _placement(self, state: State, seat: int, plan: dict[str, Any], moves: list[Move]) -> Move:
        """Start on own track: at the target's source if it is there, else at the nearest own city."""
        target = plan["target"]
        mine = tracks.network(state["players"][seat]["track"])
        allowed = {m["place_train"]["milepost"]: m for m in moves}
        on_track = [m for m in allowed if m in mine]
        if not on_track:
            on_track = list(allowed)
        goal = target["source"] if target and target["source"] >= 0 else (target["dest"] if target else -1)
        if goal < 0:
            return allowed[on_track[0]]
        dist = distances_from(goal)
        return allowed[min(on_track, key=lambda m: (dist[m] if dist[m] >= 0 else INF, m))]

    def _should_discard(self, state: State, seat: int, plan: dict[str, Any]) -> bool:
        player = state["players"][seat]
        target = plan["target"]
        return target is None or plan["score"] < -20 or target["cost"] > self._budget(state, player)

    def _goals(self, state: State, seat: int, plan: dict[str, Any], train: dict[str, Any]) -> list[set[int]]:
        """Where this train should run, best first: cities wanting one of its loads, then the plan's target."""
        player = state["players"][seat]
        goals: set[int] = set()
        for card in player["hand"]:
            for demand in DEMAND_CARDS[card]["demands"]:
                if any(demand_matches(demand, load, demand["city"]) for load in train["loads"]):
                    goals |= set(BOARD.cities[demand["city"]].mileposts)
        found = [goals] if goals else []
        target = plan["target"]
        if target and target["source"] >= 0 and len(train["loads"]) < ops_capacity(train["loco"]):
            found.append({target["source"]})
        return found

    def _next_step(self, state: State, seat: int, plan: dict[str, Any], moves: list[Move]) -> Move | None:
        """The next milepost for a train: towards the first goal it can reach, else to wait near one."""
        if not moves:
            return None
        player = state["players"][seat]
        owner = tracks.owners(state)
        paid = set(state["turn"]["fees_paid"])
        for t, train in enumerate(player["trains"]):
            goals = self._goals(state, seat, plan, train)
            if any(train["at"] in g for g in goals):
                continue
            steps = [_step_towards(train, g, owner, seat, paid, player["cash"]) for g in goals]
            if all(first < 0 for first in steps):
                # Nothing reachable yet: wait in the own city closest to a goal (trains reverse in
                # cities), going there over own or already paid track only — waiting is not worth a fee.
                stagings = [self._staging(player, train, g) for g in goals]
                staging = next((m for m in stagings if m >= 0 and m != train["at"]), -1)
                steps = [_step_towards(train, {staging}, owner, seat, paid, 0)] if staging >= 0 else []
            for first in steps:
                move = {"move_train": {"train": t, "to_milepost": first}}
                if first >= 0 and move in moves:
                    return move
        return None

    def _staging(self, player: dict[str, Any], train: dict[str, Any], goals: set[int]) -> int:
        """The city on the train's own piece of track nearest (over the map) to one of ``goals``."""
        if train["at"] < 0:
            return -1
        home = self._home(player)
        if train["at"] not in home:
            return -1
        cities = [m for m in home if BOARD.city_at[m]]
        anchors = {BOARD.cities[BOARD.city_at[g]].anchor if BOARD.city_at[g] else g for g in goals}
        tables = [distances_from(a) for a in sorted(anchors)[:3]]

        def gap(m: int) -> int:
            return min(t[m] if t[m] >= 0 else INF for t in tables)

        best = min(cities, key=lambda m: (gap(m), m), default=-1)
        if best < 0 or gap(best) >= gap(train["at"]):
            return -1
        return best

    @staticmethod
    def _first_step(train: dict[str, Any], goals: set[int], owner: dict[int, int], seat: int,
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

    # ---- building ----------------------------------------------------------------------

    def _build(self, state: State, seat: int, kinds: dict[str, list[Move]]) -> Move:
        """A building turn: upgrade when rich enough, else build along the most pressing route, else end."""
        player = state["players"][seat]
        upgrade = self._upgrade(state, player, kinds)
        if upgrade is not None:
            return upgrade
        loan = self._loan(state, seat, kinds.get("borrow", []))
        if loan is not None:
            return loan
        builds = {(m["build_track"]["from_milepost"], m["build_track"]["to_milepost"]): m
                  for m in kinds.get("build_track", [])}
        if not builds:
            return {"end_turn": {}}
        # A stranded train comes first: it may not reverse outside a city, so it needs track onward.
        move = self._route_build(self._escape_route(state, seat), builds, player["cash"])
        if move is not None:
            return move
        budget = self._budget(state, player)
        for route in self._build_routes(state, seat, builds):
            move = self._route_build(route, builds, budget)
            if move is not None:
                return move
        return {"end_turn": {}}

    @staticmethod
    def _upgrade(state: State, player: dict[str, Any], kinds: dict[str, list[Move]]) -> Move | None:
        """Upgrade the first train instead of building once the cash allows: to a fast freight, then onward."""
        first = [m for m in kinds.get("upgrade_train", []) if m["upgrade_train"]["train"] == 0]
        if state["phase"] != "build" or not first or state["turn"]["spent"] != 0:
            return None
        train = player["trains"][0]
        if train["loco"] == "freight" and player["cash"] >= 70:
            # A fast freight if the bank still has one (12 loco cards in all), else a heavy freight.
            return min(first, key=lambda m: m["upgrade_train"]["loco"] != "fast_freight")
        if train["loco"] != "freight" and player["cash"] >= 140:
            return first[0]
        return None

    def _loan(self, state: State, seat: int, loans: list[Move]) -> Move | None:
        """Borrow (mercy rule) the least that puts the planned demand within the building budget.

        The bot never repays early: the rules take the debt from its next income anyway.
        """
        if not loans or state["phase"] != "build":
            return None
        player = state["players"][seat]
        target = self._plan(state, seat)["target"]
        if not target or target["cost"] <= self._budget(state, player):
            return None
        for move in sorted(loans, key=lambda m: m["borrow"]["amount"]):
            cash = int(player["cash"]) + move["borrow"]["amount"]
            if target["cost"] <= cash - self._reserve(state, cash):
                return move
        return None

    @staticmethod
    def _reserve(state: State, cash: int) -> int:
        """Cash kept back from building for use fees once trains run (a third of the cash, at most 10M).

        None is kept while laying the first network; a poor bot keeps little, so that it can still
        build the last few segments to a cheap demand instead of waiting for income that cannot come.
        """
        return 0 if state["phase"] == "initial_build" else min(10, cash // 3)

    def _budget(self, state: State, player: dict[str, Any]) -> int:
        """What the bot may spend on track for its plan."""
        return int(player["cash"]) - self._reserve(state, int(player["cash"]))

    @staticmethod
    def _joining_majors(state: State, player: dict[str, Any]) -> bool:
        """Rich enough (or late enough in the game) to put joining the major cities, needed to win, first."""
        return player["cash"] >= 100 or (state["phase"] == "build" and player["turns"] > 30 and player["cash"] >= 40)

    def _build_routes(self, state: State, seat: int, builds: dict[tuple[int, int], Move]) -> list[list[int]]:
        """Routes to build along, most pressing first: the major-city link, the planned delivery, a fallback link."""
        player = state["players"][seat]
        joining = self._joining_majors(state, player)
        routes = [self._major_route(state, seat)] if joining else []
        # Refusals are noted before planning: the plan avoids segments the rules refused.
        if routes:
            self._note_refusals(state, seat, routes[0], builds)
        plan = self._plan(state, seat)
        if self._affordable(state, player, plan):
            routes.append(plan["route"])
            self._note_refusals(state, seat, plan["route"], builds)
        if not joining and player["cash"] >= 60:
            routes.append(self._major_route(state, seat))
        return routes

    def _affordable(self, state: State, player: dict[str, Any], plan: dict[str, Any]) -> bool:
        """Whether to build towards the plan's target: always in the first building rounds, later only if paid for."""
        target = plan["target"]
        if not target:
            return False
        return state["phase"] == "initial_build" or target["cost"] <= self._budget(state, player)

    def _escape_route(self, state: State, seat: int) -> list[int]:
        """Track onward to the nearest city for a train that can reach no city (it may not reverse)."""
        player = state["players"][seat]
        own = tracks.network(player["track"])
        owner = tracks.owners(state)
        cities = set(CITY_MILEPOSTS)
        for train in player["trains"]:
            if train["at"] < 0 or train["at"] not in own or BOARD.city_at[train["at"]]:
                continue
            if self._first_step(train, cities - {train["at"]}, owner, seat, set(), player["cash"]) >= 0:
                continue
            closed = frozenset({train["prev"]}) if train["prev"] >= 0 else frozenset()
            dist, parent = dijkstra([train["at"]], owner, seat, rent=INF, closed=closed)
            goal = min(cities, key=lambda m: (dist[m], m))
            if dist[goal] < INF:
                return _path(parent, goal)[::-1]
        return []

    def _note_refusals(self, state: State, seat: int, route: list[int],
                       builds: dict[tuple[int, int], Move]) -> None:
        """Remember free segments of the route, next to own track, that the rules refuse for good.

        Blocking and entry limits last; budget, the two-from-a-major limit and events pass.
        """
        owner = tracks.owners(state)
        reach = tracks.network(state["players"][seat]["track"]) | MAJOR_MILEPOSTS
        refused = self._refused.setdefault(self._who(state, seat), set())
        ctx = tracks.BuildContext(state, seat)
        for a, b in itertools.pairwise(route):
            if a < 0 or b < 0 or (a, b) in builds or (b, a) in builds:
                continue
            eid = BOARD.edge_between(a, b)
            if eid in owner or eid in BOARD.red_area or eid in BOARD.inside_major:
                continue
            for start, end in ((a, b), (b, a)):
                if start in reach:
                    problem = tracks.build_problem(ctx, start, end)
                    if problem and problem[0] in LASTING_REFUSALS:
                        refused.add(eid)

    def _watch_progress(self, state: State, seat: int, plan: dict[str, Any]) -> None:
        """A target that brings no money for many turns is given up (until the hand changes)."""
        target = plan["target"]
        if target is None:
            return
        player = state["players"][seat]
        key = demand_key(target["card"], target["demand"])
        seen = self._progress.get(self._who(state, seat))
        if seen and seen[0] == key and seen[1] == player["cash"]:
            if player["turns"] - seen[2] >= 8:
                self._avoid.setdefault(self._who(state, seat), set()).add(key)
                self._refused[self._who(state, seat)] = set()
            return
        self._progress[self._who(state, seat)] = (key, player["cash"], player["turns"])

    @staticmethod
    def _route_build(route: list[int], builds: dict[tuple[int, int], Move], budget: int) -> Move | None:
        for a, b in itertools.pairwise(route):
            if a < 0 or b < 0:
                continue
            for pair in ((a, b), (b, a)):
                move = builds.get(pair)
                if move is not None and BOARD.cost_into(BOARD.edge_between(*pair), pair[1]) <= budget:
                    return move
        return None

    # ---- small decisions -------------------------------------------------------------------

    @staticmethod
    def _good_price(state: State) -> bool:
        """Sell a segment for at least three times its building cost; never swap (the bot cannot value track)."""
        offer = state["offer"]
        if offer["give_a"] >= 0:
            return False
        eid = BOARD.edge_between(offer["a"], offer["b"])
        return int(offer["price"]) >= 3 * min(BOARD.build_cost[eid])

    @staticmethod
    def _card_value(card: int) -> int:
        return max(d["payout"] for d in DEMAND_CARDS[card]["demands"])

    @staticmethod
    def _cheapest_load(state: State, seat: int, moves: list[Move]) -> Move:
        def value(move: Move) -> int:
            body = move["choose_lost_load"]
            load = state["players"][seat]["trains"][body["train"]]["loads"][body["slot"]]
            return max((d["payout"] for c in state["players"][seat]["hand"] for d in DEMAND_CARDS[c]["demands"]
                        if d["load"] == load[0]), default=0)

        return min(moves, key=value)
