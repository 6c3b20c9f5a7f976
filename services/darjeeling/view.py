"""What one seat (or a spectator) sees: the proto JSON of ``State`` and redacted events.

Behind a screen only counts are public; the bag shows only how many tiles it holds.
Once the game is over the screens are lifted and every tile is shown.
"""

from __future__ import annotations

from typing import Any

from services.common.engine import Event, State
from services.darjeeling.board import REGIONS
from services.darjeeling.content import ACTION_TILES, GOAL
from services.darjeeling.loading import loadable
from services.darjeeling.movement import NO_TILE, collector_spaces, tile_json
from services.darjeeling.wharf import multipliers, water_tiles


def _spaces(state: State) -> list[dict[str, Any]]:
    collectors = collector_spaces(state)
    tiles = state["spaces"]
    spaces = []
    for index, row, col, empty in REGIONS[state["region"]].drawn:
        tile = tiles[index]
        if tile != NO_TILE:
            spaces.append({"row": row, "col": col, "collector": collectors.get(index, -1), "kind": "TILE",
                           "tile": tile_json(tile)})  # fmt: skip
        else:
            spaces.append({"row": row, "col": col, "collector": collectors.get(index, -1), "kind": empty})
    return spaces


def _collector(state: State, seat: int) -> dict[str, Any]:
    player = state["seats"][seat]
    if player["pos"] < 0:
        return {"placed": False, "row": 0, "col": 0, "facing": "DIRECTION_UNSPECIFIED"}
    row, col = REGIONS[state["region"]].coords(player["pos"])
    return {"placed": True, "row": row, "col": col, "facing": player["facing"]}


def _player(state: State, seat: int, viewer: int | None) -> dict[str, Any]:
    player = state["seats"][seat]
    over = state["phase"] == "GAME_OVER"
    open_screen = over or viewer == seat
    penalties = state.get("penalties") or [0] * state["players"]
    return {
        "seat": seat,
        "score": player["score"],
        "crates_in_supply": player["supply"],
        "tile_count": len(player["tiles"]),
        "action_tile_count": len(player["actions"]),
        "tiles": [tile_json(t) for t in sorted(player["tiles"])] if open_screen else [],
        "action_tiles": (
            [{"id": t, "faces": list(ACTION_TILES[t])} for t in sorted(player["actions"])] if open_screen else []
        ),
        "collector": _collector(state, seat),
        "penalty": penalties[seat],
        "final_score": player["score"] - penalties[seat],
    }


def _shipment(state: State, seat: int) -> dict[str, Any]:
    shipment = state["shipment"]
    return {
        "seat": seat,
        "variety": shipment["variety"],
        "tiles": [tile_json(t) for t in shipment["tiles"]],
        "crates": shipment["crates"],
        "loadable": max(0, loadable(shipment["crates"], shipment["near"], shipment["played"])),
        "next_to_city": shipment["near"],
        "actions_played": list(shipment["played"]),
        "to_borrow": shipment["loading"]["to_borrow"] if "loading" in shipment else 0,
    }


def state_view(state: State, viewer: int | None) -> dict[str, Any]:
    """The proto JSON of ``State`` as ``viewer`` may see it."""
    region = REGIONS[state["region"]]
    view: dict[str, Any] = {
        "region": state["region"],
        "players": state["players"],
        "rows": region.rows,
        "cols": region.cols,
        "spaces": _spaces(state),
        "ships": [
            {"multiplier": mult, "crates": list(ship)}
            for ship, mult in zip(state["ships"], multipliers(state), strict=True)
        ],
        "water_tiles": water_tiles(state),
        "chute": list(state["chute"]),
        "bag_count": len(state["bag"]),
        "warehouse": [tile_json(t) for t in state["warehouse"]],
        "action_supply": len(state["action_supply"]),
        "player_states": [_player(state, seat, viewer) for seat in range(state["players"])],
        "phase": state["phase"],
        "current": state["current"],
        "start_player": state["start_player"],
        "turn_number": state["turn_number"],
    }
    if state["shipment"] is not None:
        view["shipment"] = _shipment(state, state["current"])
    view.update(
        {
            "ended_by": state["ended_by"],
            "winners": list(state["winners"]),
            "viewer": -1 if viewer is None else viewer,
            "goal": GOAL,
            "shipment_taken_back": state["taken_back"],
        }
    )
    offer = state["offer"]
    if offer is not None and offer["refill"] != NO_TILE:
        row, col = region.coords(offer["refill"])
        view["pending_refill"] = {"row": row, "col": col}
    return view


def redact_event(event: Event, viewer: int | None) -> Event:
    """Hide the identity of a tile taken behind someone else's screen."""
    taken = event.get("tile_taken")
    if taken is None or taken["seat"] == viewer:
        return event
    return {"tile_taken": {k: v for k, v in taken.items() if k != "tile"}}
