"""Each game's score estimate of an unfinished full state, for the search bot's depth-capped rollouts.

A rollout that stops before the end needs each seat's standing on the scale of its final
score; these read the (determinized) full state the search plays on, never a real game's
hidden parts. They are deliberately simple: the search's rollouts do the looking ahead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    """Each seat's assets: cash less debt, plus what its track, train and matching loads are worth.

    The score is cash at the end, but a short playout ends mid-plan: track built and a train
    upgraded have turned cash into the means of earning it, and a load on the train that one of
    the seat's demand cards wants is most of a payout. Valuing only cash made every move that
    spends or defers money (building, upgrading, carrying a load onward) look worse than doing
    nothing, and the search played worse than its heuristic. Reads only the (determinized) state.
    """
    from services.india_rails.content import BOARD

    return [
        float(player["cash"] - player["debt"])
        + TRACK_VALUE * sum(min(BOARD.build_cost[eid]) for eid in player["track"])
        + sum(LOCO_VALUE[train["loco"]] for train in player["trains"])
        + _loads_value(player)
        for player in state["players"]
    ]


# India Rails: the share of its building cost that laid track is worth mid-game (it earns use
# fees and carries loads, but track off the plan is money gone), what an upgraded loco is
# worth (its 20M upgrade cost per step), and the share of a matching demand's payout a
# carried load is worth (it still has to reach the city).
TRACK_VALUE = 0.5
LOCO_VALUE = {"freight": 0.0, "fast_freight": 20.0, "heavy_freight": 20.0, "super_freight": 40.0}
LOAD_SHARE = 0.5


def _loads_value(player: dict[str, Any]) -> float:
    """The best payout share of the seat's demand cards for its carried loads, each card used once."""
    from services.india_rails.content import DEMAND_CARDS
    from services.india_rails.operations import demand_matches

    cards = list(player["hand"])
    value = 0.0
    for train in player["trains"]:
        for load in train["loads"]:
            offers = [
                (demand["payout"], card)
                for card in cards
                for demand in DEMAND_CARDS[card]["demands"]
                if demand_matches(demand, load, demand["city"])
            ]
            if offers:
                payout, card = max(offers)
                cards.remove(card)
                value += LOAD_SHARE * payout
    return value


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
