"""Where a milepost is, in words a player can find on the map (issue #42, item 6).

The map labels cities, not milepost numbers, so sentences never say "milepost 947": a city's
milepost (or a major city's centre) is the city's name, a major city's outpost is the city and
the side it is on ("Delhi (north-east edge)"), and any other milepost is the walk to it along
the grid from the nearest city: "2 mileposts north-east of Delhi", or, off the six grid
directions, "2 mileposts north-east and 1 east of Delhi" (two legs along neighbouring grid
directions), with pairs of opposite diagonals said as straight north or south ("2 mileposts
north").  That walk is exact, so two different mileposts never share a name and two
different moves never share a sentence.

The mileposts lie on a hexagonal grid of rows (``spacing_km`` apart along a row, rows offset by
half of it): a step is east, west, or north-/south-east/-west to the next row.  The nearest city
is the one with the shortest walk (ties: the straight-line distance, then the name).  Everything
comes from ``seeds/india_rails/map.json``; ``python -m services.india_rails.places`` writes the
names to ``seeds/india_rails/text/places.json`` (read by the sentences through
``text/names.yaml``), and a test checks that file against this module.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from services.india_rails.content import BOARD, SEEDS, Board

PLACES_FILE = SEEDS / "text" / "places.json"
DIRECTIONS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")
SPANISH = ("este", "noreste", "norte", "noroeste", "oeste", "suroeste", "sur", "sureste")
WORDS = {"en": dict(zip(DIRECTIONS, DIRECTIONS, strict=True)), "es": dict(zip(DIRECTIONS, SPANISH, strict=True))}
# A walk: (steps, direction) legs, the first the longer-standing one; never more than two.
Walk = list[tuple[int, str]]


def _offset(board: Board, spacing: float, origin: int, target: int) -> tuple[int, int]:
    """(half-steps east, rows north) from ``origin`` to ``target``: exact on the map's grid."""
    half = (board.x[target] - board.x[origin]) / (spacing / 2)
    rows = (board.y[target] - board.y[origin]) / (spacing * math.sqrt(3) / 2)
    return round(half), round(rows)


def _walk(across: int, rows: int) -> Walk:
    """The grid walk for an offset: diagonal steps to the right row, then along it (or two diagonals)."""
    up, side = ("north", rows) if rows >= 0 else ("south", -rows)
    if across >= side:
        legs = [(side, f"{up}-east"), ((across - side) // 2, "east")]
    elif across <= -side:
        legs = [(side, f"{up}-west"), ((-across - side) // 2, "west")]
    else:
        # Between the two diagonals: pairs of them go straight up the map ("2 mileposts north"), the
        # rest along one diagonal.
        east, west = (side + across) // 2, (side - across) // 2
        legs = [(2 * min(east, west), up), (abs(east - west), f"{up}-east" if east > west else f"{up}-west")]
    legs = [leg for leg in legs if leg[0]]
    return sorted(legs, key=lambda leg: -leg[0]) if len(legs) == 2 and legs[0][0] < legs[1][0] else legs


def _nearest(board: Board, spacing: float, milepost: int) -> tuple[str, Walk]:
    """The city with the shortest walk to ``milepost`` and that walk."""
    best: tuple[int, float, str, Walk] | None = None
    for city in board.cities.values():
        walk = _walk(*_offset(board, spacing, city.anchor, milepost))
        km = math.hypot(board.x[milepost] - board.x[city.anchor], board.y[milepost] - board.y[city.anchor])
        found = (sum(n for n, _ in walk), km, city.name, walk)
        if best is None or found[:3] < best[:3]:
            best = found
    assert best is not None  # the map has cities
    return best[2], best[3]


def _say(city: str, walk: Walk, language: str) -> str:
    words = WORDS[language]
    if language == "es":
        legs = [
            f"{n} {'casilla' if n == 1 else 'casillas'} al {words[d]}" if i == 0 else f"{n} al {words[d]}"
            for i, (n, d) in enumerate(walk)
        ]
        return f"{' y '.join(legs)} de {city}"
    legs = [
        f"{n} {'milepost' if n == 1 else 'mileposts'} {d}" if i == 0 else f"{n} {d}" for i, (n, d) in enumerate(walk)
    ]
    return f"{' and '.join(legs)} of {city}"


def _edge(board: Board, spacing: float, milepost: int, city: str, language: str) -> str:
    walk = _walk(*_offset(board, spacing, board.cities[city].anchor, milepost))
    point = WORDS[language][walk[0][1]]
    return f"{city} (borde {point})" if language == "es" else f"{city} ({point} edge)"


def place_names(board: Board, spacing: float) -> dict[str, dict[str, str]]:
    """Language -> milepost id (as text) -> where it is, for every milepost of the map."""
    names: dict[str, dict[str, str]] = {language: {} for language in WORDS}
    for m in range(board.count):
        city = board.city_at[m]
        if city and board.cities[city].anchor != m:
            for language, table in names.items():
                table[str(m)] = _edge(board, spacing, m, city, language)
            continue
        nearest, walk = (city, []) if city else _nearest(board, spacing, m)
        for language, table in names.items():
            table[str(m)] = nearest if city else _say(nearest, walk, language)
    return names


def current() -> dict[str, dict[str, str]]:
    """The names as this module computes them from the map today."""
    spacing = float(json.loads((SEEDS / "map.json").read_text())["spacing_km"])
    return place_names(BOARD, spacing)


def write(path: Path = PLACES_FILE) -> dict[str, Any]:
    """Write :func:`current` to ``path`` (sorted keys, one line per milepost) and return it."""
    names = current()
    path.write_text(json.dumps(names, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return names


if __name__ == "__main__":
    write()
