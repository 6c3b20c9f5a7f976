"""Legal moves and their application: the atomic decisions of Tea & Rum."""

from __future__ import annotations

from typing import Any

from services.common.rng import Rng
from services.tea_rum import actions, trade
from services.tea_rum.content import CONTENT, CUBES, RESOURCES
from services.tea_rum.effects import Events, State, add_vp, gain_tasks, pay, push_front, return_resource
from services.tea_rum.players import (
    Player,
    activatable_captains,
    can_pay,
    expansion_cost,
    open_expansions,
    overflowing,
)
from services.tea_rum.rounds import advance, affordable_ships, end_turn, ship_price

Move = dict[str, Any]


def to_act(state: State) -> list[int]:
    """Seats that must decide now: one seat, or every unfinished seat in the secret exchange."""
    if state["phase"] == "over":
        return []
    if state["phase"] == "exchange":
        return [p["seat"] for p in state["players"] if not p["exchange_done"]]
    return [state["actor"]] if state["actor"] >= 0 else []


def _expansions(player: Player) -> list[Move]:
    return [{"expand_warehouse": {"token": i}} for i in open_expansions(player)]


def _activations(player: Player) -> list[Move]:
    return [{"activate_captain": {"captain": c}} for c in activatable_captains(player)]


def _pending_moves(state: State, player: Player) -> list[Move]:
    task = player["pending"][0]
    kind = task["task"]
    if kind == "choose":
        return [{"choose_option": {"option": i}} for i in range(len(task["options"]))]
    if kind == "any_cube":
        return [{"choose_cube": {"resource": c}} for c in CUBES if state["supply"][c] > 0]
    if kind == "trade":
        return trade.legal(state, player, task)
    if kind == "build":
        return actions.build_moves(state, player, task)
    if kind == "contract":
        return actions.contract_moves(state, player)
    if kind == "captain":
        return actions.captain_moves(state, player, task)
    return [{"take_allegiance": {"allegiance": a["id"]}} for a in state["allegiances"] if a["taken_by"] < 0]


def can_prove_by_paying(player: Player) -> bool:
    """An allegiance that is proved by paying, not yet proved, and affordable now."""
    if not player["allegiance"] or player["allegiance_done"]:
        return False
    cost = CONTENT.allegiances[player["allegiance"]]["condition"].get("pay")
    return bool(cost) and can_pay(player, cost)


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every legal atomic decision of ``seat`` now."""
    if seat not in to_act(state):
        return []
    player = state["players"][seat]
    phase = state["phase"]
    if phase == "exchange":
        moves: list[Move] = []
        if player["money"] >= CONTENT.rules["end_game_exchange"]["coins"]:
            moves = [{"exchange_vp": {"colour": "blue"}}, {"exchange_vp": {"colour": "red"}}]
        return [*moves, {"finish_exchange": {}}]
    if overflowing(player):
        discards = [{"discard_resource": {"resource": r}} for r in RESOURCES if player["res"][r] > 0]
        return _expansions(player) + discards
    if player["pending"]:
        return _pending_moves(state, player)
    if phase == "ships":
        buys = [
            {"buy_ship": {"ship": s, "row": r}}
            for s in affordable_ships(state, player)
            for r in range(len(CONTENT.ships[s]["rows"]))
        ]
        return [*buys, {"pass_ships": {}}, *_expansions(player)]
    if phase == "actions":
        if state["stage"] == "choose":
            return actions.worker_moves(state, seat) + _activations(player) + _expansions(player)
        return [*_activations(player), {"end_turn": {}}]
    prove: list[Move] = [{"prove_allegiance": {}}] if can_prove_by_paying(player) else []
    return [*_activations(player), *prove, {"finish_final": {}}]


def _apply_pending(state: State, player: Player, move: Move, events: Events) -> None:
    task = player["pending"][0]
    kind = next(iter(move))
    if kind in ("trade_sell", "trade_buy", "trade_plate"):
        trade.step(task, move)
        return
    player["pending"].pop(0)
    if kind == "trade_confirm":
        trade.confirm(state, player, task, events)
    elif kind == "choose_option":
        events.append({"option_chosen": {"seat": player["seat"], "option": move[kind]["option"],
                                         "secret": player["chest"]}})
        push_front(player, gain_tasks(task["options"][move[kind]["option"]]["gains"]))
    elif kind == "choose_cube":
        push_front(player, gain_tasks([{"kind": move[kind]["resource"], "amount": 1, "options": []}]))
    elif kind == "build":
        actions.build(state, player, move, events)
    elif kind == "fulfill_contract":
        actions.fulfil_contract(state, player, move, events)
    elif kind == "hire_captain":
        actions.hire_captain(state, player, task, move, events)
    elif kind == "skip_action":
        events.append({"action_skipped": {"seat": player["seat"], "action": task["task"]}})
    elif kind == "take_allegiance":
        _take_allegiance(state, player, move[kind]["allegiance"], events)


def _take_allegiance(state: State, player: Player, allegiance: int, events: Events) -> None:
    for slot in state["allegiances"]:
        if slot["id"] == allegiance:
            slot["taken_by"] = player["seat"]
    player["allegiance"] = allegiance
    events.append({"allegiance_taken": {"seat": player["seat"], "allegiance": allegiance}})
    add_vp(state, player, "red", CONTENT.allegiances[allegiance]["red"], events)


PENDING_KINDS = {
    "trade_sell", "trade_buy", "trade_plate", "trade_confirm", "choose_option", "choose_cube", "build",
    "fulfill_contract", "hire_captain", "skip_action", "take_allegiance",
}


def apply_move(state: State, seat: int, move: Move, rng: Rng) -> Events:
    """Apply one legal move and run the game on to the next decision."""
    events: Events = []
    player = state["players"][seat]
    kind = next(iter(move))
    body = move[kind]
    if kind in PENDING_KINDS:
        _apply_pending(state, player, move, events)
    elif kind == "expand_warehouse":
        player["expansions"][body["token"]] = True
        player["money"] -= expansion_cost(body["token"])
        events.append({"warehouse_expanded": {"seat": seat, "token": body["token"]}})
    elif kind == "discard_resource":
        return_resource(state, player, body["resource"], 1)
        events.append({"resource_discarded": {"seat": seat, "resource": body["resource"]}})
    elif kind == "buy_ship":
        _buy_ship(state, player, body, events)
    elif kind == "pass_ships":
        player["ships_passed"] = True
        state["ship_turn"] = (seat + 1) % state["n"]
        events.append({"ships_passed": {"seat": seat}})
    elif kind == "worker_action":
        actions.take_worker_action(state, player, move, events)
        state["stage"] = "after"
    elif kind == "activate_captain":
        actions.activate_captain(state, player, body["captain"], events)
    elif kind == "end_turn":
        end_turn(state)
    elif kind == "prove_allegiance":
        pay(state, player, CONTENT.allegiances[player["allegiance"]]["condition"]["pay"])
        player["allegiance_done"] = True
        events.append({"allegiance_fulfilled": {"seat": seat, "allegiance": player["allegiance"]}})
    elif kind == "finish_final":
        player["final_done"] = True
    elif kind == "exchange_vp":
        player["money"] -= CONTENT.rules["end_game_exchange"]["coins"]
        player[body["colour"]] += CONTENT.rules["end_game_exchange"]["vp"]
        player["exchanged"][body["colour"]] += 1
        events.append({"vp_exchanged": {"seat": seat, "colour": body["colour"]}})
    elif kind == "finish_exchange":
        player["exchange_done"] = True
        events.append({"exchange_finished": {"seat": seat}})
    advance(state, rng, events)
    return events


def _buy_ship(state: State, player: Player, body: dict[str, int], events: Events) -> None:
    ship = body["ship"]
    player["money"] -= ship_price(player, ship)
    for slot in state["ships"]:
        if slot["id"] == ship:
            slot["taken"] = True
    events.append({"ship_bought": {"seat": player["seat"], "ship": ship, "row": body["row"]}})
    push_front(player, gain_tasks(CONTENT.ships[ship]["rows"][body["row"]]))
    state["ship_turn"] = (player["seat"] + 1) % state["n"]
