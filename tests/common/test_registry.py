"""The game registry: a game registers as one unit; names and slots are its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.common import registry
from services.common.registry import GameUnit


def test_the_built_in_games_register_in_port_order_with_their_slots() -> None:
    slots = [unit.slot for unit in registry.units()]
    assert slots == sorted(slots) and len(set(slots)) == len(slots)
    assert registry.game_types() == [unit.game_type for unit in registry.units()]
    for unit in registry.units():
        assert registry.engine_for(unit.game_type).game_type == unit.game_type


def test_a_name_or_a_slot_taken_by_another_unit_is_refused() -> None:
    first = registry.units()[0]
    with pytest.raises(ValueError, match="already registered"):
        registry.register(GameUnit(game_type=first.game_type, engine="elsewhere:Engine", slot=first.slot))
    with pytest.raises(ValueError, match="is taken"):
        registry.register(GameUnit(game_type="slot_thief", engine="elsewhere:Engine", slot=first.slot))
    assert not registry.is_registered("slot_thief")
    registry.register(first)  # the same unit again: harmless
    assert registry.unit_for(first.game_type) is first


def test_an_unknown_game_type_is_refused_by_name() -> None:
    with pytest.raises(registry.UnknownGameType):
        registry.engine_for("no_such_game")
    assert not registry.is_registered("no_such_game") and not registry.is_registered(None)


def test_service_addresses_take_the_keyword_then_the_environment_then_the_slot() -> None:
    first, second, *_ = registry.units()
    environ = {f"CHAIWALA_SERVICE_{second.game_type.upper()}": "rules-host:50051"}
    addresses = registry.service_addresses({first.game_type: "here:1"}, environ)
    assert addresses[first.game_type] == "here:1"
    assert addresses[second.game_type] == "rules-host:50051"
    assert all(addresses[unit.game_type] == f"127.0.0.1:{50051 + unit.slot}" for unit in registry.units()[2:])
    moved = registry.services_from_keywords({f"service_{first.game_type}": "x:2", "service_webhook": "w:3"})
    assert moved == {"services": {first.game_type: "x:2"}, "service_webhook": "w:3"}


def test_the_kernel_names_no_game() -> None:
    """services/common holds the mechanism only; the games register one floor up."""
    kernel = Path(registry.__file__).parent
    names = re.compile("|".join(rf"(?<![a-z]){re.escape(game)}(?![a-z])" for game in registry.game_types()), re.I)
    for path in kernel.rglob("*.py"):
        found = names.search(path.read_text(encoding="utf-8"))
        assert found is None, f"{path} names a game: {found and found.group()}"


def test_every_declared_table_module_exists() -> None:
    """A unit's ``table`` is a file the web client can import (GET /v1/game-types passes it on)."""
    tables = Path(registry.__file__).resolve().parents[2] / "web" / "tables"
    for unit in registry.units():
        assert not unit.table or (tables / f"{unit.table}.js").is_file(), unit
