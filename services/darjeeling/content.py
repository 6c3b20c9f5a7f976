"""Darjeeling content, read once from ``seeds/darjeeling/`` at import (the engine's only I/O)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SEEDS = Path(__file__).resolve().parents[2] / "seeds" / "darjeeling"

VARIETIES: tuple[str, ...] = ("BLACK", "GREEN", "WHITE", "RED")
ACTIONS: tuple[str, ...] = ("NO_ROTTING", "DOUBLE_DEMAND")


def _load(name: str) -> Any:
    with (SEEDS / name).open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@dataclass(frozen=True)
class TileKind:
    """One tea tile: its variety and the half crates printed on it."""

    variety: str
    halves: int


@dataclass(frozen=True)
class Costs:
    """Victory-point costs and bonus thresholds of a turn."""

    turn_back: int
    pass_tile: int
    pass_city: int
    pass_collector: int
    pass_empty: int
    quantity_bonus_from: int
    action_tiles_per_loading: int
    half_crate_penalty: int


def _tiles(data: dict[str, Any]) -> tuple[TileKind, ...]:
    tiles: list[TileKind] = []
    for entry in data["varieties"]:
        for halves, key in ((1, "one_half"), (2, "two_halves"), (3, "three_halves")):
            tiles.extend(TileKind(entry["variety"], halves) for _ in range(entry[key]))
    if len(tiles) != data["total"]["count"]:
        raise ValueError(f"tiles.yaml counts {len(tiles)} tiles, expected {data['total']['count']}")
    return tuple(tiles)


def _costs(data: dict[str, Any]) -> Costs:
    return Costs(
        turn_back=data["turn_back"]["points"],
        pass_tile=data["pass_tile"]["points"],
        pass_city=data["pass_city"]["points"],
        pass_collector=data["pass_collector"]["points"],
        pass_empty=data["pass_empty"]["points"],
        quantity_bonus_from=data["quantity_bonus_from"]["crates"],
        action_tiles_per_loading=data["action_tiles_per_loading"]["count"],
        half_crate_penalty=data["half_crate_penalty"]["points"],
    )


def check_strips(strips: dict[int, tuple[int, ...]], berths: int, water_tiles: int) -> None:
    """Each strip has a ship per player and the water tiles in the box cover the unused berths."""
    for players, strip in strips.items():
        if not players <= len(strip) <= berths or berths - len(strip) > water_tiles:
            raise ValueError(
                f"wharf.yaml: the {players}-player strip does not fit {berths} berths and {water_tiles} water tiles"
            )


_TILE_DATA = _load("tiles.yaml")
_WHARF = _load("wharf.yaml")

TILES: tuple[TileKind, ...] = _tiles(_TILE_DATA)
DEMAND_MARKERS_PER_VARIETY: int = _TILE_DATA["demand_markers_per_variety"]["count"]
BERTHS: int = _WHARF["berths"]["count"]
WATER_TILES: int = _WHARF["water_tiles"]["count"]
STRIPS: dict[int, tuple[int, ...]] = {s["players"]: tuple(s["multipliers"]) for s in _WHARF["strips"]}
CRATES_PER_PLAYER: int = _WHARF["crates_per_player"]["count"]
SHIPPING_CRATES: int = CRATES_PER_PLAYER - _WHARF["scoring_markers_per_player"]["count"]
GOAL: int = _WHARF["goal"]["points"]
check_strips(STRIPS, BERTHS, WATER_TILES)
COSTS: Costs = _costs(_load("costs.yaml"))
ACTION_TILES: tuple[tuple[str, ...], ...] = tuple(
    tuple(tile["faces"]) for tile in sorted(_load("action_tiles.yaml")["tiles"], key=lambda t: t["id"])
)
REGION_DATA: list[dict[str, Any]] = _load("regions.yaml")["regions"]
