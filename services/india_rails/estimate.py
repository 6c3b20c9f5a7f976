"""India Rails' score estimate of an unfinished full state, for the search bot's depth-capped playouts
(:mod:`services.bots.evaluation`): each seat's standing on the scale of its final score, read from
the (determinized) full state the search plays on."""

from __future__ import annotations

from typing import Any

from services.common.engine import State
from services.india_rails.content import BOARD, DEMAND_CARDS
from services.india_rails.operations import demand_matches


def estimate(state: State) -> list[float]:
    """Each seat's assets: cash less debt, plus what its track, train and matching loads are worth.

    The score is cash at the end, but a short playout ends mid-plan: track built and a train
    upgraded have turned cash into the means of earning it, and a load on the train that one of
    the seat's demand cards wants is most of a payout. Valuing only cash made every move that
    spends or defers money (building, upgrading, carrying a load onward) look worse than doing
    nothing, and the search played worse than its heuristic. Reads only the (determinized) state.
    """
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
