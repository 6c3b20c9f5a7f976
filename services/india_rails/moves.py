"""Whose decision it is, every legal move, and applying one through the handler table."""

from __future__ import annotations

from services.common.engine import Event, Move, State
from services.common.rng import Rng
from services.india_rails import basics, turns
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.basics import CROSSGRADE_COST, MAX_OFFERS_PER_TURN, UPGRADE_COST
from services.india_rails.content import (
    BOARD,
    LOCOS,
    MAJOR_MILEPOSTS,
)
from services.india_rails.handlers import HANDLERS

PROGRESS_KINDS = frozenset({"deliver", "build_track", "upgrade_train", "crossgrade_train"})

# ---- track trading (challenge game) ----------------------------------------------------------


def _may_offer_track(state: State) -> bool:
    """Offers are a turn's alternative to building or upgrading, and limited to three a turn."""
    turn = state["turn"]
    if not state["options"]["track_trading"] or turn["spent"] or turn["upgraded"] or turn["crossgraded"]:
        return False
    return turn["offers"] < MAX_OFFERS_PER_TURN


def _segments_by_milepost(track: list[int]) -> dict[int, list[int]]:
    """Own segments at each milepost: what a swap may give for a segment touching it."""
    by_node: dict[int, list[int]] = {}
    for eid in track:
        for m in BOARD.edges[eid]:
            by_node.setdefault(m, []).append(eid)
    return by_node


def _purchase_offers(seller: int, eid: int, cash: int) -> list[Move]:
    """Cash offers for a segment: the buyer names any whole number of millions he holds."""
    a, b = BOARD.edges[eid]
    return [{"offer_track": {"seller": seller, "a": a, "b": b, "price": amount, "give_a": -1, "give_b": -1}}
            for amount in range(1, cash + 1)]


def _swap_offers(seller: int, eid: int, own_by_node: dict[int, list[int]]) -> list[Move]:
    """Even swaps: any own segment sharing a milepost with the wanted one."""
    a, b = BOARD.edges[eid]
    moves: list[Move] = []
    for give in sorted(set(own_by_node.get(a, []) + own_by_node.get(b, []))):
        ga, gb = BOARD.edges[give]
        moves.append({"offer_track": {"seller": seller, "a": a, "b": b, "price": 0, "give_a": ga, "give_b": gb}})
    return moves


# ---- explaining refusals -------------------------------------------------------------------


def to_act(state: State) -> list[int]:
    """The current player, or the seat owing a choice (lost load, track offer)."""
    if state["over"]:
        return []
    if state["pending"]:
        return [state["pending"][0]["seat"]]
    if state["phase"] == "offer":
        return [state["offer"]["seller"]]
    return [state["current"]]

# ---- legal moves ------------------------------------------------------------


def legal_moves(state: State, seat: int) -> list[Move]:
    """Every atomic decision ``seat`` may take now."""
    if seat not in to_act(state):
        return []
    if state["pending"]:
        choice = state["pending"][0]
        train = state["players"][seat]["trains"][choice["train"]]
        return [{"choose_lost_load": {"train": choice["train"], "slot": s}} for s in ops.distinct_slots(train)]
    phase = state["phase"]
    if phase == "offer":
        return [{"answer_offer": {"accept": True}}, {"answer_offer": {"accept": False}}]
    if phase == "initial_discard":
        return [{"discard_demand": {"card": c}} for c in state["players"][seat]["hand"]]
    if phase == "operations":
        return operation_moves(state, seat)
    return build_moves(state, seat)


def operation_moves(state: State, seat: int) -> list[Move]:
    ctx = ops.OperationsContext(state, seat)
    moves: list[Move] = []
    if basics.unplaced(ctx.player):
        # A train starts the game in a city of the player's choice: placing it opens his first turn.
        for t, train in enumerate(ctx.player["trains"]):
            moves += ops.placement_moves(ctx, t, train)
        return moves if state["turn"]["acted"] else [*moves, {"discard_hand": {}}]
    for t, train in enumerate(ctx.player["trains"]):
        moves += ops.delivery_moves(ctx, t, train)
        moves += ops.pickup_moves(ctx, t, train)
        moves += ops.drop_moves(ctx, t, train)
        moves += ops.movement_moves(ctx, t, train)
    turn = state["turn"]
    if not turn["acted"]:
        moves.append({"discard_hand": {}})
        if state["options"]["mercy_backtracking"]:
            moves += [{"backtrack": {"train": t}} for t, train in enumerate(ctx.player["trains"])
                      if train["at"] >= 0 and train["prev"] >= 0 and basics.may_backtrack(ctx, train)]
    moves += loan_moves(state, seat)
    moves.append({"end_operations": {}})
    return moves


def build_moves(state: State, seat: int) -> list[Move]:
    turn = state["turn"]
    moves: list[Move] = []
    if not turn["upgraded"] and not turn["bought"]:
        ctx = tracks.BuildContext(state, seat)
        moves += [{"build_track": {"from_milepost": a, "to_milepost": b}} for a, b in tracks.build_options(ctx)]
    moves += upgrade_moves(state, seat)
    moves += offer_moves(state, seat)
    moves += loan_moves(state, seat)
    moves.append({"end_turn": {}})
    return moves


def upgrade_moves(state: State, seat: int) -> list[Move]:
    turn = state["turn"]
    player = state["players"][seat]
    moves: list[Move] = []
    can_upgrade = turn["spent"] == 0 and not turn["crossgraded"] and not turn["bought"]
    can_cross = (state["options"]["crossgrading"] and not turn["upgraded"] and not turn["crossgraded"]
                 and not turn["bought"] and turn["spent"] <= tracks.BUDGET - CROSSGRADE_COST)
    bank = basics.loco_cards_left(state)
    for t, train in enumerate(player["trains"]):
        if can_upgrade and player["cash"] >= UPGRADE_COST:
            for loco in LOCOS["upgrades"].get(train["loco"], []):
                if bank[loco] > 0:
                    moves.append({"upgrade_train": {"train": t, "loco": loco}})
        if can_cross and player["cash"] >= CROSSGRADE_COST:
            for loco in LOCOS["crossgrades"].get(train["loco"], []):
                if bank[loco] > 0:
                    moves.append({"crossgrade_train": {"train": t, "loco": loco}})
    return moves


def loan_moves(state: State, seat: int) -> list[Move]:
    """Borrowing (mercy rule): a loan when the cash is short for a step, a segment or an upgrade; repaying."""
    if not state["options"]["mercy_borrowing"]:
        return []
    player = state["players"][seat]
    moves: list[Move] = []
    if player["debt"] and player["cash"] >= player["debt"]:
        moves.append({"repay_loan": {}})
    room = basics.loan_room(player)
    if room > 0 and _loan_needed(state, seat, room):
        moves += [{"borrow": {"amount": a}} for a in range(1, room + 1)]
    return moves


def _loan_needed(state: State, seat: int, room: int) -> bool:
    """Whether the largest loan would make a step, a segment or an upgrade legal that is not legal now."""
    player = state["players"][seat]
    before = _cash_options(state, seat)
    player["cash"] += room
    try:
        after = _cash_options(state, seat)
    finally:
        player["cash"] -= room
    return after > before


def _cash_options(state: State, seat: int) -> int:
    """How many moves of this phase that cost money are legal (track purchases aside: the buyer prices them)."""
    if state["phase"] == "operations":
        ctx = ops.OperationsContext(state, seat)
        return sum(len(ops.movement_moves(ctx, t, train)) for t, train in enumerate(ctx.player["trains"]))
    turn = state["turn"]
    count = len(upgrade_moves(state, seat))
    if not turn["upgraded"] and not turn["bought"]:
        count += len(tracks.build_options(tracks.BuildContext(state, seat)))
    return count


def offer_moves(state: State, seat: int) -> list[Move]:
    """Track purchases and swaps (challenge game): segments of others touching the buyer's reach."""
    if not _may_offer_track(state):
        return []
    player = state["players"][seat]
    reach = tracks.network(player["track"]) | MAJOR_MILEPOSTS
    own_by_node = _segments_by_milepost(player["track"])
    moves: list[Move] = []
    for seller, other in enumerate(state["players"]):
        if seller == seat:
            continue
        for eid in sorted(other["track"]):
            a, b = BOARD.edges[eid]
            if a in reach or b in reach:
                moves += _purchase_offers(seller, eid, player["cash"])
                moves += _swap_offers(seller, eid, own_by_node)
    return moves

# ---- applying moves ---------------------------------------------------------------


def apply_move(state: State, seat: int, move: Move, rng: Rng) -> list[Event]:
    """Upgrades (instead of building) and crossgrades (within the budget), while the bank has the loco card."""
    """A building turn: segments (unless an upgrade or a purchase took the turn), upgrades, offers, loans, the end."""
    """An operations turn: place the trains first, then deliveries, pick-ups, drops, steps, loans, the end."""
    """Apply one legal atomic move through :data:`HANDLERS`, then settle loans and a turn an event cut short."""
    events: list[Event] = []
    kind = basics.move_kind(move)
    body = move[kind]
    handler = HANDLERS[kind]
    if kind in PROGRESS_KINDS:
        state["last_progress"] = state["round"]
    cash = [p["cash"] for p in state["players"]]
    handler(state, seat, body, rng, events)
    turns.settle(state, rng, events, [s for s, p in enumerate(state["players"])
                                      if p["cash"] > cash[s] and not (kind == "borrow" and s == seat)])
    return events

