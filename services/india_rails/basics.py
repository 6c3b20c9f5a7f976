"""Small rules several India Rails modules share: costs, loans, loco cards, the turn record, move kinds."""

from __future__ import annotations

from typing import Any

from services.common.engine import Event, Move, State
from services.india_rails import operations as ops
from services.india_rails.content import BOARD, COSTS, LOCO_CARDS, LOCOS

UPGRADE_COST = int(LOCOS["upgrade_cost"])
CROSSGRADE_COST = int(LOCOS["crossgrade_cost"])
LOAN_LIMIT = int(COSTS["loan_limit"])
MAX_OFFERS_PER_TURN = 3
WAREHOUSE_TURNS = 4


def loan_room(player: dict[str, Any]) -> int:
    """How much more a player may borrow: 20M outstanding at most (the debt is twice the loans)."""
    return LOAN_LIMIT - int(player["debt"]) // 2


def fresh_turn() -> dict[str, Any]:
    """An untouched record of what the current turn has done."""
    return {"spent": 0, "major_segments": 0, "upgraded": False, "crossgraded": False, "acted": False,
            "fees_paid": [], "moved_own": False, "dropped": [], "bought": False, "offers": 0}


def move_kind(move: Move) -> str:
    return next(iter(move)) if isinstance(move, dict) and len(move) == 1 else ""


# ---- backtracking (mercy rule) ---------------------------------------------------------------


def backtrack_fee_owner(owner: dict[int, int], seat: int, train: dict[str, Any]) -> int | None:
    """The opponent whose segment the train stands on (the one it last ran over), owed a use fee."""
    holder = owner.get(BOARD.edge_between(train["prev"], train["at"]))
    return holder if holder is not None and holder != seat else None


def may_backtrack(ctx: ops.OperationsContext, train: dict[str, Any]) -> bool:
    """Backtracking on an opponent's segment needs the cash for the fee, as any use of their track does."""
    if backtrack_fee_owner(ctx.owner, ctx.seat, train) is None:
        return True
    return ctx.player["cash"] >= ops.TRACK_FEE or bool(ctx.options["mercy_late_fees"])


# ---- loco cards --------------------------------------------------------------------------------


def loco_cards_left(state: State) -> dict[str, int]:
    """Loco cards of each type still with the bank (the 12 cards less those on the players' trains).

    The additional-trains variant deals second trains even beyond the cards, so a count may be
    below zero; an upgrade needs a card of the new type in the bank either way.
    """
    left = dict(LOCO_CARDS)
    for player in state["players"]:
        for train in player["trains"]:
            left[train["loco"]] -= 1
    return left


def unplaced(player: dict[str, Any]) -> bool:
    """Whether a train of the player has not been put on the board yet (his first turn to run)."""
    return any(train["at"] < 0 for train in player["trains"])


def repay(state: State, seat: int, player: dict[str, Any], events: list[Event]) -> None:
    """Repay the whole debt (twice the loans) once the cash covers it."""
    """The kind of a one-kind move, or "" for anything else."""
    if player["debt"] and player["cash"] >= player["debt"]:
        events.append({"loan_repaid": {"seat": seat, "amount": player["debt"]}})
        player["cash"] -= player["debt"]
        player["debt"] = 0

