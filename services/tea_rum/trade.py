"""The trade scale: sell from the warehouse on the left, buy from the game on the right.

A player may put every unit of one type on each upper plate: +$1 a unit sold (never
cannons), -$1 a unit bought (never wheat).  A type is never bought and sold in the
same trade.  Coins balance the two sides when the player confirms.
"""

from __future__ import annotations

from typing import Any

from services.tea_rum.content import CONTENT, RESOURCES
from services.tea_rum.effects import Events, State, Task, action_task, return_resource
from services.tea_rum.players import Player

Move = dict[str, Any]


def sell_value(task: Task) -> int:
    """What the left side is worth now, plate bonus included."""
    bonus = CONTENT.rules["trade"]["sell_plate_bonus"]
    total = sum(CONTENT.prices[r] * n for r, n in task["sell"].items())
    plate = task["sell_plate"]
    return total + (bonus * task["sell"].get(plate, 0) if plate else 0)


def buy_value(task: Task) -> int:
    """What the right side costs now, plate discount included."""
    discount = CONTENT.rules["trade"]["buy_plate_discount"]
    total = sum(CONTENT.prices[r] * n for r, n in task["buy"].items())
    plate = task["buy_plate"]
    return total - (discount * task["buy"].get(plate, 0) if plate else 0)


def balance(task: Task) -> int:
    """Coins the player must add to the left side (negative: coins the player receives)."""
    return buy_value(task) - sell_value(task)


def _unit_buy_price(task: Task, resource: str) -> int:
    plate_cut = CONTENT.rules["trade"]["buy_plate_discount"] if task["buy_plate"] == resource else 0
    return CONTENT.prices[resource] - plate_cut


def best_sale(player: Player, task: Task, buying: set[str]) -> int:
    """The left side's value if every unit still sellable were put on it (best plate)."""
    bonus = CONTENT.rules["trade"]["sell_plate_bonus"]
    units = {r: player["res"][r] for r in RESOURCES if r not in buying}
    total = sum(CONTENT.prices[r] * n for r, n in units.items())
    plate = task["sell_plate"]
    if plate:
        return total + bonus * units.get(plate, 0)
    eligible = [n for r, n in units.items() if r != CONTENT.rules["trade"]["no_sell_plate"]]
    return total + bonus * max(eligible, default=0)


def _can_afford_buy(player: Player, task: Task, resource: str) -> bool:
    """Adding ``resource`` keeps the trade payable, selling everything else if need be."""
    buying = {r for r, n in task["buy"].items() if n} | {resource}
    cost = buy_value(task) + _unit_buy_price(task, resource)
    return cost - best_sale(player, task, buying) <= player["money"]


def legal(state: State, player: Player, task: Task) -> list[Move]:
    """Every trade step open now: add one unit to a side, fill a plate, or confirm.

    The sides may be filled in any order; a unit may be bought while the coins and the
    resources still sellable can pay for it, and the trade is confirmed once balanced and
    not empty.  A trade gained from a card or the reputation track may always be declined with
    ``skip_action``; a worker row's trade only when nothing could go on the scale.
    """
    steps = [
        *_sell_steps(player, task),
        *_buy_steps(state, player, task),
        *_sell_plate_steps(player, task),
        *_buy_plate_steps(task),
        *_confirm_step(player, task),
    ]
    declinable = not steps or not task.get("from_row", False)
    return [*steps, {"skip_action": {}}] if declinable else steps


def empty(task: Task) -> bool:
    """Nothing is on either side of the scale."""
    return not any(task["sell"].values()) and not any(task["buy"].values())


def feasible(state: State, player: Player) -> bool:
    """Whether a new trade could put anything on the scale (sell a unit or afford one)."""
    task = action_task("trade", 0)
    return bool(_sell_steps(player, task) or _buy_steps(state, player, task))


def payable(player: Player, task: Task) -> bool:
    """The trade on the scale can still be balanced, selling everything else if need be."""
    buying = {r for r, n in task["buy"].items() if n}
    return buy_value(task) - best_sale(player, task, buying) <= player["money"]


def allows_discard(player: Player, task: Task, resource: str) -> bool:
    """A unit of ``resource`` may leave the warehouse mid-trade: not one on the scale, and the trade stays payable."""
    if player["res"][resource] - task["sell"].get(resource, 0) <= 0:
        return False
    res = {**player["res"], resource: player["res"][resource] - 1}
    return payable({**player, "res": res}, task)


def allows_spending(player: Player, task: Task, coins: int) -> bool:
    """``coins`` may be spent mid-trade (a warehouse expansion) if the trade stays payable."""
    return payable({**player, "money": player["money"] - coins}, task)


def _sell_steps(player: Player, task: Task) -> list[Move]:
    """One more unit from the warehouse onto the left side, for any type not being bought."""
    return [
        {"trade_sell": {"resource": r}}
        for r in RESOURCES
        if task["buy"].get(r, 0) == 0 and player["res"][r] - task["sell"].get(r, 0) > 0
    ]


def _buy_steps(state: State, player: Player, task: Task) -> list[Move]:
    """One more unit from the supply onto the right side, for any type not being sold, if payable."""
    return [
        {"trade_buy": {"resource": r}}
        for r in RESOURCES
        if not task["sell"].get(r, 0)
        and state["supply"][r] - task["buy"].get(r, 0) > 0
        and _can_afford_buy(player, task, r)
    ]


def _sell_plate_steps(player: Player, task: Task) -> list[Move]:
    """The sell plate for a type on the left side, while the plate is empty."""
    if task["sell_plate"]:
        return []
    buying = {r for r, n in task["buy"].items() if n}
    return [
        {"trade_plate": {"side": "sell", "resource": r}}
        for r in RESOURCES
        if task["sell"].get(r, 0)
        and r != CONTENT.rules["trade"]["no_sell_plate"]
        and _plate_keeps_trade_payable(player, task, r, buying)
    ]


def _plate_keeps_trade_payable(player: Player, task: Task, resource: str, buying: set[str]) -> bool:
    """The trade stays payable with ``resource`` on the sell plate, selling everything else if need be."""
    # Fixing the plate can lower the best sale still possible, so a payable trade could turn unpayable.
    return buy_value(task) - best_sale(player, {**task, "sell_plate": resource}, buying) <= player["money"]


def _buy_plate_steps(task: Task) -> list[Move]:
    """The buy plate for a type on the right side, while the plate is empty."""
    if task["buy_plate"]:
        return []
    return [
        {"trade_plate": {"side": "buy", "resource": r}}
        for r in RESOURCES
        if task["buy"].get(r, 0) and r != CONTENT.rules["trade"]["no_buy_plate"]
    ]


def _confirm_step(player: Player, task: Task) -> list[Move]:
    """Confirm once something is on the scale and the player's coins cover the balance."""
    return [{"trade_confirm": {}}] if not empty(task) and balance(task) <= player["money"] else []


def step(task: Task, move: Move) -> None:
    """Put one more thing on the scale."""
    if "trade_sell" in move:
        r = move["trade_sell"]["resource"]
        task["sell"][r] = task["sell"].get(r, 0) + 1
    elif "trade_buy" in move:
        r = move["trade_buy"]["resource"]
        task["buy"][r] = task["buy"].get(r, 0) + 1
    else:
        side = move["trade_plate"]["side"]
        task[f"{side}_plate"] = move["trade_plate"]["resource"]


def confirm(state: State, player: Player, task: Task, events: Events) -> None:
    """Balance with coins, take everything on the right, discard everything on the left."""
    owed = balance(task)
    player["money"] -= owed
    for r, n in task["sell"].items():
        return_resource(state, player, r, n)
    for r, n in task["buy"].items():
        state["supply"][r] -= n
        player["res"][r] += n
    events.append(
        {
            "traded": {
                "seat": player["seat"],
                "sold": counts(task["sell"]),
                "bought": counts(task["buy"]),
                "sell_plate": task["sell_plate"],
                "buy_plate": task["buy_plate"],
                "sell_value": sell_value(task),
                "buy_value": buy_value(task),
                "coins_paid": max(owed, 0),
                "coins_received": max(-owed, 0),
            }
        }
    )


def counts(partial: dict[str, int]) -> dict[str, int]:
    """A full ``Counts`` message from a partial resource map."""
    return {r: int(partial.get(r, 0)) for r in RESOURCES}
