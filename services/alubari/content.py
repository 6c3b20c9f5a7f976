"""Alubari content, read once from ``seeds/alubari/`` at import (the only I/O of the engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

SEEDS = Path(__file__).resolve().parents[2] / "seeds" / "alubari"

CUBES = ("iron_ore", "stone", "chai")
"""Resource cubes that travel between bag, stockyard and players (event cubes are separate)."""

AREAS = ("A", "B", "C", "D", "E", "F", "G")


def _load(name: str) -> dict[str, Any]:
    with (SEEDS / name).open(encoding="utf-8") as handle:
        data: dict[str, Any] = yaml.safe_load(handle)
    return data


BOARD = _load("board.yaml")
RONDEL: list[dict[str, Any]] = _load("events.yaml")["rondel"]
_ESTATES = _load("estates.yaml")
PRINTED_ESTATE: dict[str, Any] = _ESTATES["printed"]
ESTATE_CARDS: list[dict[str, Any]] = _ESTATES["cards"]
_RAILWAY = _load("railway.yaml")
STATIONS: list[dict[str, Any]] = _RAILWAY["stations"]
SEGMENTS: list[dict[str, Any]] = _RAILWAY["segments"]
CONTRACTS: dict[int, dict[str, Any]] = {card["id"]: card for card in _load("contracts.yaml")["contracts"]}
EQUIPMENT: dict[int, dict[str, Any]] = {item["id"]: item for item in _load("equipment.yaml")["equipment"]}

TOWN_NAMES: list[str] = [station["name"] for station in STATIONS]
TOWN_INDEX: dict[str, int] = {name: i for i, name in enumerate(TOWN_NAMES)}


def _track_layout() -> list[dict[str, Any]]:
    """One entry per track space, bottom to top: its segment, river flag and points."""
    spaces: list[dict[str, Any]] = []
    for seg_index, segment in enumerate(SEGMENTS):
        for k in range(segment["spaces"]):
            spaces.append(
                {"segment": seg_index, "river": k in segment["rivers"], "vp": segment["vp"],
                 "from": segment["from"], "to": segment["to"]}
            )
    return spaces


TRACK: list[dict[str, Any]] = _track_layout()
"""The railway's track spaces from the Siliguri river crossing up to Darjeeling."""

TOTAL_RUBBLE: int = BOARD["components"]["rubble_cubes"] + 5 * BOARD["components"]["rubble_five_discs"]
TOTAL_LEAVES: int = BOARD["components"]["tea_leaves"] + 5 * BOARD["components"]["tea_leaf_fives"]
TOTAL_STEEL: int = BOARD["components"]["steel_bars"]
GAME_MARKERS: int = BOARD["components"]["game_ownership_markers"]
MARKERS_PER_PLAYER: int = BOARD["components"]["ownership_markers_per_player"]
CUBE_BOX: dict[str, int] = {k: BOARD["cube_box"][k] for k in (*CUBES, "event")}
CROP_VALUES: list[float] = [float(v) for v in BOARD["work_rates"]["crop_harvest"]["values"]]
CHAI_POINTS: list[int] = list(BOARD["chai_track"]["points"])
WEATHER_KINDS = ("SUN", "RAIN", "FOG")


def station_kind(cost: dict[str, int]) -> str:
    """RUBBLE or STONE for spaces paid with those (contract requirements and the Work Gang), else OTHER."""
    if cost.get("rubble"):
        return "RUBBLE"
    if cost.get("stone"):
        return "STONE"
    return "OTHER"


def per_players(table: dict[str, Any], players: int) -> Any:
    """A board table entry keyed by the player count."""
    return table[str(players)]
