"""Why an Alubari move is refused: the step's kinds first, then one explainer or one fixed reason per kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.alubari.content import EQUIPMENT, TOWN_INDEX
from services.alubari.moves import to_act
from services.common.engine import IllegalMove, Move, State, turn_refusal

STAGE_MOVES = {
    "MAINTENANCE": {"maintain_equipment"},
    "TEMP_WORKER": {"temp_worker", "decline_temp_worker"},
    "PLACE": {"place_worker"},
    "CONTRACTS": {"play_contract", "finish_contracts"},
    "WORKER": {"chai_boost", "take_cube", "foundry", "build_station", "buy_equipment", "take_contract",
               "chaiwala_take_leaves", "chaiwala_convert", "end_action"},
}
ALL_MOVES = set().union(*STAGE_MOVES.values())


def explain_place_worker(state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a worker cannot go to that action space: no such space, taken, or fogged."""
    area, number = body.get("area"), body.get("space")
    if not isinstance(area, str) or area not in state["areas"] or not isinstance(number, int):
        return IllegalMove("no such action space", code="no_such_space")
    if not 1 <= number <= len(state["areas"][area]):
        return IllegalMove("no such action space", code="no_such_space")
    if state["areas"][area][number - 1] >= 0:
        return IllegalMove("that action space is taken", code="space_taken")
    return IllegalMove("fog closes that action space this round", code="space_fogged")


def explain_play_contract(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a contract cannot be played: not held, already used, or not showing this area."""
    card = body.get("contract_id")
    held = {h["id"]: h for h in state["players"][seat]["contracts"]}
    if not isinstance(card, int) or card not in held:
        return IllegalMove("you do not hold that contract", code="contract_not_held")
    if held[card]["used"]:
        return IllegalMove("that contract has been used already", code="contract_used")
    return IllegalMove("that contract does not show this action area", code="contract_wrong_area")


def explain_build_station(_state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a station cannot be built: no such town, or the space is closed, taken or too dear."""
    if not isinstance(body.get("town"), str) or body["town"] not in TOWN_INDEX:
        return IllegalMove("no such town", code="no_such_town")
    return IllegalMove("that station space is closed, taken or too dear", code="cannot_build")


def explain_buy_equipment(_state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why an Equipment cannot be bought: no such card, or not in the shed or too dear."""
    item = body.get("equipment_id")
    if not isinstance(item, int) or item not in EQUIPMENT:
        return IllegalMove("no such equipment", code="no_such_equipment")
    return IllegalMove("that equipment is not in the shed or too dear", code="cannot_afford")


Explainer = Callable[[State, int, dict[str, Any]], IllegalMove]

# Kinds whose refusal depends on what the move names.
DETAIL_EXPLAINERS: dict[str, Explainer] = {
    "place_worker": explain_place_worker,
    "play_contract": explain_play_contract,
    "build_station": explain_build_station,
    "buy_equipment": explain_buy_equipment,
}

# These four worker steps share one reason: each needs cubes, leaves or room under the action limit.
NOT_POSSIBLE = ("not possible with the cubes, leaves or limits now", "not_possible")

# Kinds refused for one reason only, as (message, code).
FIXED_REFUSALS: dict[str, tuple[str, str]] = {
    "maintain_equipment": ("that is not the Equipment due for maintenance now", "not_due"),
    "temp_worker": ("you cannot pay for your third worker that way", "cannot_pay"),
    "take_contract": ("no contract in that Post Office position", "empty_slot"),
    "take_cube": NOT_POSSIBLE,
    "foundry": NOT_POSSIBLE,
    "chaiwala_convert": NOT_POSSIBLE,
    "chaiwala_take_leaves": NOT_POSSIBLE,
    "end_action": ("this action must be carried out", "must_act"),
}


def explain_illegal(state: State, seat: int, move: Move) -> IllegalMove:
    """A specific reason why ``move`` is refused."""
    if (refused := turn_refusal(state["stage"] == "OVER", seat, to_act(state))) is not None:
        return refused
    if not isinstance(move, dict) or len(move) != 1 or next(iter(move)) not in ALL_MOVES:
        return IllegalMove("unknown move; send exactly one move kind", code="unknown_move")
    kind = next(iter(move))
    body = move[kind] if isinstance(move[kind], dict) else {}
    stage = state["stage"]
    if kind not in STAGE_MOVES[stage]:
        return IllegalMove(f"{kind} is not a decision of the {stage} step", code="wrong_step")
    return _explain_detail(state, seat, kind, body)


def _explain_detail(state: State, seat: int, kind: str, body: dict[str, Any]) -> IllegalMove:
    """The reason a move of the right step and kind is still refused."""
    explain = DETAIL_EXPLAINERS.get(kind)
    if explain is not None:
        return explain(state, seat, body)
    if kind in FIXED_REFUSALS:
        message, code = FIXED_REFUSALS[kind]
        return IllegalMove(message, code=code)
    return IllegalMove("that move is not legal now")
