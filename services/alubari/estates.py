"""Tea Estates: excavating their rubble, owning and borrowing their spaces."""

from __future__ import annotations

from typing import Any

from services.alubari.railway import GAME
from services.alubari.supply import markers_placed

State = dict[str, Any]
Events = list[dict[str, Any]]


def harvesting_spaces(state: State, seat: int) -> int:
    """Estate spaces that earn ``seat`` tea in a harvest: those it owns or has borrowed."""
    return sum(1 for e in state["estates"] for s in e["spaces"] if seat in (s["owner"], s["borrower"]))


def rubble_left(state: State) -> int:
    """Rubble still covering the estates."""
    return sum(s["rubble"] for e in state["estates"] for s in e["spaces"])


def excavate(state: State, owner: int, amount: int, events: Events) -> int:
    """Remove up to ``amount`` rubble from the leftmost covered estate spaces for ``owner``.

    A seat keeps the rubble; the game returns it to the supply.  Returns how much was removed.
    """
    removed = 0
    cleared: list[int] = []
    flat_index = -1
    for estate in state["estates"]:
        for space in estate["spaces"]:
            flat_index += 1
            while space["rubble"] > 0 and removed < amount:
                space["rubble"] -= 1
                removed += 1
                if space["rubble"] == 0:
                    _claim_space(state, space, owner)
                    cleared.append(flat_index)
    if owner >= 0:
        state["players"][owner]["rubble"] += removed
    else:
        state["supply"]["rubble"] += removed
    if removed:
        events.append({"excavated": {"owner": owner, "rubble": removed, "cleared_spaces": cleared}})
    return removed


def _claim_space(state: State, space: dict[str, Any], owner: int) -> None:
    if owner >= 0:
        if state["players"][owner]["markers"] > 0:
            space["owner"] = owner
            markers_placed(state, owner, 1)
        return
    if state["supply"]["game_markers"] > 0:
        state["supply"]["game_markers"] -= 1
        space["owner"] = GAME


def borrow_game_estates(state: State, seat: int, count: int) -> int:
    """Put the seat's markers on the leftmost game-owned estate spaces nobody has borrowed yet."""
    borrowed = 0
    for estate in state["estates"]:
        for space in estate["spaces"]:
            if borrowed >= count or state["players"][seat]["markers"] <= 0:
                return borrowed
            if space["owner"] == GAME and space["borrower"] < 0:
                space["borrower"] = seat
                markers_placed(state, seat, 1)
                borrowed += 1
    return borrowed
