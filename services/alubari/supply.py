"""Moving components between players, the general supply, the bag and the chai track."""

from __future__ import annotations

from typing import Any

State = dict[str, Any]
Events = list[dict[str, Any]]

BAG_RESOURCES = ("iron_ore", "stone")
SUPPLY_RESOURCES = ("rubble", "steel", "tea_leaves")


def pay(state: State, seat: int, cost: dict[str, int]) -> None:
    """Pay a cost: iron ore and stone go into the bag, rubble/steel/leaves to the supply, chai off the track."""
    player = state["players"][seat]
    for resource, amount in cost.items():
        player[resource] -= amount
        if resource in BAG_RESOURCES:
            state["bag"][resource] += amount
        elif resource in SUPPLY_RESOURCES:
            state["supply"][resource] += amount


def gain_chai(state: State, seat: int, amount: int) -> int:
    """Move the seat's chai marker forward; spaces past the last open one are lost.  Returns the gain."""
    player = state["players"][seat]
    gained = max(0, min(amount, state["chai_max"] - player["chai"]))
    player["chai"] += gained
    return gained


def gain_from_supply(state: State, seat: int, resource: str, amount: int) -> int:
    """Take up to ``amount`` rubble, steel or tea leaves from the general supply.  Returns the gain."""
    if resource == "chai":
        return gain_chai(state, seat, amount)
    gained = max(0, min(amount, state["supply"][resource]))
    state["supply"][resource] -= gained
    state["players"][seat][resource] += gained
    return gained


def markers_placed(state: State, seat: int, count: int) -> None:
    """Book ``count`` ownership markers leaving the seat's supply; note the solo and 2-player endings."""
    player = state["players"][seat]
    player["markers"] -= count
    if count and player["markers"] == 0 and state["n"] <= 2 and state["ending"]["out_of_markers"] < 0:
        state["ending"]["out_of_markers"] = seat
