"""One handler per move kind: carry out a legal move, then hand over to the turn flow (:mod:`.turns`).

:data:`HANDLERS` is the only routing: ``apply`` looks the move's kind up there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.engine import Event, State
from services.common.rng import Rng
from services.darjeeling import loading, movement, turns
from services.darjeeling.board import REGIONS
from services.darjeeling.movement import NO_TILE

Handler = Callable[[State, int, dict[str, Any], Rng], list[Event]]


def choose_start(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Place the collector on a border tile, take that tile and put a crate on the next ship."""
    region = REGIONS[state["region"]]
    space = region.index(body["row"], body["col"])
    player = state["seats"][seat]
    ship = state["placed"]
    state["ships"][ship][seat] += 1
    player["supply"] -= 1
    player["pos"] = space
    player["facing"] = body["facing"]
    tile = state["spaces"][space]
    state["spaces"][space] = NO_TILE
    offered = movement.gain_tile(state, seat, tile)
    chosen = {"seat": seat, "row": body["row"], "col": body["col"], "facing": body["facing"], "ship": ship}
    events: list[Event] = [
        {"start_chosen": chosen},
        movement.take_tile_event(state, region, seat, space, tile, offered),
    ]
    # The start tile is not replaced: the collector stands on its space.
    return events + turns.after_taking(state, seat, offered, {"refill": NO_TILE, "then": "START_POSITIONS"}, rng)


def move_collector(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Turn and move the collector, take the tile it lands on; the vacated space is refilled later."""
    region = REGIONS[state["region"]]
    origin = state["seats"][seat]["pos"]
    # The move is already known legal: only the chosen turn's ray needs its costs.
    steps = movement.collector_steps(state, region, seat, (body["turn"],))
    step = next(s for s in steps if s.distance == body["distance"])
    events, offered = movement.move_collector(state, region, seat, step)
    return events + turns.after_taking(state, seat, offered, {"refill": origin, "then": "LOAD"}, rng)


def take_action_tile(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Take the offered action tile and carry on with the turn."""
    events = [movement.take_action_tile(state, seat)]
    return events + turns.resume(state, seat, rng)


def decline_action_tile(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Leave the offered action tile and carry on with the turn."""
    events: list[Event] = [{"action_tile_declined": {"seat": seat}}]
    return events + turns.resume(state, seat, rng)


def stay_put(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """No tile within reach: the collector stays and phase III begins."""
    state["phase"] = "LOAD"
    return [{"collector_stayed": {"seat": seat}}]


def lay_out(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Lay out tiles of one variety as a shipment."""
    state["phase"] = "LOADING"
    return loading.lay_out(state, REGIONS[state["region"]], seat, body)


def play_action(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Play an action tile on the laid-out shipment."""
    return loading.play_action(state, seat, body["action"])


def load(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Load crates on the lowest ship; borrow crates or end the turn after."""
    events, done = loading.load(state, seat, body["crates"])
    return events + turns.after_loading(state, seat, done)


def borrow_crate(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Move one of the seat's crates over from a lower ship."""
    events, done = loading.borrow_crate(state, seat, body["ship"])
    return events + turns.after_loading(state, seat, done)


def take_back(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """Take the laid-out shipment back behind the screen (once a turn)."""
    state["phase"] = "LOAD"
    return loading.take_back(state, seat)


def end_turn(state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
    """End the turn without (further) loading."""
    return turns.after_turn(state, seat)


HANDLERS: dict[str, Handler] = {
    "choose_start": choose_start,
    "move_collector": move_collector,
    "stay_put": stay_put,
    "take_action_tile": take_action_tile,
    "decline_action_tile": decline_action_tile,
    "lay_out": lay_out,
    "play_action": play_action,
    "load": load,
    "take_back": take_back,
    "borrow_crate": borrow_crate,
    "end_turn": end_turn,
}
