"""The game registry: which games this process knows, and what the platform needs of each.

A game is one registered unit, a :class:`GameUnit` its own folder declares (``services/<game>/unit.py``):
its engine, where its proto messages live, its web table module, its port slot.  The kernel keeps
only this mechanism and names no game: the games register one level up, in
:mod:`services.games_registry` (the four games, in port order), and a deployment or a test adds
more by naming modules in ``CHAIWALA_GAME_UNITS`` (comma-separated; each module registers its
units when imported, e.g. ``tests.support.tinygame.unit``).  Both are imported by name, once, the
first time anybody asks the registry.

Everything that lists games (the supervisor's rules services and ports, the gateway's and the
director's service addresses, the conductor's game types, the web client's table modules through
``GET /v1/game-types``) reads :func:`units` or :func:`game_types`, never a list of its own.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from services.common.engine import Engine

# The registration of the platform's own games, one layer above the kernel (imported by name: the
# kernel must not import upwards).  ``CHAIWALA_GAME_UNITS`` names more.
BUILT_IN = "services.games_registry"
EXTRA_ENV = "CHAIWALA_GAME_UNITS"


@dataclass(frozen=True)
class GameUnit:
    """What the platform needs of one game.

    * ``engine``: ``"module:EngineClass"``, imported on first use.
    * ``slot``: the game's place in the port order; ``make run`` serves its rules service on
      ``50051 + slot`` and its metrics on ``9101 + slot``, and its default address is
      ``127.0.0.1:50051 + slot``.
    * ``protos``: the generated module holding ``chaiwala.<game_type>.v1`` (``Options``, ``Move``,
      ``State``, ``Event``); empty: ``chaiwala.<game_type>.v1.<game_type>_pb2``.
    * ``table``: the web client's table module (``web/tables/<table>.js``); empty: the generic table.
    * ``board``: static board data served once per game type (``GET /v1/game-types/{id}/board``):
      a JSON file under ``seeds/`` and the top-level keys a drawing needs; ``None``: no board.
    * ``estimate``: ``"module:function"``, the search bot's score estimate of an unfinished state
      (:mod:`services.bots.evaluation`); empty: the search plays to the end.
    * ``search``: the search bot's settings for the game (the fields of
      :class:`services.bots.levels.SearchProfile`); empty: the generic search.
    * ``arena``: the game's tables in the committed bots report (the fields of
      :class:`services.arena.report_runs.ReportTables`); empty: the report leaves the game out.
    * The bots a seat may use come from the engine (``Engine.heuristic_bot``), the options and
      content from the engine and ``seeds/<game_type>/``, its words from ``seeds/<game_type>/text``.
    """

    game_type: str
    engine: str
    slot: int
    protos: str = ""
    table: str = ""
    board: tuple[str, tuple[str, ...]] | None = None
    estimate: str = ""
    search: Mapping[str, Any] = field(default_factory=dict)
    arena: Mapping[str, Any] = field(default_factory=dict)

    @property
    def proto_module(self) -> str:
        """The generated module to import for this game's messages."""
        return self.protos or f"chaiwala.{self.game_type}.v1.{self.game_type}_pb2"

    @classmethod
    def built_in(cls, game_type: str, engine_class: str, slot: int, *, estimated: bool, **fields: Any) -> GameUnit:
        """A unit laid out as the platform's own games are: ``services/<game_type>/engine.py`` holds
        ``engine_class``, ``web/tables/<game_type>.js`` is its table and, when ``estimated``,
        ``services/<game_type>/estimate.py`` its ``estimate``; ``fields`` are the other fields."""
        estimate = f"services.{game_type}.estimate:estimate" if estimated else ""
        return cls(game_type=game_type, engine=f"services.{game_type}.engine:{engine_class}", slot=slot,
                   table=game_type, estimate=estimate, **fields)


class UnknownGameType(KeyError):
    """No engine is registered under that name."""


_UNITS: dict[str, GameUnit] = {}
_loaded = False
_lock = threading.RLock()  # re-entrant: a registration module registers while the registry loads it


def register(unit: GameUnit) -> None:
    """Add ``unit``; registering the same unit twice is harmless, two units on one name or slot are refused."""
    with _lock:
        known = _UNITS.get(unit.game_type)
        if known is not None and known != unit:
            raise ValueError(f"game type {unit.game_type!r} is already registered as {known}")
        taken = {other.slot: other.game_type for other in _UNITS.values() if other.game_type != unit.game_type}
        if unit.slot in taken:
            raise ValueError(f"slot {unit.slot} of {unit.game_type!r} is taken by {taken[unit.slot]!r}")
        _UNITS[unit.game_type] = unit


def _load() -> None:
    """Import the registrations (once): the built-in games, then ``CHAIWALA_GAME_UNITS``."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        _loaded = True  # before importing: a registration module may ask the registry itself
        extra = [name.strip() for name in os.environ.get(EXTRA_ENV, "").split(",") if name.strip()]
        try:
            for module_name in (BUILT_IN, *extra):
                importlib.import_module(module_name)
        except BaseException:
            _loaded = False  # a broken registration fails every caller, not just the first
            raise


def units() -> list[GameUnit]:
    """Every registered game, in slot (port) order."""
    _load()
    return sorted(_UNITS.values(), key=lambda unit: unit.slot)


def game_types() -> list[str]:
    """Every registered game type, in slot (port) order."""
    return [unit.game_type for unit in units()]


def unit_for(game_type: str) -> GameUnit:
    """The registered unit of ``game_type``; :class:`UnknownGameType` if none."""
    _load()
    unit = _UNITS.get(game_type)
    if unit is None:
        raise UnknownGameType(game_type)
    return unit


def is_registered(game_type: object) -> bool:
    """Whether ``game_type`` names a registered game."""
    _load()
    return isinstance(game_type, str) and game_type in _UNITS


@cache
def engine_for(game_type: str) -> Engine:
    """The (stateless, shared) engine instance for ``game_type``."""
    module_name, class_name = unit_for(game_type).engine.split(":")
    engine_class = getattr(importlib.import_module(module_name), class_name)
    engine: Engine = engine_class()
    return engine


def available_game_types() -> list[str]:
    """Registered game types whose engine and generated protos can be imported."""
    found = []
    for unit in units():
        try:
            engine_for(unit.game_type)
            importlib.import_module(unit.proto_module)
        except ImportError:
            continue
        found.append(unit.game_type)
    return found


def service_addresses(explicit: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """game_type -> host:port of its rules service, for every registered game.

    ``explicit`` wins, then ``CHAIWALA_SERVICE_<GAME_TYPE>`` in ``environ``, then the slot's
    loopback port (what ``make run`` serves).
    """
    addresses = {}
    for unit in units():
        default = f"127.0.0.1:{50051 + unit.slot}"
        env_value = environ.get(f"CHAIWALA_SERVICE_{unit.game_type.upper()}", default)
        addresses[unit.game_type] = explicit.get(unit.game_type) or env_value
    return addresses


def services_from_keywords(data: object) -> object:
    """A settings model's input with every ``service_<game_type>=address`` keyword moved into its
    ``services`` mapping (a pydantic ``mode="before"`` validator's body), so callers may still say
    ``GatewaySettings(service_<game_type>=...)`` for any registered game."""
    if not isinstance(data, dict):
        return data
    moved = dict(data)
    services = dict(moved.get("services") or {})
    for key in list(moved):
        if isinstance(key, str) and key.startswith("service_") and is_registered(key.removeprefix("service_")):
            services[key.removeprefix("service_")] = moved.pop(key)
    moved["services"] = services
    return moved


def unregister(game_type: str) -> None:
    """Forget ``game_type`` (tests that registered a game of their own clean up with this)."""
    with _lock:
        _UNITS.pop(game_type, None)
    engine_for.cache_clear()
