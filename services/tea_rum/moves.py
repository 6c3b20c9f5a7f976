"""Legal moves and their application: the atomic decisions of Tea & Rum."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.rng import Rng
from services.tea_rum import actions, trade
from services.tea_rum.content import CONTENT, CUBES, RESOURCES
from services.tea_rum.effects import Events, State, add_vp, gain_tasks, pay, push_front, return_resource
from services.tea_rum.players import (
    Player,
    activatable_captains,
    can_prove_by_paying,
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


def exchange_moves(player: Player) -> list[Move]:
    """Every way to split the secret exchange: ``blue`` + ``red`` times $10, within the player's money."""
    most = player["money"] // CONTENT.rules["end_game_exchange"]["coins"]
    return [{"exchange_vp": {"blue": b, "red": r}} for b in range(most + 1) for r in range(most + 1 - b)]


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every legal atomic decision of ``seat`` now."""
    if seat not in to_act(state):
        return []
    player = state["players"][seat]
    if state["phase"] == "exchange":
        return exchange_moves(player)
    if overflowing(player):
        discards = [{"discard_resource": {"resource": r}} for r in RESOURCES if player["res"][r] > 0]
        return _expansions(player) + discards
    return _decision_moves(state, player) + _warehouse_moves(player)


def _decision_moves(state: State, player: Player) -> list[Move]:
    """The moves of the decision the player holds, before the warehouse moves open at any time."""
    if player["pending"]:
        return _pending_moves(state, player)
    phase = state["phase"]
    if phase == "ships":
        buys = [
            {"buy_ship": {"ship": s, "row": r}}
            for s in affordable_ships(state, player)
            for r in range(len(CONTENT.ships[s]["rows"]))
        ]
        return [*buys, {"pass_ships": {}}]
    if phase == "actions":
        if state["stage"] == "choose":
            return actions.worker_moves(state, player["seat"]) + _activations(player)
        return [*_activations(player), {"end_turn": {}}]
    if state["stage"] == "captains":
        return [*_activations(player), {"finish_final": {}}]
    prove: list[Move] = [{"prove_allegiance": {}}] if can_prove_by_paying(player) else []
    return [*prove, {"finish_final": {}}]


def _warehouse_moves(player: Player) -> list[Move]:
    """Expanding and discarding, open whenever the player decides (mid-trade: if the trade stays payable)."""
    task = player["pending"][0] if player["pending"] else None
    if task is not None and task["task"] == "trade":
        expansions = [m for m in _expansions(player) if trade.allows_spending(
            player, task, expansion_cost(m["expand_warehouse"]["token"]))]
        held = [r for r in RESOURCES if trade.allows_discard(player, task, r)]
    else:
        expansions = _expansions(player)
        held = [r for r in RESOURCES if player["res"][r] > 0]
    return expansions + [{"discard_resource": {"resource": r}} for r in held]


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

Handler = Callable[[State, Player, Move, Events], None]


def apply_move(state: State, seat: int, move: Move, rng: Rng) -> Events:
    """Apply one legal move and run the game on to the next decision."""
    events: Events = []
    player = state["players"][seat]
    kind = next(iter(move))
    # Answers to the task at the head of the queue share one handler: each steps or pops that task.
    handler = _apply_pending if kind in PENDING_KINDS else _HANDLERS.get(kind)
    if handler is not None:
        handler(state, player, move, events)
    advance(state, rng, events)
    return events


def _expand_warehouse(state: State, player: Player, move: Move, events: Events) -> None:
    """Buy one warehouse expansion token."""
    token = move["expand_warehouse"]["token"]
    player["expansions"][token] = True
    player["money"] -= expansion_cost(token)
    events.append({"warehouse_expanded": {"seat": player["seat"], "token": token}})


def _discard_resource(state: State, player: Player, move: Move, events: Events) -> None:
    """Return one unit of an overflowing warehouse to the supply."""
    resource = move["discard_resource"]["resource"]
    return_resource(state, player, resource, 1)
    events.append({"resource_discarded": {"seat": player["seat"], "resource": resource}})


def _pass_ships(state: State, player: Player, move: Move, events: Events) -> None:
    """Leave the ship phase; the next seat buys or passes."""
    player["ships_passed"] = True
    state["ship_turn"] = (player["seat"] + 1) % state["n"]
    events.append({"ships_passed": {"seat": player["seat"]}})


def _take_worker_action(state: State, player: Player, move: Move, events: Events) -> None:
    """Place or remove a worker on an action board and take its row."""
    actions.take_worker_action(state, player, move, events)
    state["stage"] = "after"


def _activate_captain(state: State, player: Player, move: Move, events: Events) -> None:
    """Pay a face-up captain's cannons for its reward."""
    actions.activate_captain(state, player, move["activate_captain"]["captain"], events)


def _end_turn(state: State, player: Player, move: Move, events: Events) -> None:
    """Hand the action phase on to the next worker."""
    end_turn(state)


def _prove_allegiance(state: State, player: Player, move: Move, events: Events) -> None:
    """Fulfil an allegiance whose condition is a payment."""
    pay(state, player, CONTENT.allegiances[player["allegiance"]]["condition"]["pay"])
    player["allegiance_done"] = True
    events.append({"allegiance_fulfilled": {"seat": player["seat"], "allegiance": player["allegiance"]}})


def _finish_final(state: State, player: Player, move: Move, events: Events) -> None:
    """Done activating captains and proving allegiance after the last round."""
    player["final_done"] = True


def _exchange_vp(state: State, player: Player, move: Move, events: Events) -> None:
    """The seat's whole secret exchange at once: $10 for 1 VP, ``blue`` and ``red`` times.

    One move and the same two events whatever the counts (the second is the owner's only),
    so nobody else can count the VP bought from versions or event ids.
    """
    exchange = CONTENT.rules["end_game_exchange"]
    counts = {c: move["exchange_vp"][c] for c in ("blue", "red")}
    for colour, times in counts.items():
        player["money"] -= exchange["coins"] * times
        player[colour] += exchange["vp"] * times
        player["exchanged"][colour] += times
    player["exchange_done"] = True
    events.append({"exchange_finished": {"seat": player["seat"]}})
    events.append({"vp_exchanged": {"seat": player["seat"], **counts}})


def _buy_ship(state: State, player: Player, move: Move, events: Events) -> None:
    """Buy a ship, take one of its rows, and pass the ship turn on."""
    body = move["buy_ship"]
    ship = body["ship"]
    player["money"] -= ship_price(player, ship)
    for slot in state["ships"]:
        if slot["id"] == ship:
            slot["taken"] = True
    events.append({"ship_bought": {"seat": player["seat"], "ship": ship, "row": body["row"]}})
    push_front(player, gain_tasks(CONTENT.ships[ship]["rows"][body["row"]]))
    state["ship_turn"] = (player["seat"] + 1) % state["n"]


_HANDLERS: dict[str, Handler] = {
    "expand_warehouse": _expand_warehouse,
    "discard_resource": _discard_resource,
    "buy_ship": _buy_ship,
    "pass_ships": _pass_ships,
    "worker_action": _take_worker_action,
    "activate_captain": _activate_captain,
    "end_turn": _end_turn,
    "prove_allegiance": _prove_allegiance,
    "finish_final": _finish_final,
    "exchange_vp": _exchange_vp,
}
