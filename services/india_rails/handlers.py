"""One handler per move kind (:data:`HANDLERS`): operations (trains, loads, loans) and building (track, trains, offers).

A handler changes the state for a legal move and appends its events; what follows automatically
(settling loans, the end of a turn) is :mod:`.turns`'.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.common.engine import Event, State
from services.common.rng import Rng
from services.india_rails import basics, turns
from services.india_rails import cards as deck
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.basics import CROSSGRADE_COST, UPGRADE_COST, WAREHOUSE_TURNS
from services.india_rails.content import (
    BOARD,
    DEMAND_CARDS,
    MAJOR_MILEPOSTS,
)

# operations ----------------------------------------------------------------


def place_train(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    train = state["players"][seat]["trains"][body["train"]]
    train["at"] = body["milepost"]
    train["prev"] = -1
    state["turn"]["acted"] = True
    events.append({"train_placed": {"seat": seat, "train": body["train"], "milepost": body["milepost"]}})


def move_train(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    train = player["trains"][body["train"]]
    turn = state["turn"]
    start, to = train["at"], body["to_milepost"]
    eid = BOARD.edge_between(start, to)
    owner = None if eid in BOARD.red_area else tracks.owners(state).get(eid)
    if owner is not None and owner != seat:
        if owner not in turn["fees_paid"]:
            pay_fee(state, seat, owner, events)
            turn["fees_paid"].append(owner)
    elif state["options"]["cost_to_move"] and not turn["moved_own"]:
        player["cash"] -= ops.MOVE_FEE
        turn["moved_own"] = True
        events.append({"fee_paid": {"payer": seat, "payee": -1, "amount": ops.MOVE_FEE, "deferred": False,
                                    "reason": "cost_to_move"}})
    train["prev"], train["at"] = start, to
    train["left"] -= 1
    turn["acted"] = True
    events.append({"train_moved": {"seat": seat, "train": body["train"], "from_milepost": start,
                                   "to_milepost": to, "movement_left": train["left"]}})


def pay_fee(state: State, payer: int, payee: int, events: list[Event]) -> None:
    player = state["players"][payer]
    if player["cash"] >= ops.TRACK_FEE:
        player["cash"] -= ops.TRACK_FEE
        state["players"][payee]["cash"] += ops.TRACK_FEE
        events.append({"fee_paid": {"payer": payer, "payee": payee, "amount": ops.TRACK_FEE, "deferred": False,
                                    "reason": "track_use"}})
        return
    player["owed"].append([payee, ops.TRACK_FEE])
    events.append({"fee_paid": {"payer": payer, "payee": payee, "amount": ops.TRACK_FEE, "deferred": True,
                                "reason": "track_use"}})


def _use_load_movement(state: State, train: dict[str, Any]) -> None:
    if state["options"]["cost_to_load"]:
        train["left"] -= 1


def pick_up(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    train = state["players"][seat]["trains"][body["train"]]
    at = train["at"]
    load = body["load"]
    if body["from_warehouse"]:
        stored = next(w for w in state["warehouse"] if w["at"] == at and w["load"] == load)
        state["warehouse"].remove(stored)
        carried = [load, stored["origin"]]
    else:
        state["tray"][load] -= 1
        origin = BOARD.cities[BOARD.city_at[at]].region if load == "Pilgrims" else ""
        carried = [load, origin]
    train["loads"].append(carried)
    _use_load_movement(state, train)
    state["turn"]["acted"] = True
    events.append({"load_picked": {"seat": seat, "train": body["train"], "load": deck.load_json(carried),
                                   "milepost": at}})


def drop_load(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    train = player["trains"][body["train"]]
    load = train["loads"].pop(body["slot"])
    at = train["at"]
    warehoused = bool(state["options"]["field_warehousing"])
    if warehoused:
        state["warehouse"].append({"at": at, "load": load[0], "origin": load[1], "by": seat,
                                   "expires": player["turns"] + WAREHOUSE_TURNS + 1})
    else:
        deck.return_load(state, load)
    state["turn"]["dropped"].append([at, load[0]])
    _use_load_movement(state, train)
    state["turn"]["acted"] = True
    events.append({"load_dropped": {"seat": seat, "train": body["train"], "load": deck.load_json(load),
                                    "milepost": at, "warehoused": warehoused}})


def deliver(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    train = player["trains"][body["train"]]
    load = train["loads"].pop(body["slot"])
    deck.return_load(state, load)
    card = body["card"]
    payout = int(DEMAND_CARDS[card]["demands"][body["demand"]]["payout"])
    player["cash"] += payout
    _use_load_movement(state, train)
    state["turn"]["acted"] = True
    events.append({"load_delivered": {"seat": seat, "train": body["train"], "load": deck.load_json(load),
                                      "city": BOARD.city_at[train["at"]], "payout": payout, "card": card,
                                      "open_contract": body["open_contract"]}})
    _pay_owed(state, seat, train["at"], events)
    if body["open_contract"]:
        state["open_contracts"].remove(card)
        state["discard"].append(card)
        return
    player["hand"].remove(card)
    state["discard"].append(card)
    deck.fill_hand(state, seat, rng, events)


def _pay_owed(state: State, seat: int, at: int, events: list[Event]) -> None:
    """Late track fees (mercy rule) come out of a payoff earned on the creditor's track.

    The delivering train stands at ``at``; fees owed to an owner of a segment meeting that
    milepost are paid now, the others wait for a payoff on their owners' track.
    """
    player = state["players"][seat]
    owner = tracks.owners(state)
    here = {owner[eid] for _, eid in BOARD.adjacency[at] if eid in owner}
    keep = []
    for payee, amount in player["owed"]:
        if payee not in here or player["cash"] < amount:
            keep.append([payee, amount])
            continue
        player["cash"] -= amount
        state["players"][payee]["cash"] += amount
        events.append({"fee_paid": {"payer": seat, "payee": payee, "amount": amount, "deferred": False,
                                    "reason": "late_track_use"}})
    player["owed"] = keep


def discard_hand(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    old = list(player["hand"])
    player["hand"] = []
    to_open = bool(state["options"]["open_contracts"])
    for card in old:
        if to_open and len(state["open_contracts"]) < 4:
            state["open_contracts"].append(card)
        else:
            state["discard"].append(card)
    events.append({"hand_discarded": {"seat": seat, "cards": old, "to_open_contracts": to_open}})
    deck.fill_hand(state, seat, rng, events)
    state["abort_turn"] = True


def backtrack(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    train = state["players"][seat]["trains"][body["train"]]
    owner = basics.backtrack_fee_owner(tracks.owners(state), seat, train)
    if owner is not None:
        pay_fee(state, seat, owner, events)
    train["prev"] = -1
    state["abort_turn"] = True


def end_operations(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    state["phase"] = "build"


def borrow(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    amount = body["amount"]
    player["cash"] += amount
    player["debt"] += 2 * amount
    events.append({"loan_taken": {"seat": seat, "amount": amount, "debt": player["debt"]}})


def repay_loan(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    basics.repay(state, seat, state["players"][seat], events)


def choose_lost_load(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    train = state["players"][seat]["trains"][body["train"]]
    lost = train["loads"].pop(body["slot"])
    deck.return_load(state, lost)
    state["pending"].pop(0)
    events.append({"load_lost": {"seat": seat, "train": body["train"], "load": deck.load_json(lost)}})

# building ------------------------------------------------------------------


def build_track(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    start, end = body["from_milepost"], body["to_milepost"]
    eid = BOARD.edge_between(start, end)
    cost = BOARD.cost_into(eid, end)
    player = state["players"][seat]
    player["cash"] -= cost
    player["track"].append(eid)
    turn = state["turn"]
    turn["spent"] += cost
    if start in MAJOR_MILEPOSTS:
        turn["major_segments"] += 1
    state["reserved"] = [r for r in state["reserved"] if r["eid"] != eid]
    a, b = BOARD.edges[eid]
    events.append({"track_built": {"seat": seat, "segment": {"a": a, "b": b}, "cost": cost}})


def upgrade_train(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    player["cash"] -= UPGRADE_COST
    player["trains"][body["train"]]["loco"] = body["loco"]
    state["turn"]["spent"] = tracks.BUDGET
    state["turn"]["upgraded"] = True
    events.append({"train_upgraded": {"seat": seat, "train": body["train"], "loco": body["loco"],
                                      "cost": UPGRADE_COST}})


def crossgrade_train(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    player["cash"] -= CROSSGRADE_COST
    player["trains"][body["train"]]["loco"] = body["loco"]
    state["turn"]["spent"] += CROSSGRADE_COST
    state["turn"]["crossgraded"] = True
    events.append({"train_upgraded": {"seat": seat, "train": body["train"], "loco": body["loco"],
                                      "cost": CROSSGRADE_COST}})


def offer_track(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    state["offer"] = dict(body)
    state["offer_phase"] = state["phase"]
    state["phase"] = "offer"
    state["turn"]["offers"] += 1


def answer_offer(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    offer = state["offer"]
    buyer = state["current"]  # offers are made in the buyer's own turn
    state["phase"] = state.pop("offer_phase")
    state["offer"] = None
    segment = {"a": offer["a"], "b": offer["b"]}
    given = {"a": offer["give_a"], "b": offer["give_b"]}
    accepted = bool(body["accept"])
    if accepted:
        take = BOARD.edge_between(offer["a"], offer["b"])
        players = state["players"]
        players[offer["seller"]]["track"].remove(take)
        players[buyer]["track"].append(take)
        if offer["give_a"] >= 0:
            give = BOARD.edge_between(offer["give_a"], offer["give_b"])
            players[buyer]["track"].remove(give)
            players[offer["seller"]]["track"].append(give)
        players[buyer]["cash"] -= offer["price"]
        players[offer["seller"]]["cash"] += offer["price"]
        state["turn"]["bought"] = True
    events.append({"track_sold": {"buyer": buyer, "seller": offer["seller"], "segment": segment,
                                  "price": offer["price"], "given": given, "accepted": accepted}})


def discard_demand(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    player = state["players"][seat]
    player["hand"].remove(body["card"])
    state["discard"].append(body["card"])
    if len(player["hand"]) <= deck.hand_size(state):
        turns.advance(state, rng, events)


def end_turn(state: State, seat: int, body: dict[str, Any], rng: Rng, events: list[Event]) -> None:
    """End the building part, and with it the turn."""
    """Discard a demand card down to the hand size (fast game); the next seat then discards or builds."""
    """The seller's answer: an accepted offer moves the segments and the cash."""
    """Offer to buy or swap an opponent's segment: the seller answers before the turn goes on."""
    """Crossgrade a train (variant): part of the building budget."""
    """Upgrade a train: it takes the turn's whole building budget."""
    """Build one segment at its cost."""
    """The load a derailment costs, chosen by its owner."""
    """Repay the debt early."""
    """Take a loan (mercy rule): the debt is twice the amount."""
    """Operations are over: the building part of the turn begins."""
    """Reverse the train (mercy rule), paying a fee on an opponent's segment; the turn ends."""
    """Discard the hand (to the open contracts, if used) and draw a new one; the turn ends."""
    """Deliver a load against a demand: the payout, late fees owed here, a new card for the hand."""
    """Drop a load: back to the tray, or into the field warehouse for a few turns."""
    """Load a good from the city's tray (or the field warehouse) onto the train."""
    """Pay a track use fee, or owe it (mercy rule) when the cash is short."""
    """One milepost on: a use fee to each opponent whose track is used (once a turn), or the cost-to-move fee."""
    """Put a train in a city: the start of the seat's first operations turn."""
    turns.finish_turn(state, rng, events)

# ---- turn order -------------------------------------------------------------------


Handler = Callable[[State, int, dict[str, Any], Rng, list[Event]], None]
HANDLERS: dict[str, Handler] = {
    "place_train": place_train,
    "move_train": move_train,
    "pick_up": pick_up,
    "drop_load": drop_load,
    "deliver": deliver,
    "discard_hand": discard_hand,
    "backtrack": backtrack,
    "end_operations": end_operations,
    "borrow": borrow,
    "repay_loan": repay_loan,
    "choose_lost_load": choose_lost_load,
    "build_track": build_track,
    "upgrade_train": upgrade_train,
    "crossgrade_train": crossgrade_train,
    "offer_track": offer_track,
    "answer_offer": answer_offer,
    "discard_demand": discard_demand,
    "end_turn": end_turn,
}
