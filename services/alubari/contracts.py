"""Contract cards: the deck and its discard pile, the Post Office line, and once-a-game effects."""

from __future__ import annotations

from typing import Any

from services.alubari import estates, tracks
from services.alubari.content import CONTRACTS
from services.alubari.supply import gain_from_supply
from services.common.rng import Rng

State = dict[str, Any]
Events = list[dict[str, Any]]

POST_SLOTS = 3


def ensure_deck(state: State, rng: Rng, events: Events) -> None:
    """An empty deck is rebuilt by shuffling the discard pile."""
    if not state["deck"] and state["discard"]:
        state["deck"] = state["discard"]
        state["discard"] = []
        rng.shuffle(state["deck"])
        events.append({"contract_deck_reshuffled": {"cards": len(state["deck"])}})


def draw_card(state: State, rng: Rng, events: Events) -> int | None:
    """The top card of the deck (rebuilt from the discard pile if it ran out), or None."""
    ensure_deck(state, rng, events)
    if not state["deck"]:
        return None
    card: int = state["deck"].pop()
    return card


def refill_post(state: State, rng: Rng, events: Events) -> None:
    """Fill every empty Post Office position from the top of the deck."""
    post = state["post"]
    for slot in range(POST_SLOTS):
        if post[slot] is None:
            post[slot] = draw_card(state, rng, events)
    events.append({"post_office_changed": {"slots": [card or 0 for card in post]}})


def restock_post(state: State, rng: Rng, events: Events) -> None:
    """Phase 1: the card in position A is discarded, the rest shift toward A, then the gaps fill."""
    post = state["post"]
    if post[0] is not None:
        state["discard"].append(post[0])
        post[0] = None
    remaining = [card for card in post if card is not None]
    state["post"] = remaining + [None] * (POST_SLOTS - len(remaining))
    refill_post(state, rng, events)


def refresh_post(state: State, rng: Rng, events: Events) -> None:
    """The Post Office chai bonus: discard the whole line and deal three new cards."""
    for slot, card in enumerate(state["post"]):
        if card is not None:
            state["discard"].append(card)
        state["post"][slot] = None
    refill_post(state, rng, events)


def usable_contracts(state: State, seat: int, area: str) -> list[int]:
    """Unused contracts of ``seat`` whose corners show ``area``."""
    return [
        held["id"] for held in state["players"][seat]["contracts"]
        if not held["used"] and area in CONTRACTS[held["id"]]["areas"]
    ]


def play_contract(state: State, seat: int, card_id: int, events: Events) -> None:
    """Turn a contract sideways and apply its effect (modifiers last until the end of the round)."""
    player = state["players"][seat]
    for held in player["contracts"]:
        if held["id"] == card_id:
            held["used"] = True
    effect = CONTRACTS[card_id]["effect"]
    kind = effect["kind"]
    amount = int(effect.get("amount", 0))
    mods = player["mods"]
    if kind == "gain":
        gained = gain_from_supply(state, seat, effect["resource"], amount)
        detail = f"{effect['resource']} +{gained}"
    elif kind in ("stockyard_plus", "excavation_plus", "lay_track_plus", "foundry_plus"):
        key = kind.removesuffix("_plus")
        mods[key] += amount
        detail = f"{key} +{amount} this round"
    elif kind == "free_chai_bonus":
        mods["free"] = sorted(set(mods["free"]) | set(CONTRACTS[card_id]["areas"]))
        detail = "chai bonus without chai this round"
    elif kind == "harvest":
        detail = "tea harvest"
    elif kind == "crop_plus":
        detail = f"crop harvest +{amount}"
    elif kind == "leaves_per_estate":
        owned = estates.harvesting_spaces(state, seat)
        gained = gain_from_supply(state, seat, "tea_leaves", owned * amount)
        detail = f"tea_leaves +{gained}"
    else:  # borrow
        detail = f"borrowed {estates.borrow_game_estates(state, seat, amount)} estate space(s)"
    events.append({"contract_played": {"seat": seat, "contract_id": card_id, "detail": detail}})
    if kind == "harvest":
        tracks.tea_harvest(state, events, "CONTRACT")
    elif kind == "crop_plus":
        tracks.move_crop(state, amount, events)
