"""Static board data of a game type, for frontends to draw (India Rails: the milepost map).

Only games whose board is not in the state have one, declared by their unit
(:class:`~services.common.registry.GameUnit` ``board``: a file under ``seeds/`` and the keys a
drawing needs).  The India Rails map is 2,000-odd mileposts that never change, so it is served
once per game type (and cached by browsers) instead of in every view.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import orjson

from services.common.registry import unit_for

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


@cache
def board_json(game_type: str) -> tuple[bytes, str] | None:
    """The board document of ``game_type`` and its SHA-256 (hex), or ``None`` when it has none."""
    board = unit_for(game_type).board
    if board is None:
        return None
    path, keys = board
    content = orjson.loads((SEEDS / path).read_bytes())
    document = orjson.dumps({key: content[key] for key in keys if key in content})
    return document, hashlib.sha256(document).hexdigest()
