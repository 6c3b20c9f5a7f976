"""What a legal move costs, said before it is made (:meth:`services.common.engine.Engine.move_costs`)."""

from __future__ import annotations

from typing import Any

from services.common.engine import Move
from services.india_rails.basics import CROSSGRADE_COST, UPGRADE_COST
from services.india_rails.content import BOARD


def move_costs(move: Move) -> list[dict[str, Any]]:
    """A segment's build price, an upgrade's or a crossgrade's (millions); a backtrack's turn; else nothing."""
    if "build_track" in move:
        body = move["build_track"]
        end = body["to_milepost"]
        return [{"what": "money", "amount": BOARD.cost_into(BOARD.edge_between(body["from_milepost"], end), end)}]
    if "upgrade_train" in move:
        return [{"what": "money", "amount": UPGRADE_COST}]
    if "crossgrade_train" in move:
        return [{"what": "money", "amount": CROSSGRADE_COST}]
    if "backtrack" in move:  # mercy backtracking is the turn's first act and ends it
        return [{"what": "turn", "amount": 1}]
    return []
