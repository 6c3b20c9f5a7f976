"""Tea & Rum's score estimate of an unfinished full state, for the search bot's depth-capped playouts
(:mod:`services.bots.evaluation`): each seat's standing on the scale of its final score, read from
the (determinized) full state the search plays on."""

from __future__ import annotations

from services.common.engine import State
from services.tea_rum.content import CONTENT
from services.tea_rum.scoring import allegiance_proven


def estimate(state: State) -> list[float]:
    """Blue and red VP, less what the gap cap would take, with a bonus for a proven allegiance."""
    limit = CONTENT.rules["vp_gap_cap"]["max_gap"]
    estimates = []
    for player in state["players"]:
        blue, red = player["blue"], player["red"]
        capped = min(blue, red + limit) + min(red, blue + limit)
        estimates.append(float(capped) + (8.0 if allegiance_proven(player) else 0.0))
    return estimates
