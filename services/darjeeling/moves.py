"""Whose turn, which moves are legal, and applying one through the handler table."""

from __future__ import annotations

from services.common.engine import Event, Move, State, current_seat
from services.common.rng import Rng
from services.darjeeling import loading, movement
from services.darjeeling.board import REGIONS
from services.darjeeling.handlers import HANDLERS
from services.darjeeling.movement import NO_TILE

# Every move kind, in the order refusals list them.
MOVE_KINDS = tuple(HANDLERS)
PHASE_MOVES: dict[str, tuple[str, ...]] = {
    "START_POSITIONS": ("choose_start",),
    "MOVE": ("move_collector", "stay_put"),
    "ACTION_TILE": ("take_action_tile", "decline_action_tile"),
    "LOAD": ("lay_out", "end_turn"),
    "LOADING": ("play_action", "load", "take_back"),
    "BORROW": ("borrow_crate",),
    "GAME_OVER": (),
}


def to_act(state: State) -> list[int]:
    """The single seat whose turn (or starting position) it is."""
    return current_seat(state, over=state["phase"] == "GAME_OVER")


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every atomic decision open to ``seat`` now."""
    if seat not in to_act(state):
        return []
    region = REGIONS[state["region"]]
    phase = state["phase"]
    if phase == "START_POSITIONS":
        return start_moves(state)
    if phase == "MOVE":
        steps = movement.collector_steps(state, region, seat)
        if not steps:
            return [{"stay_put": {}}]
        return [{"move_collector": {"turn": s.turn, "distance": s.distance}} for s in steps]
    if phase == "ACTION_TILE":
        return [{"take_action_tile": {}}, {"decline_action_tile": {}}]
    if phase == "LOAD":
        return [*loading.lay_out_moves(state, region, seat), {"end_turn": {}}]
    if phase == "BORROW":
        return loading.borrow_moves(state, seat)
    return loading.loading_moves(state, seat)


def start_moves(state: State) -> list[Move]:
    """Every starting position: a border tile, its back to the edge, facing a tile."""
    region = REGIONS[state["region"]]
    moves: list[Move] = []
    for space in region.tile_spaces:
        if state["spaces"][space] == NO_TILE:
            continue
        row, col = region.coords(space)
        moves.extend(
            {"choose_start": {"row": row, "col": col, "facing": facing}} for facing in region.start_facings(space)
        )
    return moves


def apply_move(state: State, seat: int, move: Move, rng: Rng) -> list[Event]:
    """Carry out one legal move and everything that follows automatically."""
    kind, body = next(iter(move.items()))
    return HANDLERS[kind](state, seat, body, rng)
