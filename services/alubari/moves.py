"""Whose decision it is, the legal moves, and applying one through the handler table (:data:`HANDLERS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.alubari import actions, contracts, rondel, rounds
from services.alubari.content import AREAS
from services.common.engine import Event, Move, State, current_seat
from services.common.rng import Rng

Handler = Callable[[State, int, dict[str, Any], Move, Rng, list[Event]], None]


def to_act(state: State) -> list[int]:
    """The one seat deciding now."""
    return current_seat(state, over=state["stage"] == "OVER")


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every atomic decision open to ``seat``."""
    if seat not in to_act(state):
        return []
    stage = state["stage"]
    if stage == "MAINTENANCE":
        return rondel.maintenance_moves(state)
    if stage == "TEMP_WORKER":
        return rounds.temp_choices(state, seat)
    if stage == "PLACE":
        return [{"place_worker": {"area": area, "space": index + 1}} for area, index in rounds.open_spaces(state)]
    if stage == "CONTRACTS":
        area = AREAS[state["resolve"]["area"]]
        usable = contracts.usable_contracts(state, seat, area)
        return [*({"play_contract": {"contract_id": card}} for card in usable), {"finish_contracts": {}}]
    return actions.worker_moves(state)


def _maintain_equipment(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng,
                        events: list[Event]) -> None:
    rounds.maintenance_decided(state, bool(body["pay"]), events)


def _temp_worker(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng, events: list[Event]) -> None:
    rounds.apply_temp(state, seat, body["payment"], events)


def _decline_temp_worker(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng,
                         events: list[Event]) -> None:
    rounds.apply_temp(state, seat, None, events)


def _place_worker(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng, events: list[Event]) -> None:
    rounds.place_worker(state, seat, body["area"], int(body["space"]) - 1, events)


def _play_contract(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng, events: list[Event]) -> None:
    rounds.contract_used(state, seat, int(body["contract_id"]), rng, events)


def _finish_contracts(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng,
                      events: list[Event]) -> None:
    rounds.contract_done(state, rng, events)


def _worker_step(state: State, seat: int, body: dict[str, Any], move: Move, rng: Rng, events: list[Event]) -> None:
    """One step of the worker being resolved (its own table: :data:`services.alubari.actions.WORKER_STEPS`)."""
    more = actions.apply_worker_move(state, move, rng, events)
    rounds.after_worker_step(state, rng, events, more)


WORKER_KINDS = ("chai_boost", "take_cube", "foundry", "build_station", "buy_equipment", "take_contract",
                "chaiwala_take_leaves", "chaiwala_convert", "end_action")
HANDLERS: dict[str, Handler] = {
    "maintain_equipment": _maintain_equipment,
    "temp_worker": _temp_worker,
    "decline_temp_worker": _decline_temp_worker,
    "place_worker": _place_worker,
    "play_contract": _play_contract,
    "finish_contracts": _finish_contracts,
    **dict.fromkeys(WORKER_KINDS, _worker_step),
}


def apply_move(state: State, seat: int, move: Move, rng: Rng) -> list[Event]:
    """Apply one legal move and run the game forward to the next decision."""
    events: list[Event] = []
    kind = next(iter(move))
    HANDLERS[kind](state, seat, move[kind], move, rng, events)
    while state["stage"] == "RESOLVE":
        rounds.run_resolution(state, rng, events)
    return events
