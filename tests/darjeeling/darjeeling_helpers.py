"""Shared helpers for the Darjeeling tests (imported by the test modules of this folder)."""

from __future__ import annotations

from typing import Any

from services.common.engine import GameConfig
from services.common.rng import Rng
from services.darjeeling.board import REGIONS
from services.darjeeling.content import SHIPPING_CRATES, TILES
from services.darjeeling.engine import DarjeelingEngine

ENGINE = DarjeelingEngine()


def new_state(players: int = 2, region: str = "india", seed: int = 1, start_player: int = 0) -> dict[str, Any]:
    """A fresh game in the starting-positions phase (seat 0 starts unless told otherwise)."""
    options = ENGINE.validate_options(players, {"region": region, "start_player": start_player})
    return ENGINE.setup(GameConfig(players=players, options=options), Rng(seed))


def tile_id(variety: str, halves: int, skip: int = 0) -> int:
    """The id of the ``skip``-th tile of that variety and number of halves."""
    ids = [i for i, kind in enumerate(TILES) if kind.variety == variety and kind.halves == halves]
    return ids[skip]


def all_tile_locations(state: dict[str, Any]) -> list[int]:
    """Every tile id wherever it is: board, bag, warehouse, screens, a laid-out shipment."""
    found = [t for t in state["spaces"] if t >= 0]
    found += state["bag"] + state["warehouse"]
    for player in state["seats"]:
        found += player["tiles"]
    if state["shipment"]:
        found += state["shipment"]["tiles"]
    return found


def check_conservation(state: dict[str, Any]) -> None:
    """All 112 tiles exactly once; every seat's shipping crates on ships or in supply; action tiles conserved."""
    assert sorted(all_tile_locations(state)) == list(range(len(TILES)))
    for seat, player in enumerate(state["seats"]):
        afloat = sum(ship[seat] for ship in state["ships"])
        assert afloat + player["supply"] == SHIPPING_CRATES
        assert player["supply"] >= 0
    actions = list(state["action_supply"])
    for player in state["seats"]:
        actions += player["actions"]
    assert sorted(actions) == list(range(10))
    region = REGIONS[state["region"]]
    for space in region.cities:
        assert state["spaces"][space] == -1


def place(state: dict[str, Any], seat: int, row: int, col: int, facing: str) -> None:
    """Put a seat's collector on an (emptied) space, for hand-built scenarios; its tile goes to the bag."""
    region = REGIONS[state["region"]]
    space = region.index(row, col)
    if state["spaces"][space] >= 0:
        state["bag"].append(state["spaces"][space])
        state["spaces"][space] = -1
    state["seats"][seat]["pos"] = space
    state["seats"][seat]["facing"] = facing


def give(state: dict[str, Any], seat: int, tiles: list[int]) -> None:
    """Move tiles (from wherever they are) behind a seat's screen."""
    for tile in tiles:
        if tile in state["bag"]:
            state["bag"].remove(tile)
        elif tile in state["spaces"]:
            state["spaces"][state["spaces"].index(tile)] = state["bag"].pop()
        else:
            for player in state["seats"]:
                if tile in player["tiles"]:
                    player["tiles"].remove(tile)
        state["seats"][seat]["tiles"].append(tile)


def in_play(players: int = 2, region: str = "india", seed: int = 1) -> dict[str, Any]:
    """A game after the starting positions (each seat took its first legal move), seat 0 to move."""
    state = new_state(players, region, seed)
    rng = Rng(seed + 100)
    while state["phase"] == "START_POSITIONS":
        seat = state["current"]
        state, _ = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0], rng)
    return state


def started(starts: list[tuple[int, int, str]], region: str = "india", seed: int = 1) -> dict[str, Any]:
    """A game whose seats chose the given starting positions in turn order (taking any action tile
    offered); the first turn has begun."""
    state = new_state(len(starts), region, seed)
    rng = Rng(seed + 100)
    for seat, (row, col, facing) in enumerate(starts):
        move = {"choose_start": {"row": row, "col": col, "facing": facing}}
        assert move in ENGINE.legal_moves(state, seat)
        state, _ = ENGINE.apply(state, seat, move, rng)
        if state["phase"] == "ACTION_TILE":
            state, _ = ENGINE.apply(state, seat, {"take_action_tile": {}}, rng)
    return state


def play(state: dict[str, Any], move: dict[str, Any], seed: int = 3) -> list[dict[str, Any]]:
    """Apply a move for the seat to act after checking it is legal; returns the events."""
    seat = ENGINE.to_act(state)[0]
    assert move in ENGINE.legal_moves(state, seat), (move, ENGINE.legal_moves(state, seat))
    _, events = ENGINE.apply(state, seat, move, Rng(seed))
    return events


def set_tile(state: dict[str, Any], row: int, col: int, tile: int) -> None:
    """Put ``tile`` on a board space, swapping it with whatever tile is there (keeps all tiles accounted for)."""
    region = REGIONS[state["region"]]
    space = region.index(row, col)
    old = state["spaces"][space]
    if tile in state["bag"]:
        state["bag"].remove(tile)
    elif tile in state["spaces"]:
        state["spaces"][state["spaces"].index(tile)] = -1 if old < 0 else old
        old = -1
    state["spaces"][space] = tile
    if old >= 0:
        state["bag"].append(old)


def set_hand(state: dict[str, Any], seat: int, tiles: list[int]) -> None:
    """Replace a seat's tiles behind the screen (old ones go to the bag)."""
    player = state["seats"][seat]
    state["bag"].extend(player["tiles"])
    player["tiles"] = []
    give(state, seat, tiles)


def kinds(variety: str, halves_list: list[int]) -> list[int]:
    """Distinct tile ids of one variety with the given halves, e.g. ``kinds("RED", [3, 1, 1, 1])``."""
    used: dict[int, int] = {}
    ids = []
    for halves in halves_list:
        ids.append(tile_id(variety, halves, used.get(halves, 0)))
        used[halves] = used.get(halves, 0) + 1
    return ids
