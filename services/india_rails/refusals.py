"""Why a move is refused: timing (phase, pending choices, placement) first, then the rule the move breaks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.engine import IllegalMove, Move, State, turn_refusal
from services.india_rails import basics, moves
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.basics import UPGRADE_COST

_BUILD_PHASES = ("build", "initial_build")
_MOVE_PHASES: dict[str, tuple[str, ...]] = {
    "build_track": _BUILD_PHASES, "upgrade_train": _BUILD_PHASES, "crossgrade_train": _BUILD_PHASES,
    "end_turn": _BUILD_PHASES, "offer_track": _BUILD_PHASES, "move_train": ("operations",),
    "place_train": ("operations",), "pick_up": ("operations",), "drop_load": ("operations",),
    "deliver": ("operations",), "discard_hand": ("operations",), "end_operations": ("operations",),
    "backtrack": ("operations",), "discard_demand": ("initial_discard",), "answer_offer": ("offer",),
    "borrow": ("operations", *_BUILD_PHASES), "repay_loan": ("operations", *_BUILD_PHASES),
}


def _timing_refusal(state: State, kind: str) -> IllegalMove | None:
    """A derailment's load choice comes before anything else, and each kind of move has its phases."""
    if state["pending"] and kind != "choose_lost_load":
        return IllegalMove("choose which load the derailment costs first", code="choice_pending")
    if kind in _MOVE_PHASES and state["phase"] not in _MOVE_PHASES[kind]:
        return IllegalMove(f"{kind} is not allowed in the {state['phase']} phase", code="wrong_phase")
    return _placement_refusal(state, kind)


def _placement_refusal(state: State, kind: str) -> IllegalMove | None:
    """Trains are placed at the start of the first turn they run, and never again."""
    if state["phase"] != "operations":
        return None
    unplaced = basics.unplaced(state["players"][state["current"]])
    if kind == "place_train" and not unplaced:
        return IllegalMove("a train is placed only at the start of the game", code="train_placed")
    if unplaced and kind not in ("place_train", "discard_hand"):
        return IllegalMove("place the train in a city first", code="place_train_first")
    return None


def _rule_refusal(state: State, seat: int, kind: str, body: dict[str, Any]) -> IllegalMove | None:
    """The rule a move of this kind breaks, if one can be named; bad fields make the move malformed."""
    explain = _RULE_REFUSALS.get(kind)
    if explain is None:
        return None
    try:
        return explain(state, seat, body)
    except (KeyError, TypeError, ValueError, IndexError):
        return IllegalMove("the move's fields are missing or invalid", code="malformed_move")


def _build_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Building is the turn's alternative to an upgrade or a track purchase, then the building rules apply."""
    if state["turn"]["upgraded"]:
        return IllegalMove("an upgrade uses the whole building budget", code="over_budget")
    if state["turn"]["bought"]:
        return IllegalMove("a track purchase replaces building this turn", code="bought_track")
    ctx = tracks.BuildContext(state, seat)
    problem = tracks.build_problem(ctx, int(body["from_milepost"]), int(body["to_milepost"]))
    return IllegalMove(problem[1], code=problem[0]) if problem else None


def _move_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """The movement rules for one step of a train."""
    ctx = ops.OperationsContext(state, seat)
    train = state["players"][seat]["trains"][int(body["train"])]
    problem = ops.step_problem(ctx, train, int(body["to_milepost"]))
    return IllegalMove(problem[1], code=problem[0]) if problem else None


def _upgrade_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """An upgrade is paid in cash and replaces the turn's building."""
    if state["players"][seat]["cash"] < UPGRADE_COST:
        return IllegalMove("an upgrade costs 20M and there is no credit", code="no_credit")
    if state["turn"]["spent"]:
        return IllegalMove("upgrade instead of building, not after it", code="upgrade_after_build")
    return _loco_card_refusal(state, body)


def _loco_card_refusal(state: State, body: dict[str, Any]) -> IllegalMove | None:
    """Only 12 loco cards exist: a new type needs one of its cards with the bank."""
    if basics.loco_cards_left(state).get(str(body["loco"]), 0) <= 0:
        return IllegalMove(f"no {body['loco']} loco card is left with the bank", code="no_loco_card")
    return None


def _discard_hand_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Discarding the hand takes the whole turn."""
    if state["turn"]["acted"]:
        return IllegalMove("the hand may only be discarded instead of a turn", code="turn_started")
    return None


def _delivery_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Deliveries match a carried load to a demand in this city; one reason covers every mismatch."""
    return IllegalMove("no matching demand for that load in this city", code="no_demand_here")


def _pickup_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Pick-ups depend on the city's goods, the tray, room on the train and strikes; one reason covers them all."""
    return IllegalMove("that load cannot be picked up here now", code="load_unavailable")


def _loan_refusal(state: State, seat: int, body: dict[str, Any]) -> IllegalMove | None:
    """Loans (mercy rule) stay within 20M outstanding and are offered only when cash is short for an action."""
    if not state["options"]["mercy_borrowing"]:
        return IllegalMove("borrowing is a mercy rule not used in this game", code="no_borrowing")
    if not 1 <= int(body["amount"]) <= basics.loan_room(state["players"][seat]):
        return IllegalMove("loans are whole millions, at most 20M outstanding", code="loan_limit")
    return IllegalMove("a loan is taken only when the cash is short for a move", code="loan_not_needed")


_RULE_REFUSALS: dict[str, Callable[[State, int, dict[str, Any]], IllegalMove | None]] = {
    "borrow": _loan_refusal,
    "build_track": _build_refusal,
    "move_train": _move_refusal,
    "upgrade_train": _upgrade_refusal,
    "crossgrade_train": lambda state, seat, body: _loco_card_refusal(state, body),
    "discard_hand": _discard_hand_refusal,
    "deliver": _delivery_refusal,
    "pick_up": _pickup_refusal,
}


def explain_illegal(state: State, seat: int, move: Move) -> IllegalMove:
    """A specific, stable reason for refusing ``move``."""
    if (refused := turn_refusal(state["over"], seat, moves.to_act(state))) is not None:
        return refused
    kind = basics.move_kind(move)
    body = move.get(kind) if kind else None
    if not kind or not isinstance(body, dict):
        return IllegalMove("a move is an object with exactly one kind", code="malformed_move")
    refusal = _timing_refusal(state, kind) or _rule_refusal(state, seat, kind, body)
    return refusal or IllegalMove("that move is not legal now", code="illegal_move")
