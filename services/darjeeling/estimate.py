"""Darjeeling's score estimate of an unfinished full state, for the search bot's depth-capped playouts
(:mod:`services.bots.evaluation`): each seat's standing on the scale of its final score, read from
the (determinized) full state the search plays on."""

from __future__ import annotations

from services.common.engine import State
from services.darjeeling.content import COSTS, TILES


def estimate(state: State) -> list[float]:
    """Points scored so far, less the half-crate penalty the tiles in hand would cost at the end."""
    return [
        float(seat["score"] - COSTS.half_crate_penalty * sum(TILES[t].halves for t in seat["tiles"]))
        for seat in state["seats"]
    ]
