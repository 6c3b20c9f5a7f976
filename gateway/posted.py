"""A posted game message (a move, options) parsed into its ``Any``, remembered by its JSON.

``json_format.ParseDict`` is the slow part of reading a move (8–25 µs for a Darjeeling move here,
against ~1 µs to look one up), and a game's moves are few shapes posted again and again by every
table.  Parsing is a pure function of the message's JSON, so the packed bytes of a small message
are kept by the message's ``repr`` (exact: it tells ``1`` from ``1.0`` and ``True``, ``inf`` from
``None``; a JSON key order of its own is its own entry) and a new ``Any`` is built from them.  A
refusal is never kept: it is raised afresh every time.
"""

from __future__ import annotations

import functools
from typing import Any

from google.protobuf import any_pb2

from services.common import protojson

# Messages longer than this (as ``repr``) are parsed every time: no room is kept for large ones.
KEPT_MAX_CHARS = 512
KEPT_ENTRIES = 4096


def pack(game_type: str, name: str, data: dict[str, Any]) -> any_pb2.Any:
    """:func:`services.common.protojson.pack` of ``data``, from memory when it was parsed before."""
    text = repr(data)
    if len(text) > KEPT_MAX_CHARS:
        return protojson.pack(game_type, name, data)
    type_url, value = _packed(game_type, name, text, _Carried(data))
    return any_pb2.Any(type_url=type_url, value=value)


class _Carried:
    """``data`` carried past the cache's key (not part of it: equal for every instance)."""

    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Carried)


@functools.lru_cache(maxsize=KEPT_ENTRIES)
def _packed(game_type: str, name: str, text: str, carried: _Carried) -> tuple[str, bytes]:
    """The type URL and bytes of ``carried.data`` parsed as the game's ``name`` (``text`` is its key)."""
    packed = protojson.pack(game_type, name, carried.data)
    return packed.type_url, packed.value
