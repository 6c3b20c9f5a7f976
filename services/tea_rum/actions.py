"""The action phase: workers on the four action boards, and the four kinds of action
(trade, build, contract, captain) with captain activations between them."""

from __future__ import annotations

from itertools import product
from typing import Any

from services.tea_rum import trade
from services.tea_rum.content import ACTION_KINDS, BOARD_IDS, CONTENT, CUBES, Effects
from services.tea_rum.effects import Events, State, Task, action_task, gain_tasks, pay, push_front
from services.tea_rum.players import Player, can_pay, continuous

Move = dict[str, Any]
AUTOMA = -1


def board_key(state: State) -> str:
    """Which side of the boards is in use: ``"4"`` or ``"23"``."""
    return "4" if state["n"] == 4 else "23"


def capacity(state: State) -> int:
    """Workers one action board can hold."""
    return int(CONTENT.rules["board_capacity"][str(state["n"])])


def placing(state: State) -> bool:
    """Even rounds place workers; odd rounds remove them."""
    return state["round"] % 2 == 0


def row_options(state: State, board: int, row: int) -> list[Effects]:
    """The options of row ``row`` (1 = one worker) of board ``board``: one, or two for a ``/``."""
    tile = CONTENT.tiles[state["boards"][board]["tiles"][row - 1]]
    face = tile["four"] if state["n"] == 4 else tile["two_three"]
    return list(face or [])


def worker_row(state: State, board: int) -> int:
    """The row a worker would use on ``board`` now (count before removing / after placing)."""
    count = len(state["boards"][board]["workers"])
    return count + 1 if placing(state) else count


def board_open(state: State, who: int, board: int) -> bool:
    """Whether ``who`` (a seat, or the automa) may place on / remove from ``board`` now."""
    workers = state["boards"][board]["workers"]
    if placing(state):
        return len(workers) < capacity(state)
    return who in workers


def worker_moves(state: State, seat: int) -> list[Move]:
    """Every worker the seat may place/remove, with each row option it can carry out and the alternative."""
    player = state["players"][seat]
    moves: list[Move] = []
    for b, board_id in enumerate(BOARD_IDS):
        if not board_open(state, seat, b):
            continue
        options = row_options(state, b, worker_row(state, b))
        for i, effects in enumerate(options):
            if option_feasible(state, player, effects):
                moves.append({"worker_action": {"board": board_id, "option": i, "alternative": False}})
        moves.append({"worker_action": {"board": board_id, "option": 0, "alternative": True}})
    return moves


def option_feasible(state: State, player: Player, effects: Effects) -> bool:
    """Every action icon of a row option could be carried out now (the action is each row's first icon)."""
    return all(action_feasible(state, player, g["kind"], g["amount"]) for g in effects if g["kind"] in ACTION_KINDS)


def action_feasible(state: State, player: Player, kind: str, discount: int) -> bool:
    """Whether a trade/build/contract/captain action has anything it could do besides being skipped."""
    if kind == "trade":
        return trade.feasible(state, player)
    task = action_task(kind, discount)
    if kind == "build":
        offered = build_moves(state, player, task)
    elif kind == "contract":
        offered = contract_moves(state, player)
    else:
        offered = captain_moves(state, player, task)
    return len(offered) > 1  # skip_action is always offered as well


def move_worker(state: State, who: int, board: int, events: Events) -> int:
    """Place or remove one worker of ``who``; returns the row that applies."""
    row = worker_row(state, board)
    workers = state["boards"][board]["workers"]
    if placing(state):
        workers.append(who)
    else:
        workers.remove(who)
    events.append(
        {"worker_moved": {"seat": who, "board": BOARD_IDS[board], "row": row, "placed": placing(state)}}
    )
    return row


def take_worker_action(state: State, player: Player, move: Move, events: Events) -> None:
    """Move the worker and queue its action(s) left to right (plus the Palace bonus)."""
    spec = move["worker_action"]
    b = BOARD_IDS.index(spec["board"])
    row = move_worker(state, player["seat"], b, events)
    board = CONTENT.boards[b]
    if spec["alternative"]:
        tasks = gain_tasks(board["alternative"])
    else:
        tasks = _row_tasks(row_options(state, b, row)[spec["option"]])
    bonus = continuous(player, "governor_blue")
    if board["fountain"] and bonus:
        tasks += gain_tasks([{"kind": "blue", "amount": bonus, "options": []}])
    push_front(player, tasks)


def _row_tasks(effects: Effects) -> list[Task]:
    """A row option's queue entries: its trade is queued as the row's own (see :func:`trade.legal`)."""
    return [
        action_task("trade", 0, from_row=True) if g["kind"] == "trade" else {"task": "gain", "gain": g}
        for g in effects
    ]


# ---- build -----------------------------------------------------------------------


def _waivers(cost: dict[str, int], discount: int) -> list[dict[str, int]]:
    """Every way to leave out ``discount`` cubes of a cost (all of them if it is smaller)."""
    cubes = {c: cost.get(c, 0) for c in CUBES}
    total = min(discount, sum(cubes.values()))
    out = []
    for combo in product(*(range(cubes[c] + 1) for c in CUBES)):
        if sum(combo) == total:
            out.append(dict(zip(CUBES, combo, strict=True)))
    return out


def build_moves(state: State, player: Player, task: Task) -> list[Move]:
    """Every building the player may build now, with each way of using a cube discount."""
    discount = task["discount"] + continuous(player, "build_discount")
    moves: list[Move] = []
    for bid in CONTENT.building_order:
        if state["buildings"].get(bid, 0) <= 0 or bid in player["buildings"]:
            continue
        cost = CONTENT.buildings[bid]["cost"]
        for waive in _waivers(cost, discount):
            due = {c: cost.get(c, 0) - waive[c] for c in CUBES}
            if can_pay(player, due):
                moves.append({"build": {"building": bid, **{f"waive_{c}": waive[c] for c in CUBES}}})
    moves.append({"skip_action": {}})
    return moves


def build(state: State, player: Player, move: Move, events: Events) -> None:
    """Pay, take the building, and queue its VP and instantaneous effects."""
    spec = move["build"]
    bid = spec["building"]
    card = CONTENT.buildings[bid]
    due = {c: card["cost"].get(c, 0) - spec[f"waive_{c}"] for c in CUBES}
    pay(state, player, {c: n for c, n in due.items() if n})
    state["buildings"][bid] -= 1
    player["buildings"].append(bid)
    events.append({"built": {"seat": player["seat"], "building": bid}})
    push_front(player, gain_tasks(card["vp"] + card["instant"]))


# ---- contracts -------------------------------------------------------------------


def contract_moves(state: State, player: Player) -> list[Move]:
    """Every contract on the board the player can pay, in either colour."""
    moves: list[Move] = []
    for space, cid in enumerate(state["contracts"]):
        if cid and can_pay(player, CONTENT.contracts[cid]["cost"]):
            moves.append({"fulfill_contract": {"space": space, "colour": "blue"}})
            moves.append({"fulfill_contract": {"space": space, "colour": "red"}})
    moves.append({"skip_action": {}})
    return moves


def fulfil_contract(state: State, player: Player, move: Move, events: Events) -> None:
    """Pay the contract, gain its VP in the chosen colour and the bonus of its space."""
    spec = move["fulfill_contract"]
    space, colour = spec["space"], spec["colour"]
    cid = state["contracts"][space]
    card = CONTENT.contracts[cid]
    pay(state, player, card["cost"])
    state["contracts"][space] = 0
    player["contracts"].append(cid)
    events.append(
        {"contract_fulfilled": {"seat": player["seat"], "contract": cid, "space": space,
                                "colour": colour, "secret": player["chest"]}}
    )
    bonus: Effects = [{"kind": colour, "amount": card[colour], "options": []}]
    bonus += CONTENT.rules["contract_spaces"][board_key(state)][space]
    stars = continuous(player, "contract_stars")
    if stars:
        bonus.append({"kind": "stars", "amount": stars, "options": []})
    push_front(player, gain_tasks(bonus))


# ---- captains --------------------------------------------------------------------


def captain_cost(player: Player, captain: int, discount: int) -> dict[str, int]:
    """What hiring ``captain`` costs this player (coin discounts never go below zero)."""
    cost = dict(CONTENT.captains[captain]["cost"])
    cut = discount + continuous(player, "captain_discount")
    if "coins" in cost:
        cost["coins"] = max(0, cost["coins"] - cut)
    return cost


def captain_moves(state: State, player: Player, task: Task) -> list[Move]:
    """Every displayed captain the player can afford."""
    moves: list[Move] = [
        {"hire_captain": {"captain": cid}}
        for cid in state["captains"]
        if can_pay(player, captain_cost(player, cid, task["discount"]))
    ]
    moves.append({"skip_action": {}})
    return moves


def hire_captain(state: State, player: Player, task: Task, move: Move, events: Events) -> None:
    """Pay, take the captain (face up if it wants cannons) and queue its instant effect."""
    cid = move["hire_captain"]["captain"]
    card = CONTENT.captains[cid]
    pay(state, player, captain_cost(player, cid, task["discount"]))
    state["captains"].remove(cid)
    player["captains"].append({"id": cid, "face_up": card["cannons"] > 0})
    events.append({"captain_hired": {"seat": player["seat"], "captain": cid}})
    push_front(player, gain_tasks(card["instant"]))


def activate_captain(state: State, player: Player, captain: int, events: Events) -> None:
    """Pay the captain's cannons, flip it face down and queue its reward (not an action)."""
    card = CONTENT.captains[captain]
    for held in player["captains"]:
        if held["id"] == captain:
            held["face_up"] = False
    pay(state, player, {"cannon": card["cannons"]})
    events.append({"captain_activated": {"seat": player["seat"], "captain": captain}})
    push_front(player, gain_tasks(card["reward"]))
