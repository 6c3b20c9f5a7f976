"""Which bots a seat may use, by name, for every game: one place instead of one per engine."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from services.bots.levels import search_levels
from services.common.engine import Bot, Engine, RandomBot

# Bots a trial adds to one game for a block (see :func:`extra_bots`), by game type.
_EXTRA: dict[str, dict[str, Callable[[], Bot]]] = {}


def bots_for(engine: Engine) -> dict[str, Bot]:
    """``random`` always; with the game's heuristic, ``heuristic`` and the search levels built on it."""
    bots: dict[str, Bot] = {"random": RandomBot()}
    heuristic = engine.heuristic_bot()
    if heuristic is not None:
        bots.update({"heuristic": heuristic, **search_levels(engine, heuristic)})
    for name, make in _EXTRA.get(engine.game_type, {}).items():
        bots[name] = make()
    return bots


@contextmanager
def extra_bots(game_type: str, makers: dict[str, Callable[[], Bot]]) -> Iterator[None]:
    """Within the block, ``game_type`` also offers these bots (measurement trials compare a former
    heuristic against the current one this way; nothing in the product calls it)."""
    before = _EXTRA.get(game_type)
    _EXTRA[game_type] = {**(before or {}), **makers}
    try:
        yield
    finally:
        if before is None:
            _EXTRA.pop(game_type, None)
        else:
            _EXTRA[game_type] = before
