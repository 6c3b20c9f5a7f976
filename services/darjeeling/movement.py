"""Phase II: turning and moving the tea collector, taking the tile it lands on, refilling from the bag."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from services.common.engine import Event, State
from services.common.rng import Rng
from services.darjeeling.board import CITY, TURNS, Region, turned
from services.darjeeling.content import COSTS, TILES

NO_TILE = -1


@dataclass(frozen=True)
class Step:
    """One legal collector move: the turn, the distance and what it costs and reaches."""

    turn: str
    distance: int
    facing: str
    target: int
    cost: int


def collector_spaces(state: State) -> dict[int, int]:
    """Occupied spaces -> seat of the collector standing there."""
    return {p["pos"]: seat for seat, p in enumerate(state["seats"]) if p["pos"] >= 0}


def passing_cost(state: State, region: Region, space: int, collectors: dict[int, int]) -> int:
    """Victory points for passing over ``space``."""
    if region.cells[space] == CITY:
        return COSTS.pass_city
    if space in collectors:
        return COSTS.pass_collector
    if state["spaces"][space] != NO_TILE:
        return COSTS.pass_tile
    return COSTS.pass_empty


def collector_steps(state: State, region: Region, seat: int, turns: tuple[str, ...] = TURNS) -> list[Step]:
    """Every legal phase-II move of ``seat``: each of ``turns``, each distance that ends on a tile."""
    player = state["seats"][seat]
    collectors = collector_spaces(state)
    steps: list[Step] = []
    for turn in turns:
        facing = turned(player["facing"], turn)
        cost = COSTS.turn_back if turn == "BACK" else 0
        for distance, space in enumerate(region.ray(player["pos"], facing), start=1):
            if state["spaces"][space] != NO_TILE and space not in collectors:
                steps.append(Step(turn, distance, facing, space, cost))
            cost += passing_cost(state, region, space, collectors)
    return steps


def step_cost(state: State, region: Region, seat: int, turn: str, distance: Any) -> int:
    """What :func:`collector_steps`' step of ``turn`` and ``distance`` costs, 0 when there is no such
    step; walks the ray only up to it (the legal moves' prices ask it once per collector move)."""
    player = state["seats"][seat]
    collectors = collector_spaces(state)
    cost = COSTS.turn_back if turn == "BACK" else 0
    for step, space in enumerate(region.ray(player["pos"], turned(player["facing"], turn)), start=1):
        if step == distance:  # compared as the steps' distances are (the first that equals it)
            return cost if state["spaces"][space] != NO_TILE and space not in collectors else 0
        cost += passing_cost(state, region, space, collectors)
    return 0


def gain_tile(state: State, seat: int, tile: int) -> bool:
    """Put ``tile`` behind the screen; return whether an action tile is now offered.

    A three-halves tile lets its taker take an action tile while the supply has one.
    """
    state["seats"][seat]["tiles"].append(tile)
    return TILES[tile].halves == 3 and bool(state["action_supply"])


def take_action_tile(state: State, seat: int) -> Event:
    """Move an action tile from the supply behind ``seat``'s screen (the tiles are identical)."""
    player = state["seats"][seat]
    player["actions"].append(state["action_supply"].pop(0))
    return {
        "action_tile_taken": {
            "seat": seat,
            "action_tile_count": len(player["actions"]),
            "action_supply": len(state["action_supply"]),
        }
    }


def tile_json(tile: int) -> dict[str, Any]:
    """A tile as its proto JSON."""
    kind = TILES[tile]
    return {"id": tile, "variety": kind.variety, "halves": kind.halves}


def take_tile_event(state: State, region: Region, seat: int, space: int, tile: int, offered: bool) -> Event:
    """The (owner's full) event for a tile going behind a screen."""
    row, col = region.coords(space)
    return {
        "tile_taken": {
            "seat": seat,
            "row": row,
            "col": col,
            "tile": tile_json(tile),
            "action_tile_offered": offered,
            "tile_count": len(state["seats"][seat]["tiles"]),
        }
    }


def refill(state: State, region: Region, space: int, rng: Rng) -> Event:
    """Draw a tile from the bag into the vacated ``space``; when the bag is empty it stays empty."""
    row, col = region.coords(space)
    bag = state["bag"]
    if not bag:
        return {"space_refilled": {"row": row, "col": col, "refilled": False, "bag_count": 0}}
    tile = bag.pop(rng.randbelow(len(bag)))
    state["spaces"][space] = tile
    return {
        "space_refilled": {"row": row, "col": col, "refilled": True, "tile": tile_json(tile), "bag_count": len(bag)}
    }


def move_collector(state: State, region: Region, seat: int, step: Step) -> tuple[list[Event], bool]:
    """Pay for the move, move and take the tile; return the events and whether an action tile is offered.

    The vacated space is refilled (:func:`refill`) once the player has decided on the action tile.
    """
    player = state["seats"][seat]
    origin = player["pos"]
    player["score"] -= step.cost
    player["facing"] = step.facing
    player["pos"] = step.target
    tile = state["spaces"][step.target]
    state["spaces"][step.target] = NO_TILE
    from_row, from_col = region.coords(origin)
    to_row, to_col = region.coords(step.target)
    events: list[Event] = [
        {
            "collector_moved": {
                "seat": seat,
                "turn": step.turn,
                "facing": step.facing,
                "from_row": from_row,
                "from_col": from_col,
                "to_row": to_row,
                "to_col": to_col,
                "cost": step.cost,
                "score": player["score"],
            }
        }
    ]
    offered = gain_tile(state, seat, tile)
    events.append(take_tile_event(state, region, seat, step.target, tile, offered))
    return events, offered
