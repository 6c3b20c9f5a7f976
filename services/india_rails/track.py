"""Track: who owns which segment, what a player may build, and whether the major cities are linked.

A segment is an edge id of :data:`content.BOARD`.  The state keeps each player's segments as a
list of edge ids; the helpers here derive ownership maps and networks from those lists.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Iterable
from typing import Any

from services.common.engine import State
from services.india_rails.cards import active_cards
from services.india_rails.content import (
    BOARD,
    COSTS,
    EVENT_CARDS,
    MAJOR_CENTRES,
    MAJOR_MILEPOSTS,
    sandstorm_mileposts,
)

BUDGET = int(COSTS["turn_budget"])
ENTRY_LIMITS = {size: int(COSTS["city_entry_limit"][size]) for size in ("small", "medium")}
PER_PLAYER_ENTRY = int(COSTS["city_entry_limit"]["per_player"])
MAJOR_SEGMENTS_PER_TURN = int(COSTS["major_segments_per_turn"])


def owners(state: State) -> dict[int, int]:
    """Edge id -> owning seat, for every built segment."""
    return {eid: seat for seat, p in enumerate(state["players"]) for eid in p["track"]}


def network(track: Iterable[int]) -> set[int]:
    """Mileposts touched by a player's track."""
    nodes: set[int] = set()
    for eid in track:
        a, b = BOARD.edges[eid]
        nodes.add(a)
        nodes.add(b)
    return nodes


def rail_links(track: Iterable[int]) -> dict[int, list[int]]:
    """Adjacency of the mileposts joined by ``track`` plus the red areas (which everyone may use)."""
    links: dict[int, list[int]] = {}
    for eid in list(track) + list(BOARD.red_area):
        a, b = BOARD.edges[eid]
        links.setdefault(a, []).append(b)
        links.setdefault(b, []).append(a)
    return links


def reachable(links: dict[int, list[int]], start: int) -> set[int]:
    """Every milepost joined to ``start`` through ``links`` (breadth-first)."""
    seen = {start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in links.get(here, ()):
            if there not in seen:
                seen.add(there)
                queue.append(there)
    return seen


def connected_majors(track: Iterable[int]) -> bool:
    """Whether one continuous line of own track (plus the red areas) joins all five major cities.

    Every view asks this for every player, so answers are remembered by the track (see
    :func:`_connected`); and a line can only join a major city that a segment of its own touches
    (the red areas join nothing else).
    """
    return _connected(tuple(track))


# Answers of :func:`connected_majors` by track (a pure function's memo, bounded).
CONNECTED_MEMO_SIZE = 256


@functools.lru_cache(maxsize=CONNECTED_MEMO_SIZE)
def _connected(track: tuple[int, ...]) -> bool:
    return _touches_every_major(track) and _joins_majors(track)


_MAJOR_CITY_MILEPOSTS = tuple(frozenset(c.mileposts) for c in BOARD.cities.values() if c.size == "major")


def _touches_every_major(track: tuple[int, ...]) -> bool:
    """Whether some own segment ends in each major city (needed, not enough, for a joining line)."""
    ends = network(track)
    return all(not ends.isdisjoint(city) for city in _MAJOR_CITY_MILEPOSTS)


def _joins_majors(track: tuple[int, ...]) -> bool:
    seen = reachable(rail_links(track), MAJOR_CENTRES[0])
    return all(c in seen for c in MAJOR_CENTRES)


def entrants(owner: dict[int, int], milepost: int) -> list[int]:
    """The owner of each built segment at ``milepost``: a seat appears once per segment it has there."""
    return [owner[e] for _, e in BOARD.adjacency[milepost] if e in owner]


def flooded_rivers(state: State) -> set[str]:
    """Rivers under an active flood card."""
    return {river for card in active_cards(state, "flood") for river in EVENT_CARDS[card]["rivers"]}


def storm_blocked(state: State) -> set[int]:
    """Desert mileposts under an active sandstorm card."""
    return {m for card in active_cards(state, "sandstorm") for m in sandstorm_mileposts(card)}


class BuildContext:
    """Everything a build check needs, computed once per listing."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.owner = owners(state)
        self.mine = network(state["players"][seat]["track"])
        self.flooded = flooded_rivers(state)
        self.storm = storm_blocked(state)
        self.reserved = {r["eid"]: r["owner"] for r in state["reserved"]}
        turn = state["turn"]
        limit = BUDGET - turn["spent"]
        self.money = min(limit, state["players"][seat]["cash"])
        self.major_left = MAJOR_SEGMENTS_PER_TURN - turn["major_segments"]
        self.players = len(state["players"])
        self._blocked: dict[int, frozenset[int]] = {}

    def blocked_for(self, p: int) -> frozenset[int]:
        """Segments ``p`` may never use: those other players own."""
        blocked = self._blocked.get(p)
        if blocked is None:
            blocked = self._blocked[p] = frozenset(e for e, holder in self.owner.items() if holder != p)
        return blocked

    def listing_key(self) -> tuple[Any, ...]:
        """Every state part a build listing reads, as an immutable key."""
        state = self.state
        turn = state["turn"]
        return (self.seat, self.money, turn["spent"], turn["major_segments"],
                tuple(tuple(p["track"]) for p in state["players"]),
                tuple(a["card"] for a in state["active"]),
                tuple(sorted(self.reserved.items())))


def build_problem(ctx: BuildContext, start: int, end: int) -> tuple[str, str] | None:
    """Why ``ctx.seat`` may not build from ``start`` to ``end`` now, or ``None`` if it may."""
    eid = BOARD.edge_between(start, end)
    if eid < 0:
        return "not_adjacent", "those mileposts are not joined on the map"
    # The order of the checks fixes which reason a refusal gives when several apply.
    return (
        _site_problem(ctx, eid, start)
        or _event_problem(ctx, eid, start, end)
        or _cost_problem(ctx, eid, end)
        or _major_limit_problem(ctx, start)
        or _entry_problem(ctx, eid, start)
        or _entry_problem(ctx, eid, end)
        or _blocking_problem(ctx, eid)
    )


def _site_problem(ctx: BuildContext, eid: int, start: int) -> tuple[str, str] | None:
    """Where track may go at all: outside major cities, on a free right of way, from own track or a major city."""
    if eid in BOARD.inside_major or eid in BOARD.red_area:
        return "red_area", "no track may be built inside a major city"
    if eid in ctx.owner:
        return "right_of_way", "a segment already runs between those mileposts"
    if start not in ctx.mine and start not in MAJOR_MILEPOSTS:
        return "not_connected", "build from a major city or from your own track"
    return None


def _event_problem(ctx: BuildContext, eid: int, start: int, end: int) -> tuple[str, str] | None:
    """Event cards stop building: rivers in flood, sandstorms, and erased segments their owner may rebuild first."""
    if BOARD.river[eid] and BOARD.river[eid] in ctx.flooded:
        return "river_flooded", f"the {BOARD.river[eid]} is in flood"
    if start in ctx.storm or end in ctx.storm:
        return "sandstorm", "a sandstorm covers that milepost"
    holder = ctx.reserved.get(eid)
    if holder is not None and holder != ctx.seat:
        return "bridge_reserved", "its previous owner may rebuild that segment first"
    return None


def _cost_problem(ctx: BuildContext, eid: int, end: int) -> tuple[str, str] | None:
    """The segment must fit both the turn's 20M building limit and the player's cash (there is no credit)."""
    cost = BOARD.cost_into(eid, end)
    if cost <= ctx.money:
        return None
    if BUDGET - ctx.state["turn"]["spent"] < cost:
        return "over_budget", f"the segment costs {cost}M, over this turn's 20M limit"
    return "no_credit", f"the segment costs {cost}M and there is no credit"


def _major_limit_problem(ctx: BuildContext, start: int) -> tuple[str, str] | None:
    """At most two segments a turn may start from major city mileposts."""
    if start in MAJOR_MILEPOSTS and ctx.major_left <= 0:
        return "major_limit", "at most two segments a turn may be built from major city mileposts"
    return None


def _blocking_problem(ctx: BuildContext, eid: int) -> tuple[str, str] | None:
    """No segment may cut another player off from a city they could still reach."""
    if _blocks_someone(ctx, eid):
        return "blocking", "that segment would cut another player off from a city"
    return None


def _entry_problem(ctx: BuildContext, eid: int, milepost: int) -> tuple[str, str] | None:
    """City entry limits: players per small or medium city, segments per player, and room left for others."""
    city = BOARD.city_of(milepost)
    if city is None or city.size == "major":
        return None
    cap = ENTRY_LIMITS[city.size]
    seats = entrants(ctx.owner, milepost)
    present = set(seats)
    mine = seats.count(ctx.seat)
    free = sum(1 for _, e in BOARD.adjacency[milepost] if e not in ctx.owner and e != eid)
    if ctx.seat not in present and len(present) >= cap:
        return "city_full", f"{city.name} already has track from {cap} players"
    if mine >= PER_PLAYER_ENTRY:
        return "city_entry_limit", f"you already have {PER_PLAYER_ENTRY} segments into {city.name}"
    after = len(present | {ctx.seat})
    wanted = min(cap, ctx.players) - after
    if wanted > free:
        return "blocking", f"that segment would leave no way into {city.name} for another player"
    return None


def _blocks_someone(ctx: BuildContext, eid: int) -> bool:
    """Whether taking free edge ``eid`` cuts some other player's possible network apart.

    Red areas and city interiors are never owned, so ``owner.get(e, p) == p`` reads "usable by p"
    (moving between two outposts through the centre is always possible).
    """
    owner = ctx.owner
    pairs = BOARD.triangle_edges[eid]
    for e1, e2 in pairs:
        if e1 not in owner and e2 not in owner:
            return False
    u, v = BOARD.edges[eid]
    for p in range(ctx.players):
        if p == ctx.seat:
            continue
        if any(owner.get(e1, p) == p and owner.get(e2, p) == p for e1, e2 in pairs):
            continue
        if _separates_cities(ctx, p, eid, u, v):
            return True
    return False


def _pocket(ctx: BuildContext, p: int, cut: int, u: int, v: int) -> set[int] | None:
    """If edge ``cut`` is a bridge of ``p``'s possible network, the smaller side; else ``None``.

    Both sides grow together so that a small pocket is found without walking the whole map.
    """
    owner = ctx.owner
    adjacency = BOARD.adjacency
    seen = ({u}, {v})
    frontier = ([u], [v])
    while frontier[0] and frontier[1]:
        side = 0 if len(frontier[0]) <= len(frontier[1]) else 1
        mine, theirs = seen[side], seen[1 - side]
        grown: list[int] = []
        for x in frontier[side]:
            for y, e in adjacency[x]:
                if e == cut or y in mine:
                    continue
                if owner.get(e, p) != p:
                    continue
                if y in theirs:
                    return None
                mine.add(y)
                grown.append(y)
        frontier[side][:] = grown
    return seen[0] if not frontier[0] else seen[1]


def _protected(ctx: BuildContext, p: int, milepost: int, eid: int) -> bool:
    """Whether ``p`` keeps a right to reach this city milepost after ``eid`` is built."""
    city = BOARD.city_of(milepost)
    if city is None:
        return False
    if city.size == "major":
        return True
    present = set(entrants(ctx.owner, milepost))
    if p in present:
        return True
    if eid in (e for _, e in BOARD.adjacency[milepost]):
        present.add(ctx.seat)
    return len(present) < min(ENTRY_LIMITS[city.size], ctx.players)


def _separates_cities(ctx: BuildContext, p: int, eid: int, u: int, v: int) -> bool:
    pocket = _pocket(ctx, p, eid, u, v)
    if pocket is None:
        return False
    return any(_protected(ctx, p, m, eid) for m in pocket)


def build_options(ctx: BuildContext) -> list[tuple[int, int]]:
    """Every (from, to) segment ``ctx.seat`` may build now.

    The same as asking :func:`build_problem` of every free segment next to the seat's reach (a
    property test holds the two together), but listed in one pass with the cheap checks first and
    the blocking search last; a listing is remembered by the state parts it reads, so the bot's
    listing and the legality check of the same step share one computation.
    """
    if ctx.money <= 0:
        return []
    key = ctx.listing_key()
    listed = _LISTINGS.get(key)
    if listed is None:
        listed = tuple(_list_builds(ctx))
        if len(_LISTINGS) >= LISTING_MEMO_SIZE:
            _LISTINGS.clear()  # bounded; a miss only costs a recomputation, never a different answer
        _LISTINGS[key] = listed
    return list(listed)


def _buildable() -> list[list[tuple[int, int, int]]]:
    """Per milepost: (neighbour, edge id, cost to build into the neighbour) for every edge track may use."""
    closed = BOARD.inside_major | BOARD.red_area
    return [[(end, eid, BOARD.cost_into(eid, end)) for end, eid in BOARD.adjacency[start] if eid not in closed]
            for start in range(BOARD.count)]


BUILDABLE = _buildable()
# Listings by ``BuildContext.listing_key``: a pure function's memo (the key holds every input).
LISTING_MEMO_SIZE = 512
_LISTINGS: dict[tuple[Any, ...], tuple[tuple[int, int], ...]] = {}


def _list_builds(ctx: BuildContext) -> list[tuple[int, int]]:
    """The listing itself: :func:`build_problem`'s checks in one loop, each segment's blocking search once."""
    starts = set(ctx.mine)
    if ctx.major_left > 0:
        starts |= MAJOR_MILEPOSTS
    owner, money = ctx.owner, ctx.money
    blocking: dict[int, bool] = {}
    result = []
    for start in sorted(starts):
        from_major = start in MAJOR_MILEPOSTS
        if from_major and ctx.major_left <= 0:
            continue  # only own track may be built from once the two major-city segments are used
        for end, eid, cost in BUILDABLE[start]:
            if cost > money or eid in owner:
                continue
            if _event_problem(ctx, eid, start, end):
                continue
            if _entry_problem(ctx, eid, start) or _entry_problem(ctx, eid, end):
                continue
            blocked = blocking.get(eid)
            if blocked is None:
                blocked = blocking[eid] = _blocks_someone(ctx, eid)
            if not blocked:
                result.append((start, end))
    return result
