"""The generated India Rails map and card content against the rulebook's tables."""

from __future__ import annotations

import itertools
import json
import math
from collections import deque
from pathlib import Path

from services.india_rails.content import (
    BOARD,
    DEMAND_CARDS,
    EVENT_CARDS,
    LOADS,
    LOCOS,
    MAJOR_CITIES,
    distances_from,
)

SEEDS = Path(__file__).resolve().parents[2] / "seeds" / "india_rails"
RULEBOOK_CITIES = {
    "Agra": ("E-4", "Upper Ganges", {"Textiles"}), "Ahmadabad": ("C-5", "West", {"Cotton"}),
    "Allahabad": ("E-4", "Upper Ganges", {"Linseed Oil"}), "Anuradhapura": ("E-11", "Sri Lanka", {"Rubber", "Salt"}),
    "Asansol": ("G-5", "Lower Ganges", {"Copper"}), "Bangalore": ("D-10", "South", {"Steel"}),
    "Bareilly": ("E-3", "Upper Ganges", {"Millet"}), "Bellary": ("D-9", "South", {"Mica"}),
    "Bhopal": ("D-5", "Central", {"Machinery"}), "Bhubaneshwar": ("G-8", "Central", {"Bauxite"}),
    "Bombay": ("C-7", "South Central", set()), "Calcutta": ("G-6", "Lower Ganges", set()),
    "Chittagong": ("H-6", "Bangladesh", {"Jute", "Rice"}), "Cochin": ("D-11", "South", {"Coffee", "Imports"}),
    "Colombo": ("E-12", "Sri Lanka", {"Indigo", "Tea"}), "Darjeeling": ("G-3", "East", {"Tea"}),
    "Delhi": ("D-3", "Upper Ganges", set()), "Dhaka": ("H-5", "Bangladesh", {"Rice"}),
    "Dibrugarh": ("I-4", "East", {"Oil"}), "English Bazar": ("G-4", "Lower Ganges", {"Textiles"}),
    "Gorakhpur": ("F-4", "Upper Ganges", {"Millet"}), "Guwahati": ("H-4", "East", {"Coal"}),
    "Hyderabad India": ("E-8", "South Central", {"Textiles"}),
    "Hyderabad Pakistan": ("B-4", "Pakistan", {"Rice", "Sugar"}), "Jabalpur": ("E-5", "Central", set()),
    "Jaipur": ("D-4", "Upper Ganges", set()), "Jamnagar": ("C-6", "West", {"Salt"}),
    "Jamshedpur": ("G-5", "Lower Ganges", {"Steel"}), "Jodhpur": ("C-4", "West", {"Mica"}),
    "Kanpur": ("E-4", "Upper Ganges", {"Corn"}), "Karachi": ("B-4", "Pakistan", set()),
    "Kathmandu": ("G-3", "Nepal", {"Goats"}), "Khulna": ("H-5", "Bangladesh", {"Imports"}),
    "Lahore": ("D-2", "Pakistan", {"Cotton", "Goats"}), "Lucknow": ("E-4", "Upper Ganges", {"Corn"}),
    "Ludhiana": ("D-2", "North", {"Millet"}), "Madras": ("E-10", "South", set()),
    "Mangalore": ("D-10", "South", {"Fish"}), "Multan": ("C-2", "Pakistan", {"Rugs"}),
    "Nagpur": ("E-6", "Central", {"Bauxite"}), "Patna": ("G-4", "Lower Ganges", {"Machinery", "Steel"}),
    "Pune": ("D-8", "South Central", {"Peanuts"}), "Quetta": ("B-2", "Pakistan", {"Dates", "Gypsum"}),
    "Raipur": ("F-6", "Central", {"Coal"}), "Rawalpindi": ("C-1", "Pakistan", {"Oil"}),
    "Solapur": ("D-8", "South Central", {"Sugar"}), "Srinagar": ("D-1", "North", {"Gypsum"}),
    "Tiruchchirappalli": ("E-11", "South", {"Coal"}), "Trivandrum": ("D-12", "South", {"Fish", "Peanuts"}),
    "Varanasi": ("F-4", "Upper Ganges", {"Millet"}), "Vijayawada": ("E-8", "South Central", {"Coal"}),
    "Visakhapatnam": ("F-8", "South Central", {"Wood"}),
}


def grid_square(milepost: int) -> str:
    """The A-I x 1-12 square a milepost lies in, from the committed grid definition."""
    g = BOARD.grid
    a = math.radians(g["angle_deg"])
    x, y = BOARD.x[milepost], BOARD.y[milepost]
    u = x * math.cos(a) + y * math.sin(a)
    v = -x * math.sin(a) + y * math.cos(a)
    col = int((u - g["u_west_km"]) // g["col_width_km"])
    row = int((g["v_north_km"] - v) // g["row_height_km"])
    return f"{g['columns'][col]}-{row + 1}"


def test_milepost_lattice_has_the_series_size_and_six_neighbours_at_most() -> None:
    assert 1500 <= BOARD.count <= 2500
    assert max(len(adj) for adj in BOARD.adjacency) <= 6
    assert {"clear", "mountain", "alpine", "desert", "salt_flat"} <= set(BOARD.terrain)


def test_all_52_cities_with_the_rulebook_region_goods_and_major_status() -> None:
    assert set(BOARD.cities) == set(RULEBOOK_CITIES)
    for name, (grid, region, goods) in RULEBOOK_CITIES.items():
        city = BOARD.cities[name]
        assert city.region == region and set(city.goods) == goods and city.grid == grid
        assert (city.size == "major") == (name in MAJOR_CITIES)
    sizes = [c.size for c in BOARD.cities.values()]
    assert sizes.count("major") == 5 and sizes.count("medium") + sizes.count("small") == 47


def test_cities_sit_in_their_rulebook_grid_square_except_documented_exceptions() -> None:
    exceptions = {name for name, c in BOARD.cities.items() if c.grid_exception}
    assert exceptions == {"Bhubaneshwar"}  # G-8 holds no land on a real map (seeds README)
    for name, city in BOARD.cities.items():
        if name not in exceptions:
            assert grid_square(city.anchor) == city.grid, name


def test_each_major_city_has_a_centre_six_outposts_and_a_red_area() -> None:
    for name in MAJOR_CITIES:
        city = BOARD.cities[name]
        centre, outposts = city.mileposts[0], city.mileposts[1:]
        assert len(outposts) == 6
        for outpost in outposts:
            spoke = BOARD.edge_between(centre, outpost)
            assert spoke in BOARD.red_area
            assert all(BOARD.city_at[m] == name for m in (centre, outpost))


def test_every_city_can_be_reached_by_building_from_a_major_city() -> None:
    start = BOARD.cities["Delhi"].anchor
    seen = {start}
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for v, eid in BOARD.adjacency[u]:
            buildable = eid not in BOARD.inside_major or eid in BOARD.red_area
            if buildable and v not in seen:
                seen.add(v)
                queue.append(v)
    assert all(c.anchor in seen for c in BOARD.cities.values())


def test_the_major_rivers_are_crossable_edges() -> None:
    crossed = {r for r in BOARD.river if r}
    required = {"Indus", "Ganges", "Yamuna", "Brahmaputra", "Narmada", "Godavari", "Krishna", "Kaveri", "Mahanadi"}
    assert required <= crossed


def test_sri_lanka_is_reached_over_the_adams_bridge_strait() -> None:
    strait = [eid for eid, flag in enumerate(BOARD.strait) if flag]
    assert strait
    colombo = BOARD.cities["Colombo"].anchor
    assert distances_from(colombo)[BOARD.cities["Madras"].anchor] > 0


def test_component_counts_match_the_rulebook() -> None:
    assert len(DEMAND_CARDS) == 136 and all(len(c["demands"]) == 3 for c in DEMAND_CARDS.values())
    assert len(EVENT_CARDS) == 20 and len(LOCOS["cards"]) == 12
    assert sum(LOADS.values()) == 95 and LOADS["Pilgrims"] == 3
    kinds = {c["kind"] for c in EVENT_CARDS.values()}
    assert {"derailment", "flood", "strike", "sandstorm", "tax"} <= kinds


def test_demand_payouts_grow_with_distance_from_the_nearest_source() -> None:
    loads = json.loads((SEEDS / "loads.json").read_text())["loads"]
    pairs = []
    for card in DEMAND_CARDS.values():
        for demand in card["demands"]:
            assert demand["load"] in loads
            if demand["load"] == "Pilgrims":
                continue
            sources = [c.anchor for c in BOARD.cities.values() if demand["load"] in c.goods]
            dest = BOARD.cities[demand["city"]].anchor
            steps = min(distances_from(s)[dest] for s in sources)
            assert steps > 0, demand
            pairs.append((steps, demand["payout"]))
    pairs.sort()
    for (d1, p1), (d2, p2) in itertools.pairwise(pairs):
        assert d1 == d2 or p1 <= p2
    # The designed rule (seeds/india_rails/README.md, Cards): 4M and 1.35M a milepost.
    for steps, paid in pairs:
        assert paid == round(4 + 1.35 * steps), (steps, paid)


def test_every_content_item_carries_its_provenance() -> None:
    for card in DEMAND_CARDS.values():
        assert card["provenance"] == "designed"
    for card in EVENT_CARDS.values():
        assert card["provenance"] == "designed"
    for name in ("map.json", "cities.json", "loads.json", "locos.json", "geography.json", "events.json"):
        text = (SEEDS / name).read_text()
        assert "provenance" in text, name


def test_the_map_picture_has_land_a_legend_for_every_kind_and_majors_kept_off_the_sea() -> None:
    svg = (SEEDS / "map.svg").read_text()
    assert len(svg.encode()) < 1_500_000
    # Land (with its coastline), the map's land and the salt flats are traced outlines.
    for outline in ("land", "map-land", "salt-land"):
        assert f'<path id="{outline}" ' in svg
    kinds = set(BOARD.terrain) - {"city", "major"}
    for kind in kinds:
        assert f"{kind.replace('_', ' ').capitalize()} milepost: " in svg, kind
    for entry in ("Small city: ", "Medium city: ", "Major city: ", "River: ", "Adam's Bridge strait: "):
        assert entry in svg, entry
    # Each major city's hexagon is clipped to the map's land.
    assert svg.count('clip-path="url(#map-land-clip)"') == len(MAJOR_CITIES)
