"""The heuristic bot: plays from its seat's view and the legal moves only."""

from __future__ import annotations

from typing import Any

from services.common.engine import Engine, Move, State
from services.common.rng import Rng


class HeuristicBot:
    """Prefers laying track and building, keeps the foundry busy, uses contracts as soon as it can."""

    def choose(self, engine: Engine, state: State, seat: int, rng: Rng) -> Move:
        """Score every legal move and play the best (random among equals)."""
        moves = engine.legal_moves(state, seat)
        if len(moves) == 1:
            return moves[0]
        seen = engine.view(state, seat)
        me = seen["player_states"][seat]
        best: list[Move] = []
        best_score = float("-inf")
        for move in moves:
            score = _score(seen, me, move)
            if score > best_score:
                best, best_score = [move], score
            elif score == best_score:
                best.append(move)
        return rng.choice(best)


def _score(seen: dict[str, Any], me: dict[str, Any], move: Move) -> float:
    kind = next(iter(move))
    body = move[kind]
    scorer = _SCORERS.get(kind)
    return scorer(seen, me, body) if scorer else 0.0


def _place(seen: dict[str, Any], me: dict[str, Any], body: dict[str, Any]) -> float:
    kind = next(a["kind"] for a in seen["areas"] if a["area"] == body["area"])
    stockyard = sum(seen["stockyard"].values())
    rubble_left = sum(s["rubble"] for e in seen["estates"] for s in e["spaces"])
    values = {
        "LAY_TRACK": 9.0 if me["steel"] >= 1 else -5.0,
        "FOUNDRY": 7.0 if me["iron_ore"] >= 3 or me["rubble"] >= 2 else 0.0,
        "BUILDING": 6.0 if (me["stone"] + me["iron_ore"] + me["steel"] >= 2 or me["rubble"] >= 3) else -2.0,
        "STOCKYARD": 2.0 + stockyard / 2.0,
        "EXCAVATION": 5.0 if rubble_left else -5.0,
        "POST_OFFICE": 4.0 - len(me["contracts"]),
        "CHAIWALA": 3.0 if me["tea_leaves"] or seen["work_rates"]["crop_harvest"] >= 1 else -3.0,
    }
    return values[kind] - 0.1 * body["space"]


def _boost(seen: dict[str, Any], me: dict[str, Any], body: dict[str, Any]) -> float:
    worker = seen.get("worker", {})
    worth = worker.get("kind") in ("LAY_TRACK", "BUILDING", "EXCAVATION") and me["chai"] >= 2
    return 1.0 if body["use"] == worth else 0.0


def _take_cube(_seen: dict[str, Any], me: dict[str, Any], body: dict[str, Any]) -> float:
    return {"CHAI": 4.0, "IRON_ORE": 3.0 if me["iron_ore"] < 6 else 1.0, "STONE": 2.5}[body["cube"]]


def _foundry(_seen: dict[str, Any], _me: dict[str, Any], body: dict[str, Any]) -> float:
    return {"MAKE_STEEL": 5.0, "MAKE_STONE": 2.0, "SMASH_STONE": -1.0}[body["mini_action"]]


def _build(seen: dict[str, Any], _me: dict[str, Any], body: dict[str, Any]) -> float:
    town = next(t for t in seen["towns"] if t["name"] == body["town"])
    space = town["spaces"][body["space"]]
    return 3.0 + space["vp"] + sum(space["bonus"].values())


def _equipment(seen: dict[str, Any], _me: dict[str, Any], body: dict[str, Any]) -> float:
    solo = seen["players"] == 1
    return 4.0 if solo else 10.0


def _take_contract(seen: dict[str, Any], _me: dict[str, Any], body: dict[str, Any]) -> float:
    slot = seen["post_office"][body["slot"]]
    return float(slot["contract"]["points"]) if "contract" in slot else 0.0


def _convert(_seen: dict[str, Any], me: dict[str, Any], body: dict[str, Any]) -> float:
    return 2.0 + body["leaves"] * 0.5


_SCORERS = {
    "place_worker": _place,
    "chai_boost": _boost,
    "take_cube": _take_cube,
    "foundry": _foundry,
    "build_station": _build,
    "buy_equipment": _equipment,
    "take_contract": _take_contract,
    "chaiwala_convert": _convert,
    "chaiwala_take_leaves": lambda _s, _m, _b: 2.5,
    "play_contract": lambda _s, _m, _b: 5.0,
    "finish_contracts": lambda _s, _m, _b: 0.0,
    "temp_worker": lambda _s, me, b: 3.0 if b["payment"] == "PAY_RUBBLE" or me["chai"] >= 2 else -1.0,
    "decline_temp_worker": lambda _s, _m, _b: 0.0,
    "end_action": lambda _s, _m, _b: 0.5,
}
