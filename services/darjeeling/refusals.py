"""Why a move is refused: a stable code and a message, one explainer per move kind (:data:`EXPLAINERS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.engine import IllegalMove, Move, State, turn_refusal
from services.darjeeling import loading, movement
from services.darjeeling.board import REGIONS, TURNS
from services.darjeeling.content import ACTIONS, COSTS, VARIETIES
from services.darjeeling.movement import NO_TILE
from services.darjeeling.moves import MOVE_KINDS, PHASE_MOVES, to_act

Explainer = Callable[[State, int, dict[str, Any]], IllegalMove]


def explain_illegal(state: State, seat: int, move: Move) -> IllegalMove:
    """A specific code and message for a refused move."""
    if (refused := turn_refusal(state["phase"] == "GAME_OVER", seat, to_act(state))) is not None:
        return refused
    if not isinstance(move, dict) or len(move) != 1 or next(iter(move)) not in MOVE_KINDS:
        return IllegalMove(f"a move is one of: {', '.join(MOVE_KINDS)}", code="unknown_move")
    kind, body = next(iter(move.items()))
    if kind not in PHASE_MOVES[state["phase"]]:
        allowed = ", ".join(PHASE_MOVES[state["phase"]])
        return IllegalMove(f"{kind} is not possible in phase {state['phase']} (allowed: {allowed})", "wrong_phase")
    body = body if isinstance(body, dict) else {}
    return EXPLAINERS[kind](state, seat, body)


def _choose_start(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    region = REGIONS[state["region"]]
    row, col = body.get("row", 0), body.get("col", 0)
    if not isinstance(row, int) or not isinstance(col, int) or not region.inside(row, col):
        return IllegalMove("that space is not part of the region", code="off_region")
    space = region.index(row, col)
    if state["spaces"][space] == NO_TILE:
        return IllegalMove("a collector must start on a tea tile", code="no_tile_there")
    facings = region.start_facings(space)
    if not facings:
        return IllegalMove(
            "a collector must start on a border tile, its back to the edge and facing a tile", code="not_on_border"
        )
    return IllegalMove(f"from there the collector must face one of {', '.join(facings)}", code="bad_facing")


def _move_collector(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    if body.get("turn") not in TURNS:
        return IllegalMove(f"turn must be one of {', '.join(TURNS)}", code="bad_turn")
    if not movement.collector_steps(state, REGIONS[state["region"]], seat):
        return IllegalMove("no tile can be reached: the collector stays put", code="must_stay_put")
    return IllegalMove(
        "the collector must move at least one space and end on a tea tile inside the region", code="bad_distance"
    )


def _action_tile(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    return IllegalMove("no action tile is offered now", code="wrong_phase")


def _stay_put(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    return IllegalMove("the collector can reach a tile, so it must move", code="must_move")


def _lay_out(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    variety = body.get("variety")
    if variety not in VARIETIES:
        return IllegalMove(f"variety must be one of {', '.join(VARIETIES)}", code="bad_variety")
    counts = [body.get(key, 0) for key in loading.HALVES_KEYS]
    if not all(isinstance(c, int) and c >= 0 for c in counts):
        return IllegalMove("tile counts must be non-negative integers", code="bad_counts")
    groups = loading.held_by_kind(state["seats"][seat]["tiles"])[variety]
    if any(count > len(group) for count, group in zip(counts, groups, strict=True)):
        return IllegalMove("you do not hold that many tiles of that kind", code="not_enough_tiles")
    halves = counts[0] + 2 * counts[1] + 3 * counts[2]
    if halves == 0:
        return IllegalMove("lay out at least one whole crate", code="empty_shipment")
    if halves % 2:
        return IllegalMove("a shipment may not leave a half crate open", code="open_half_crate")
    return IllegalMove(
        "away from a city one crate is lost, so a single crate cannot be loaded without no-rotting",
        code="nothing_to_load",
    )


def _play_action(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    action = body.get("action")
    if action not in ACTIONS:
        return IllegalMove(f"action must be one of {', '.join(ACTIONS)}", code="bad_action")
    played = state["shipment"]["played"]
    if action in played:
        return IllegalMove("each action may be used once per turn", code="action_already_played")
    if len(played) >= COSTS.action_tiles_per_loading:
        return IllegalMove("at most two action tiles per loading", code="action_limit")
    return IllegalMove("you hold no action tile offering that action", code="no_action_tile")


def _load(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    most = loading.most_loadable(state["shipment"])
    if most < 1:
        return IllegalMove(
            "away from a city this shipment loads no crate; play no-rotting first", code="nothing_to_load"
        )
    return IllegalMove(f"load from 1 to {most} crates", code="bad_crates")


def _borrow_crate(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    return IllegalMove(
        "move a crate over from one of your ships below the one being loaded that holds your crates",
        code="no_crate_there",
    )


def _take_back(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    return IllegalMove("a shipment may be taken back only once a turn", code="already_taken_back")


def _end_turn(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    return IllegalMove("the turn cannot end now", code="wrong_phase")


EXPLAINERS: dict[str, Explainer] = {
    "choose_start": _choose_start,
    "move_collector": _move_collector,
    "stay_put": _stay_put,
    "take_action_tile": _action_tile,
    "decline_action_tile": _action_tile,
    "lay_out": _lay_out,
    "play_action": _play_action,
    "load": _load,
    "take_back": _take_back,
    "borrow_crate": _borrow_crate,
    "end_turn": _end_turn,
}
