"""Each game's score estimate of an unfinished full state, for the search bot's depth-capped rollouts.

A rollout that stops before the end needs each seat's standing on the scale of its final
score; a game declares its estimate in its unit (``estimate``, e.g. ``services/darjeeling/estimate.py``).
They read the (determinized) full state the search plays on, never a real game's hidden parts,
and are deliberately simple: the search's rollouts do the looking ahead.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache

from services.common.engine import State
from services.common.registry import unit_for


@cache
def evaluation_for(game_type: str) -> Callable[[State], list[float]]:
    """``game_type``'s estimate; a game without one is valued at nothing until its end (all zeros)."""
    target = unit_for(game_type).estimate
    if not target:
        return lambda state: [0.0] * len(state.get("seats") or state.get("players") or [])
    module_name, function_name = target.split(":")
    estimate: Callable[[State], list[float]] = getattr(importlib.import_module(module_name), function_name)
    return estimate
