"""Alubari's score estimate of an unfinished full state, for the search bot's depth-capped playouts
(:mod:`services.bots.evaluation`): each seat's standing on the scale of its final score, read from
the (determinized) full state the search plays on."""

from __future__ import annotations

from services.alubari.scoring import player_score
from services.common.engine import State


def estimate(state: State) -> list[float]:
    """The score sheet's total as if the game ended now."""
    return [float(player_score(state, seat)["total"]) for seat in range(state["n"])]
