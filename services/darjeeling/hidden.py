"""Determinization: a full Darjeeling state rebuilt from one seat's view, hidden parts sampled.

What a seat cannot see: the tea tiles and action tiles behind the other screens (their counts
are public), the bag's contents (its count is public), which action tiles lie in the supply, and
which action tiles a shipment's played actions used.  Everything else is on the table: the
board with its face-up tiles, ships, chute, warehouse, collectors, scores, the shipment.

Sampling: the tea tiles nobody shows (all tiles less board, warehouse, shipment and the seat's own)
are dealt at random to the other screens by their counts, the rest is the bag (drawn at random,
so its order does not matter).  Action tiles likewise: each played action gets a random unseen
tile offering it (it went back to the supply), the other screens get random unseen tiles by their
counts, the supply is the rest (kept sorted, as the engine keeps it).
"""

from __future__ import annotations

from typing import Any

from services.common.engine import Seen, State, View
from services.common.rng import Rng
from services.darjeeling.board import REGIONS, Region
from services.darjeeling.content import ACTION_TILES, TILES
from services.darjeeling.movement import NO_TILE


def determinize(seen: Seen, rng: Rng) -> State:
    """A state ``seen.seat`` cannot tell from the real one (see the module docstring)."""
    view = seen.view
    region = REGIONS[view["region"]]
    shown = _shown_seats(view, seen.seat)
    spaces = [NO_TILE] * len(region.cells)
    for space in view["spaces"]:
        if space["kind"] == "TILE":
            spaces[region.index(space["row"], space["col"])] = space["tile"]["id"]
    shipment = _shipment(view)
    state: State = {
        "region": view["region"],
        "players": view["players"],
        "spaces": spaces,
        "warehouse": [tile["id"] for tile in view["warehouse"]],
        "chute": list(view["chute"]),
        "ships": [list(ship["crates"]) for ship in view["ships"]],
        "seats": [_seat(region, player, player["seat"] in shown) for player in view["player_states"]],
        "phase": view["phase"],
        "current": view["current"],
        "start_player": view["start_player"],
        "turn_number": view["turn_number"],
        "placed": _placed(view),
        "offer": _offer(region, view),
        "shipment": shipment,
        "taken_back": view["shipment_taken_back"],
        "ended_by": view["ended_by"],
        "penalties": [p["penalty"] for p in view["player_states"]] if view["phase"] == "GAME_OVER" else None,
        "winners": list(view["winners"]),
    }
    _deal_tea_tiles(state, view, rng, shown)
    _deal_action_tiles(state, view, rng, shown)
    return state


def _shown_seats(view: View, seat: int) -> set[int]:
    """Seats whose screens this view shows: the seat's own, and every one once the game is over."""
    if view["phase"] == "GAME_OVER":
        return {player["seat"] for player in view["player_states"]}
    return {seat}


def _seat(region: Region, player: dict[str, Any], shown: bool) -> dict[str, Any]:
    collector = player["collector"]
    placed = collector["placed"]
    return {
        "score": player["score"],
        "supply": player["crates_in_supply"],
        "tiles": sorted(tile["id"] for tile in player["tiles"]) if shown else [],
        "actions": sorted(tile["id"] for tile in player["action_tiles"]) if shown else [],
        "pos": region.index(collector["row"], collector["col"]) if placed else -1,
        "facing": collector["facing"] if placed else "NORTH",
    }


def _placed(view: View) -> int:
    """Collectors placed so far; during a start's action-tile offer the count is not yet raised."""
    placed = sum(1 for p in view["player_states"] if p["collector"]["placed"])
    if view["phase"] == "ACTION_TILE" and view["turn_number"] == 0:
        return placed - 1
    return placed


def _offer(region: Region, view: View) -> dict[str, Any] | None:
    """What follows an action-tile offer: the starting positions (no refill) or phase III after a refill."""
    if view["phase"] != "ACTION_TILE":
        return None
    if view["turn_number"] == 0:
        return {"refill": NO_TILE, "then": "START_POSITIONS"}
    refill = view.get("pending_refill")
    space = region.index(refill["row"], refill["col"]) if refill else NO_TILE
    return {"refill": space, "then": "LOAD"}


def _shipment(view: View) -> dict[str, Any] | None:
    shown_view = view.get("shipment")
    if shown_view is None:
        return None
    shipment: dict[str, Any] = {
        "variety": shown_view["variety"],
        "tiles": [tile["id"] for tile in shown_view["tiles"]],
        "crates": shown_view["crates"],
        "played": list(shown_view["actions_played"]),
        "played_tiles": [],  # dealt with the other action tiles
        "near": shown_view["next_to_city"],
    }
    if view["phase"] == "BORROW":
        seat = shown_view["seat"]
        # The top ship came back empty before this load: all it holds of the seat is this load.
        loaded = view["ships"][-1]["crates"][seat]
        # ``returned`` and ``from_supply`` only shape the ship_loaded event's figures, not the rules.
        shipment["loading"] = {
            "returned": [0] * view["players"],
            "from_supply": loaded,
            "loaded": loaded,
            "to_borrow": shown_view["to_borrow"],
        }
    return shipment


def _deal_tea_tiles(state: State, view: View, rng: Rng, shown: set[int]) -> None:
    """Other screens get random unseen tiles by their counts; the bag holds the rest."""
    seen_tiles = {t for t in state["spaces"] if t != NO_TILE} | set(state["warehouse"])
    if state["shipment"] is not None:
        seen_tiles |= set(state["shipment"]["tiles"])
    for player in state["seats"]:
        seen_tiles |= set(player["tiles"])
    pool = [t for t in range(len(TILES)) if t not in seen_tiles]
    rng.shuffle(pool)
    for seat, player in enumerate(state["seats"]):
        if seat not in shown:
            count = view["player_states"][seat]["tile_count"]
            player["tiles"], pool = sorted(pool[:count]), pool[count:]
    state["bag"] = pool


def _deal_action_tiles(state: State, view: View, rng: Rng, shown: set[int]) -> None:
    """Played actions, other screens and the supply share the action tiles nobody shows."""
    held = {t for player in state["seats"] for t in player["actions"]}
    pool = [t for t in range(len(ACTION_TILES)) if t not in held]
    rng.shuffle(pool)
    shipment = state["shipment"]
    played: list[int] = []
    if shipment is not None:
        for action in shipment["played"]:
            tile = next(t for t in pool if action in ACTION_TILES[t] and t not in played)
            played.append(tile)
        shipment["played_tiles"] = played
    free = [t for t in pool if t not in played]
    for seat, player in enumerate(state["seats"]):
        if seat not in shown:
            count = view["player_states"][seat]["action_tile_count"]
            player["actions"], free = sorted(free[:count]), free[count:]
    state["action_supply"] = sorted(free + played)

