"""Each game's score estimate of an unfinished full state, for the search bot's depth-capped rollouts.

A rollout that stops before the end needs each seat's standing on the scale of its final
score; these read the (determinized) full state the search plays on, never a real game's
hidden parts. They are deliberately simple: the search's rollouts do the looking ahead.
"""

from __future__ import annotations

from collections.abc import Callable

from services.common.engine import State


def darjeeling(state: State) -> list[float]:
    """Points scored so far, less the half-crate penalty the tiles in hand would cost at the end."""
    from services.darjeeling.content import COSTS, TILES

    return [
        float(seat["score"] - COSTS.half_crate_penalty * sum(TILES[t].halves for t in seat["tiles"]))
        for seat in state["seats"]
    ]


def tea_rum(state: State) -> list[float]:
    """Blue and red VP, less what the gap cap would take, with a bonus for a proven allegiance."""
    from services.tea_rum.content import CONTENT
    from services.tea_rum.scoring import allegiance_proven

    limit = CONTENT.rules["vp_gap_cap"]["max_gap"]
    estimates = []
    for player in state["players"]:
        blue, red = player["blue"], player["red"]
        capped = min(blue, red + limit) + min(red, blue + limit)
        estimates.append(float(capped) + (8.0 if allegiance_proven(player) else 0.0))
    return estimates


def india_rails(state: State) -> list[float]:
    """Cash less debt (the score is cash; the winner is first to the target with connected cities)."""
    return [float(player["cash"] - player["debt"]) for player in state["players"]]


def alubari(state: State) -> list[float]:
    """The score sheet's total as if the game ended now."""
    from services.alubari.scoring import player_score

    return [float(player_score(state, seat)["total"]) for seat in range(state["n"])]


EVALUATIONS: dict[str, Callable[[State], list[float]]] = {
    "darjeeling": darjeeling,
    "tea_rum": tea_rum,
    "india_rails": india_rails,
    "alubari": alubari,
}
