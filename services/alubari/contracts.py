"""Contract cards: the deck and its discard pile, the Post Office line, and once-a-game effects."""

from __future__ import annotations

from collections.abc import Callable
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
    turn_sideways(state["players"][seat], card_id)
    effect = CONTRACTS[card_id]["effect"]
    kind = effect["kind"]
    amount = int(effect.get("amount", 0))
    detail = CONTRACT_EFFECTS[kind](state, seat, card_id, amount)
    events.append({"contract_played": {"seat": seat, "contract_id": card_id, "detail": detail}})
    # The harvest and crop moves come after the announcement so their events follow it.
    if kind == "harvest":
        tracks.tea_harvest(state, events, "CONTRACT")
    elif kind == "crop_plus":
        tracks.move_crop(state, amount, events)


def turn_sideways(player: dict[str, Any], card_id: int) -> None:
    """Mark the player's copy of the contract as used."""
    for held in player["contracts"]:
        if held["id"] == card_id:
            held["used"] = True


def gain_effect(state: State, seat: int, card_id: int, amount: int) -> str:
    """Take up to the card's amount of one resource from the supply."""
    resource = CONTRACTS[card_id]["effect"]["resource"]
    gained = gain_from_supply(state, seat, resource, amount)
    return f"{resource} +{gained}"


def action_plus_effect(state: State, seat: int, card_id: int, amount: int) -> str:
    """A stronger stockyard, excavation, lay track or foundry action for the rest of the round."""
    key = CONTRACTS[card_id]["effect"]["kind"].removesuffix("_plus")
    state["players"][seat]["mods"][key] += amount
    return f"{key} +{amount} this round"


def free_chai_bonus_effect(state: State, seat: int, card_id: int, _amount: int) -> str:
    """The chai bonus costs no chai this round in the areas the card shows."""
    mods = state["players"][seat]["mods"]
    mods["free"] = sorted(set(mods["free"]) | set(CONTRACTS[card_id]["areas"]))
    return "chai bonus without chai this round"


def harvest_effect(_state: State, _seat: int, _card_id: int, _amount: int) -> str:
    """Only the announcement: the tea harvest itself runs after it."""
    return "tea harvest"


def crop_plus_effect(_state: State, _seat: int, _card_id: int, amount: int) -> str:
    """Only the announcement: the crop marker moves after it."""
    return f"crop harvest +{amount}"


def leaves_per_estate_effect(state: State, seat: int, _card_id: int, amount: int) -> str:
    """Tea leaves for every estate space the seat owns or has borrowed."""
    owned = estates.harvesting_spaces(state, seat)
    gained = gain_from_supply(state, seat, "tea_leaves", owned * amount)
    return f"tea_leaves +{gained}"


def borrow_effect(state: State, seat: int, _card_id: int, amount: int) -> str:
    """Put the seat's markers on game-owned estate spaces nobody has borrowed yet."""
    return f"borrowed {estates.borrow_game_estates(state, seat, amount)} estate space(s)"


ContractEffect = Callable[[State, int, int, int], str]

CONTRACT_EFFECTS: dict[str, ContractEffect] = {
    "gain": gain_effect,
    "stockyard_plus": action_plus_effect,
    "excavation_plus": action_plus_effect,
    "lay_track_plus": action_plus_effect,
    "foundry_plus": action_plus_effect,
    "free_chai_bonus": free_chai_bonus_effect,
    "harvest": harvest_effect,
    "crop_plus": crop_plus_effect,
    "leaves_per_estate": leaves_per_estate_effect,
    "borrow": borrow_effect,
}
