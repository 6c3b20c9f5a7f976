"""The draw deck: demand cards and event cards, drawing, and what each event does when drawn."""

from __future__ import annotations

from typing import Any

from services.common.engine import Event, State
from services.common.rng import Rng
from services.india_rails.content import (
    BOARD,
    COSTS,
    EVENT_CARDS,
    area_around,
    demand_card_json,
    event_card_json,
    sandstorm_mileposts,
)

DERAILMENT_RADIUS = int(COSTS["derailment_radius"])


def is_event(card_id: int) -> bool:
    """Event cards are numbered from 1001, demand cards from 1."""
    return card_id in EVENT_CARDS


def active_cards(state: State, kind: str) -> list[int]:
    """Ids of the event cards of ``kind`` now in play."""
    return [a["card"] for a in state["active"] if EVENT_CARDS[a["card"]]["kind"] == kind]


def hand_size(state: State) -> int:
    """Demand cards a player holds (four with the additional-trains hand option)."""
    return 4 if state["options"]["four_card_hands"] else 3


def take_top(state: State, rng: Rng) -> int | None:
    """Take the top card, reshuffling the discard pile into a new deck when it runs out."""
    if not state["deck"]:
        if not state["discard"]:
            return None
        state["deck"] = state["discard"]
        state["discard"] = []
        rng.shuffle(state["deck"])
    return int(state["deck"].pop())


def fill_hand(state: State, seat: int, rng: Rng, events: list[Event]) -> None:
    """Draw until ``seat`` holds a full hand; events drawn take effect at once."""
    player = state["players"][seat]
    while len(player["hand"]) < hand_size(state):
        card = take_top(state, rng)
        if card is None:
            return
        if is_event(card):
            resolve_event(state, card, seat, rng, events)
            continue
        player["hand"].append(card)
        events.append({"card_drawn": {"seat": seat, "card": demand_card_json(card)}})


def resolve_event(state: State, card: int, drawer: int, rng: Rng, events: list[Event]) -> None:
    """Show an event card to everyone and apply it."""
    spec = EVENT_CARDS[card]
    events.append({"event_drawn": {"seat": drawer, "card": event_card_json(card)}})
    kind = spec["kind"]
    if kind == "derailment":
        _derail(state, spec, drawer, events)
        state["discard"].append(card)
    elif kind == "tax":
        _tax(state, spec, card, rng, events)
    else:
        if kind == "flood":
            _erase(state, lambda eid: BOARD.river[eid] in spec["rivers"], card, "flood", events)
        elif kind == "sandstorm":
            storm = sandstorm_mileposts(card)
            _erase(state, lambda eid: any(m in storm for m in BOARD.edges[eid]), card, "sandstorm", events)
        player = state["players"][drawer]
        state["active"].append({"card": card, "drawer": drawer, "expires": player["turns"] + 2})


def _derail(state: State, spec: dict[str, Any], drawer: int, events: list[Event]) -> None:
    near: set[int] = set()
    for name in spec["cities"]:
        near |= area_around(name, DERAILMENT_RADIUS)
    for seat, player in enumerate(state["players"]):
        hit = False
        for t, train in enumerate(player["trains"]):
            if train["at"] < 0 or train["at"] not in near:
                continue
            hit = True
            kinds = {(load[0], load[1]) for load in train["loads"]}
            if len(kinds) == 1:
                lost = train["loads"].pop(0)
                return_load(state, lost)
                events.append({"load_lost": {"seat": seat, "train": t, "load": load_json(lost)}})
            elif len(kinds) > 1:
                state["pending"].append({"seat": seat, "train": t, "kind": "lost_load"})
        if hit:
            player["lost"] += 1
            if seat == drawer and state["phase"] in ("operations", "build"):
                state["abort_turn"] = True


def _tax(state: State, spec: dict[str, Any], card: int, rng: Rng, events: list[Event]) -> None:
    for seat, player in enumerate(state["players"]):
        due = 0
        for floor, amount in spec["brackets"]:
            if player["cash"] >= floor:
                due = amount
        due = min(due, player["cash"])
        player["cash"] -= due
        events.append({"tax_paid": {"seat": seat, "amount": due}})
    state["cash_public"] = True
    events.append({"cash_revealed": {"cash": [p["cash"] for p in state["players"]]}})
    if state["options"]["reshuffle_on_tax"]:
        state["removed"].append(card)
        state["deck"].extend(state["discard"])
        state["discard"] = []
        rng.shuffle(state["deck"])
    else:
        state["discard"].append(card)


def _erase(state: State, hits: Any, card: int, reason: str, events: list[Event]) -> None:
    for seat, player in enumerate(state["players"]):
        keep = []
        for eid in player["track"]:
            if hits(eid):
                a, b = BOARD.edges[eid]
                state["reserved"].append({"eid": eid, "owner": seat, "card": card, "open": False, "armed": False})
                events.append({"track_erased": {"seat": seat, "segment": {"a": a, "b": b}, "reason": reason}})
            else:
                keep.append(eid)
        player["track"] = keep


def load_json(load: list[str]) -> dict[str, str]:
    """A carried load as the proto ``Load``."""
    return {"load": load[0], "origin_region": load[1]}


def return_load(state: State, load: list[str]) -> None:
    """A load chip goes back to the tray."""
    state["tray"][load[0]] += 1


def end_events_of(state: State, seat: int, events: list[Event]) -> None:
    """Events drawn by ``seat`` leave play at the end of its next turn."""
    player = state["players"][seat]
    keep = []
    for active in state["active"]:
        if active["drawer"] == seat and player["turns"] >= active["expires"]:
            events.append({"event_ended": {"card": event_card_json(active["card"])}})
            state["discard"].append(active["card"])
            for reserved in state["reserved"]:
                if reserved["card"] == active["card"]:
                    reserved["open"] = True
        else:
            keep.append(active)
    state["active"] = keep
