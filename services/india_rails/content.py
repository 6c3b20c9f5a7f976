"""India Rails content: the milepost map, cards and tables, read once from ``seeds/india_rails``.

Everything the rules need about the static board is precomputed here at import (adjacency,
building costs, river crossings, city mileposts, red areas), so the game state only holds what
changes: track ownership, trains, cards and cash.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

SEEDS = Path(__file__).resolve().parents[2] / "seeds" / "india_rails"
INDIA_REGIONS = frozenset(
    {"Upper Ganges", "Lower Ganges", "Central", "West", "South", "South Central", "North", "East"}
)
MAJOR_CITIES = ("Bombay", "Calcutta", "Delhi", "Karachi", "Madras")


def _read(name: str) -> Any:
    return json.loads((SEEDS / name).read_text())


@dataclass(frozen=True)
class City:
    """A city on the map; a major city owns its centre and six outposts."""

    name: str
    size: str  # small, medium, major
    region: str
    goods: tuple[str, ...]
    mileposts: tuple[int, ...]
    anchor: int  # the city milepost, or the centre of a major city
    coastal: bool
    grid: str
    grid_exception: bool = False


@dataclass
class Board:
    """The static map with everything derived from it."""

    count: int
    terrain: list[str]
    coastal: list[bool]
    x: list[float]
    y: list[float]
    edges: list[tuple[int, int]]
    river: list[str]
    strait: list[bool]
    adjacency: list[list[tuple[int, int]]]  # milepost -> [(neighbour, edge id)]
    edge_id: dict[tuple[int, int], int]
    cities: dict[str, City]
    city_at: list[str]  # milepost -> city name or ""
    red_area: frozenset[int]  # spokes of major cities: usable by every train
    inside_major: frozenset[int]  # edges inside a major city: never buildable
    node_cost: list[int]
    build_cost: list[tuple[int, int]]  # per edge: (cost to build into b, cost to build into a)
    triangles: list[tuple[int, ...]]  # per edge: the third mileposts of its two triangles
    triangle_edges: list[tuple[tuple[int, int], ...]]  # per edge: the other two edges of each triangle
    grid: dict[str, Any] = field(default_factory=dict)

    def cost_into(self, eid: int, target: int) -> int:
        """Money to build edge ``eid`` towards ``target``."""
        _a, b = self.edges[eid]
        return self.build_cost[eid][0] if target == b else self.build_cost[eid][1]

    def city_of(self, milepost: int) -> City | None:
        """The city ``milepost`` belongs to, or ``None`` for open country."""
        name = self.city_at[milepost]
        return self.cities[name] if name else None

    def other(self, eid: int, milepost: int) -> int:
        """The far end of edge ``eid`` seen from ``milepost``."""
        a, b = self.edges[eid]
        return b if milepost == a else a

    def edge_between(self, a: int, b: int) -> int:
        """Edge id joining two mileposts, or -1."""
        return self.edge_id.get((a, b) if a < b else (b, a), -1)


def _load_board() -> Board:
    doc = _read("map.json")
    costs = _read("costs.json")
    unit = {k: v["cost"] for k, v in costs["build"].items()}
    river_fee = costs["river_surcharge"]["cost"]
    strait_fee = costs["strait_surcharge"]["cost"]
    pts = doc["mileposts"]
    count = len(pts)
    terrain = [p["terrain"] for p in pts]
    city_at = [""] * count
    cities: dict[str, City] = {}
    red: set[int] = set()
    edges = [(e["a"], e["b"]) for e in doc["edges"]]
    edge_id = {pair: i for i, pair in enumerate(edges)}
    for c in doc["cities"]:
        mileposts = tuple([c["centre"], *c["outposts"]]) if c["size"] == "major" else (c["milepost"],)
        for m in mileposts:
            city_at[m] = c["name"]
        if c["size"] == "major":
            for a, b in c["red_area"]:
                red.add(edge_id[(a, b)])
        cities[c["name"]] = City(
            name=c["name"], size=c["size"], region=c["region"], goods=tuple(c["goods"]),
            mileposts=mileposts, anchor=c.get("centre", c["milepost"]),
            coastal=any(pts[m]["coastal"] for m in mileposts), grid=c["grid"],
            grid_exception=bool(c.get("grid_exception", False)),
        )
    node_cost = []
    for m in range(count):
        if city_at[m]:
            node_cost.append(unit["major"] if cities[city_at[m]].size == "major" else unit["city"])
        else:
            node_cost.append(unit[terrain[m]])
    adjacency: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    river, strait, build_cost, inside = [], [], [], set()
    for i, e in enumerate(doc["edges"]):
        a, b = e["a"], e["b"]
        adjacency[a].append((b, i))
        adjacency[b].append((a, i))
        river.append(e.get("river", ""))
        strait.append(bool(e.get("strait", False)))
        extra = (river_fee if e.get("river") else 0) + (strait_fee if e.get("strait") else 0)
        build_cost.append((node_cost[b] + extra, node_cost[a] + extra))
        if city_at[a] and city_at[a] == city_at[b] and cities[city_at[a]].size == "major":
            inside.add(i)
    neighbour_sets = [{v for v, _ in adj} for adj in adjacency]
    triangles = [tuple(sorted(neighbour_sets[a] & neighbour_sets[b])) for a, b in edges]
    triangle_edges = [
        tuple((edge_id[tuple(sorted((a, w)))], edge_id[tuple(sorted((w, b)))]) for w in triangles[i])  # type: ignore[index]
        for i, (a, b) in enumerate(edges)
    ]
    return Board(
        count=count, terrain=terrain, coastal=[p["coastal"] for p in pts],
        x=[p["x"] for p in pts], y=[p["y"] for p in pts], edges=edges, river=river, strait=strait,
        adjacency=adjacency, edge_id=edge_id, cities=cities, city_at=city_at, red_area=frozenset(red),
        inside_major=frozenset(inside), node_cost=node_cost, build_cost=build_cost, triangles=triangles,
        triangle_edges=triangle_edges,
        grid=doc["grid"],
    )


BOARD = _load_board()
COSTS: dict[str, Any] = {k: v.get("cost", v) for k, v in _read("costs.json").items()}
LOADS: dict[str, int] = _read("loads.json")["loads"]
LOCOS: dict[str, Any] = _read("locos.json")
LOCO_CARDS: dict[str, int] = {loco: sum(1 for c in LOCOS["cards"] if c["loco"] == loco) for loco in LOCOS["types"]}
DEMAND_CARDS: dict[int, dict[str, Any]] = {c["id"]: c for c in _read("demand_cards.json")["cards"]}
EVENT_CARDS: dict[int, dict[str, Any]] = {c["id"]: c for c in _read("events.json")["events"]}
MAJOR_MILEPOSTS = frozenset(m for c in BOARD.cities.values() if c.size == "major" for m in c.mileposts)
MAJOR_CENTRES = tuple(BOARD.cities[name].anchor for name in MAJOR_CITIES)
CITY_MILEPOSTS = tuple(m for m in range(BOARD.count) if BOARD.city_at[m])
PILGRIM_CITIES = frozenset(
    c.mileposts[0] for c in BOARD.cities.values() if c.size in ("small", "medium") and c.region in INDIA_REGIONS
)
LOAD_SOURCES: dict[str, tuple[int, ...]] = {
    load: tuple(sorted(m for c in BOARD.cities.values() if load in c.goods for m in c.mileposts))
    for load in LOADS
    if load != "Pilgrims"
}
LOAD_SOURCES["Pilgrims"] = tuple(sorted(PILGRIM_CITIES))


@lru_cache(maxsize=256)
def distances_from(origin: int) -> tuple[int, ...]:
    """Milepost counts over the whole map from ``origin`` (how event radii are counted)."""
    dist = [-1] * BOARD.count
    dist[origin] = 0
    queue = deque([origin])
    while queue:
        u = queue.popleft()
        for v, _ in BOARD.adjacency[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return tuple(dist)


@lru_cache(maxsize=64)
def area_around(city: str, radius: int) -> frozenset[int]:
    """Mileposts within ``radius`` of a city (majors counted from the centre)."""
    dist = distances_from(BOARD.cities[city].anchor)
    return frozenset(m for m in range(BOARD.count) if 0 <= dist[m] <= radius)


@lru_cache(maxsize=32)
def sandstorm_mileposts(card_id: int) -> frozenset[int]:
    """Desert mileposts a sandstorm card covers."""
    card = EVENT_CARDS[card_id]
    return frozenset(m for m in area_around(card["centre"], card["radius"]) if BOARD.terrain[m] == "desert")


@lru_cache(maxsize=32)
def strike_mileposts(card_id: int) -> frozenset[int]:
    """City mileposts where a strike stops pick-ups and deliveries."""
    card = EVENT_CARDS[card_id]
    regions = set(card.get("regions", []))
    hit = [c for c in BOARD.cities.values() if (card.get("coastal") and c.coastal) or c.region in regions]
    return frozenset(m for c in hit for m in c.mileposts)


def demand_card_json(card_id: int) -> dict[str, Any]:
    """A demand card as the proto ``DemandCard``."""
    card = DEMAND_CARDS[card_id]
    return {"id": card_id, "demands": [{"city": d["city"], "load": d["load"], "payout": d["payout"]}
                                       for d in card["demands"]]}


def event_card_json(card_id: int) -> dict[str, Any]:
    """An event card as the proto ``EventCard``."""
    card = EVENT_CARDS[card_id]
    return {
        "id": card_id, "kind": card["kind"], "title": card["title"], "cities": list(card.get("cities", [])),
        "rivers": list(card.get("rivers", [])), "regions": list(card.get("regions", [])),
        "coastal": bool(card.get("coastal", False)), "centre": card.get("centre", ""),
        "radius": int(card.get("radius", 0)),
    }
