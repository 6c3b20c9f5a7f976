"""A game's keys: every key of game ``G`` carries the hash tag ``{G}``, so one script never crosses slots."""

from __future__ import annotations


def game_type_of(game_id: str) -> str:
    """The game type named by a game id's prefix ("" if the id is malformed)."""
    prefix, _, rest = game_id.rpartition("-")
    if not prefix or len(rest) != 24 or any(c not in "0123456789abcdef" for c in rest):
        return ""
    return prefix


def game_keys(game_id: str) -> tuple[str, str, str]:
    """Meta, state and events keys of a game (one hash slot)."""
    tag = f"game:{{{game_id}}}"
    return f"{tag}:meta", f"{tag}:state", f"{tag}:events"
