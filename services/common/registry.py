"""Which engine plays which game type.  Adding a game is one line in ``ENGINES``."""

from __future__ import annotations

import importlib
from functools import cache

from services.common.engine import Engine

# game_type -> "module:EngineClass"
ENGINES: dict[str, str] = {
    "alubari": "services.alubari.engine:AlubariEngine",
    "darjeeling": "services.darjeeling.engine:DarjeelingEngine",
    "tea_rum": "services.tea_rum.engine:TeaRumEngine",
    "india_rails": "services.india_rails.engine:IndiaRailsEngine",
}


class UnknownGameType(KeyError):
    """No engine is registered under that name."""


@cache
def engine_for(game_type: str) -> Engine:
    """The (stateless, shared) engine instance for ``game_type``."""
    target = ENGINES.get(game_type)
    if target is None:
        raise UnknownGameType(game_type)
    module_name, class_name = target.split(":")
    engine_class = getattr(importlib.import_module(module_name), class_name)
    engine: Engine = engine_class()
    return engine


def available_game_types() -> list[str]:
    """Registered game types whose engine and generated protos can be imported."""
    found = []
    for game_type in ENGINES:
        try:
            engine_for(game_type)
            importlib.import_module(f"chaiwala.{game_type}.v1.{game_type}_pb2")
        except ImportError:
            continue
        found.append(game_type)
    return found
