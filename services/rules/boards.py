"""Static board data of a game type, for frontends to draw (India Rails: the milepost map).

Only games whose board is not in the state have one: the India Rails map is 2,000-odd
mileposts that never change, so it is served once per game type (and cached by browsers)
instead of in every view.  The document is a subset of ``seeds/india_rails/map.json``
(what a drawing needs: mileposts with x/y in km and terrain, cities, rivers as lon/lat lines
and the projection that puts them on the same km grid, deserts).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import orjson

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
# game type -> (content file, the top-level keys a drawing needs)
BOARDS = {
    "india_rails": (
        "india_rails/map.json",
        ("provenance", "spacing_km", "projection", "mileposts", "cities", "river_lines", "desert_areas"),
    ),
}


@cache
def board_json(game_type: str) -> tuple[bytes, str] | None:
    """The board document of ``game_type`` and its SHA-256 (hex), or ``None`` when it has none."""
    if game_type not in BOARDS:
        return None
    path, keys = BOARDS[game_type]
    content = orjson.loads((SEEDS / path).read_bytes())
    document = orjson.dumps({key: content[key] for key in keys if key in content})
    return document, hashlib.sha256(document).hexdigest()
