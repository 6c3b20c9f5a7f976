"""Darjeeling's options and the opening position: region, start player, bag, chute and ships."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.common.engine import BadConfig, GameConfig, State
from services.common.rng import Rng
from services.darjeeling.board import REGIONS, default_region
from services.darjeeling.content import (
    ACTION_TILES,
    DEMAND_MARKERS_PER_VARIETY,
    SHIPPING_CRATES,
    STRIPS,
    TILES,
    VARIETIES,
)
from services.darjeeling.movement import NO_TILE

# The ``start_player`` option's value for "drawn at random from the game's seed".
RANDOM_START = -1


def default_options() -> dict[str, Any]:
    """``region`` empty: the rulebook's region for the player count; ``start_player`` -1: drawn at random."""
    return {"region": "", "start_player": RANDOM_START}


def check_options(players: int, merged: Mapping[str, Any]) -> None:
    """Raise :class:`BadConfig` unless the region is known and the start player is a seat (or -1)."""
    region = merged["region"]
    if not isinstance(region, str) or (region and region not in REGIONS):
        names = ", ".join(sorted(REGIONS))
        raise BadConfig(f"region must be one of {names} (or empty for the default)", code="bad_region")
    start = merged["start_player"]
    if isinstance(start, bool) or not isinstance(start, int) or not RANDOM_START <= start < players:
        raise BadConfig(
            f"start_player must be a seat from 0 to {players - 1}, or -1 to draw one at random",
            code="bad_start_player",
        )


def setup_state(config: GameConfig, rng: Rng) -> State:
    """Fill the region from the bag, set the strip and ships, shuffle the demand markers."""
    players = config.players
    region = REGIONS[config.options.get("region") or default_region(players)]
    bag = list(range(len(TILES)))
    spaces = [NO_TILE] * len(region.cells)
    for space in region.tile_spaces:
        spaces[space] = bag.pop(rng.randbelow(len(bag)))
    chute = [v for v in VARIETIES for _ in range(DEMAND_MARKERS_PER_VARIETY)]
    rng.shuffle(chute)
    start = config.options.get("start_player", RANDOM_START)
    if start == RANDOM_START:
        start = rng.randbelow(players)
    return {
        "region": region.name,
        "players": players,
        "spaces": spaces,
        "bag": bag,
        "warehouse": [],
        "chute": chute,
        "ships": [[0] * players for _ in STRIPS[players]],
        "action_supply": list(range(len(ACTION_TILES))),
        "seats": [
            {"score": 0, "supply": SHIPPING_CRATES, "tiles": [], "actions": [], "pos": -1, "facing": "NORTH"}
            for _ in range(players)
        ],
        "phase": "START_POSITIONS",
        "current": start,
        "start_player": start,
        "turn_number": 0,
        "placed": 0,
        # While phase is ACTION_TILE: the space to refill afterwards and the phase to go on with.
        "offer": None,
        "shipment": None,
        # Whether the player to act has taken a shipment back this turn (allowed once a turn).
        "taken_back": False,
        "ended_by": -1,
        "penalties": None,
        "winners": [],
    }
