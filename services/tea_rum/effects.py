"""Gains and the per-player queue of things still to resolve.

Every card, tile, track space and reward is an effect list, resolved left to right.
Each player has a ``pending`` queue of tasks: automatic gains are resolved at once by
:func:`settle`; a task that needs a decision (a ``/`` choice, a multicoloured cube, a
build/contract/captain/trade action, an allegiance card) stops the queue until the
player decides.  A warehouse that overflows stops the queue too: the player must
expand it or discard before anything else happens.
"""

from __future__ import annotations

from typing import Any

from services.tea_rum.content import ACTION_KINDS, CONTENT, CUBES, RESOURCES, Effects, Gain
from services.tea_rum.players import Player, condition_met, is_monotone, overflowing

State = dict[str, Any]
Task = dict[str, Any]
Events = list[dict[str, Any]]


def gain_tasks(effects: Effects) -> list[Task]:
    """Queue entries for an effect list, in resolution order."""
    return [{"task": "gain", "gain": g} for g in effects]


def push_front(player: Player, tasks: list[Task]) -> None:
    """Put ``tasks`` at the head of the player's queue (they resolve next, in order)."""
    player["pending"][0:0] = tasks


def vp_event(player: Player, colour: str, amount: int, secret: bool) -> dict[str, Any]:
    """The event of a victory-point gain (``secret`` once the chest is closed)."""
    return {"vp_gained": {"seat": player["seat"], "colour": colour, "amount": amount, "secret": secret}}


def add_vp(state: State, player: Player, colour: str, amount: int, events: Events) -> None:
    """Give VP; the 8th blue VP closes the chest and asks for an allegiance at once."""
    secret = player["chest"]
    player[colour] += amount
    events.append(vp_event(player, colour, amount, secret))
    if player["chest"] or player["blue"] < CONTENT.rules["chest_threshold"]["blue"]:
        return
    if state["phase"] in ("exchange", "over"):
        return
    player["chest"] = True
    events.append({"chest_closed": {"seat": player["seat"]}})
    if any(a for a in state["allegiances"] if a["taken_by"] < 0):
        push_front(player, [{"task": "allegiance"}])


def take_resource(state: State, player: Player, resource: str, amount: int, events: Events) -> int:
    """Move up to ``amount`` of ``resource`` from the supply to the player; returns how many came."""
    got = min(amount, state["supply"][resource])
    state["supply"][resource] -= got
    player["res"][resource] += got
    if got:
        events.append({"gained": {"seat": player["seat"], "kind": resource, "amount": got}})
    return got


def return_resource(state: State, player: Player, resource: str, amount: int) -> None:
    """Move resources from the player back to the supply."""
    player["res"][resource] -= amount
    state["supply"][resource] += amount


def pay(state: State, player: Player, cost: dict[str, int]) -> None:
    """Pay coins and resources of ``cost`` (already known affordable)."""
    for key, n in cost.items():
        if key == "coins":
            player["money"] -= n
        else:
            return_resource(state, player, key, n)


def apply_gain(state: State, player: Player, gain: Gain, events: Events) -> None:
    """Resolve one automatic gain, or queue the decisions it opens."""
    kind, amount = gain["kind"], gain["amount"]
    seat = player["seat"]
    if kind == "coins":
        player["money"] += amount
        events.append({"gained": {"seat": seat, "kind": "coins", "amount": amount}})
    elif kind in RESOURCES:
        take_resource(state, player, kind, amount, events)
    elif kind in ("blue", "red"):
        add_vp(state, player, kind, amount, events)
    elif kind == "population":
        top = CONTENT.rules["population"]["max"]
        player["population"] = min(top, player["population"] + amount)
        events.append({"gained": {"seat": seat, "kind": "population", "amount": amount}})
    elif kind == "stars":
        push_front(player, [{"task": "rep_step"} for _ in range(amount)])
    elif kind == "any_cube":
        push_front(player, [{"task": "any_cube"} for _ in range(amount)])
    elif kind == "choice":
        push_front(player, [{"task": "choose", "options": gain["options"]}])
    elif kind in ACTION_KINDS:
        push_front(player, [action_task(kind, amount)])


def action_task(kind: str, discount: int, from_row: bool = False) -> Task:
    """A queued build/contract/captain/trade action (``discount`` in cubes or coins).

    ``from_row`` marks a trade that is a worker row's action: unlike a trade gained from a card
    or the reputation track, it cannot be skipped while something could go on the scale.
    """
    if kind == "trade":
        return {"task": "trade", "sell": {}, "buy": {}, "sell_plate": "", "buy_plate": "", "from_row": from_row}
    return {"task": kind, "discount": discount}


def reputation_step(state: State, player: Player, events: Events) -> None:
    """Advance one space on the reputation track and queue that space's reward first."""
    if player["reputation"] >= CONTENT.reputation_max:
        return
    player["reputation"] += 1
    step = player["reputation"]
    events.append({"reputation_advanced": {"seat": player["seat"], "step": step}})
    push_front(player, gain_tasks(CONTENT.reputation[step]))


def _cube_available(state: State) -> bool:
    return any(state["supply"][c] > 0 for c in CUBES)


def _moot(state: State, kind: str) -> bool:
    """A decision nobody can make: no cube left in the supply, no allegiance card left."""
    if kind == "any_cube":
        return not _cube_available(state)
    if kind == "allegiance":
        return not any(a["taken_by"] < 0 for a in state["allegiances"])
    return False


def settle(state: State, player: Player, events: Events) -> bool:
    """Resolve automatic tasks; True when nothing is left for this player to decide."""
    queue = player["pending"]
    while True:
        if overflowing(player):
            return False
        if not queue:
            return True
        task = queue[0]
        kind = task["task"]
        if kind == "gain":
            queue.pop(0)
            apply_gain(state, player, task["gain"], events)
        elif kind == "rep_step":
            queue.pop(0)
            reputation_step(state, player, events)
        elif _moot(state, kind):
            queue.pop(0)
        else:
            return False


def check_allegiances(state: State, events: Events) -> None:
    """Flip allegiance cards whose lasting condition is now met."""
    for player in state["players"]:
        if not player["allegiance"] or player["allegiance_done"]:
            continue
        condition = CONTENT.allegiances[player["allegiance"]]["condition"]
        if is_monotone(condition) and condition_met(player, condition):
            player["allegiance_done"] = True
            events.append({"allegiance_fulfilled": {"seat": player["seat"], "allegiance": player["allegiance"]}})
