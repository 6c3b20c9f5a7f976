"""The event rondel: event cubes drawn from the bag land on it and their events resolve at once."""

from __future__ import annotations

from typing import Any

from services.alubari import estates, railway, tracks
from services.alubari.content import BOARD, CUBES, EQUIPMENT, RONDEL, TOWN_NAMES
from services.alubari.supply import pay

State = dict[str, Any]
Events = list[dict[str, Any]]


def place_event_cube(state: State, events: Events) -> None:
    """Put one drawn event cube on the next empty rondel space clockwise and resolve that event."""
    spaces = state["rondel"]
    size = len(spaces)
    start = state["rondel_last"] + 1
    for step in range(size):
        index = (start + step) % size
        if not spaces[index]:
            spaces[index] = True
            state["rondel_last"] = index
            state["events_this_round"] += 1
            resolve_event(state, index, events)
            return
    state["bag"]["event"] += 1  # every space full (cannot happen with 9 spaces and at most 5 cubes)


def resolve_event(state: State, index: int, events: Events) -> None:
    """Carry out the event printed on rondel space ``index``."""
    kind = RONDEL[index]["kind"]
    events.append({"event_resolved": {"space": index + 1, "kind": kind}})
    handler = _HANDLERS[kind]
    handler(state, index, events)


def game_excavates(state: State, _index: int, events: Events) -> None:
    """The game removes rubble at the Excavation work rate; cleared spaces get game ownership markers."""
    estates.excavate(state, owner=railway.GAME, amount=state["rates"]["excavation"], events=events)


def crops_grow(state: State, index: int, events: Events) -> None:
    """The Crop Harvest marker moves forward (a harvest follows if it reaches the end)."""
    tracks.move_crop(state, int(RONDEL[index].get("amount", 2)), events)


def clear_up(state: State, index: int, events: Events) -> None:
    """Event cubes on the other spaces go back to the bag and the stockyard is trimmed."""
    returned = 0
    for other, occupied in enumerate(state["rondel"]):
        if occupied and other != index:
            state["rondel"][other] = False
            returned += 1
    state["bag"]["event"] += returned
    trim = BOARD["stockyard_trim"]
    trimmed: dict[str, int] = {}
    for cube in CUBES:
        excess = max(0, state["stockyard"][cube] - trim[cube])
        state["stockyard"][cube] -= excess
        state["bag"][cube] += excess
        trimmed[cube] = excess
    events.append({"yard_cleared": {"event_cubes_returned": returned, **trimmed}})


def track_is_laid(state: State, _index: int, events: Events) -> None:
    """The game lays track at the Lay Track work rate, scoring for nobody.

    Its ownership markers mark the spaces while they last; once they have run out the event still
    lays its track, unmarked (so the railway can always be completed).
    """
    rate = state["rates"]["lay_track"]
    laid, _rivers = railway.lay_track(state, railway.GAME, min(rate, state["supply"]["game_markers"]), events)
    state["supply"]["game_markers"] -= laid
    if laid < rate:
        railway.lay_track(state, railway.UNMARKED, rate - laid, events)


def maintenance_cost(item: int) -> dict[str, int]:
    """What keeping an Equipment costs at the maintenance event (nothing for the Very Reliable Train)."""
    card = EQUIPMENT[item]
    if card["ability"] == "VERY_RELIABLE":
        return {}
    return {k: v for k, v in card["maintenance"].items() if v}


def equipment_maintenance(state: State, _index: int, events: Events) -> None:
    """Every owner decides, Equipment by Equipment, to pay its maintenance or give it up.

    Seats decide from the starting player clockwise, each in the order it acquired its Equipment.
    An Equipment its owner cannot pay for goes back without asking.
    """
    n = state["n"]
    order = [(state["start_player"] + k) % n for k in range(n)]
    state["maintenance"] = [
        [seat, item] for seat in order for item in state["players"][seat]["equipment"] if maintenance_cost(item)
    ]
    _return_unpayable(state, events)


def maintenance_moves(state: State) -> list[dict[str, Any]]:
    """Pay for the Equipment now due, or give it up (it is always affordable once it is asked)."""
    _seat, item = state["maintenance"][0]
    return [{"maintain_equipment": {"equipment_id": item, "pay": True}},
            {"maintain_equipment": {"equipment_id": item, "pay": False}}]


def settle_maintenance(state: State, paid: bool, events: Events) -> None:
    """Apply the decision on the Equipment now due, then return any the next owners cannot pay for."""
    seat, item = state["maintenance"].pop(0)
    if paid:
        pay(state, seat, maintenance_cost(item))
        events.append({"maintenance": {"seat": seat, "equipment_id": item, "paid": True}})
    else:
        _give_back(state, seat, item, events)
    _return_unpayable(state, events)


def _return_unpayable(state: State, events: Events) -> None:
    due = state["maintenance"]
    while due and not railway.can_pay(state["players"][due[0][0]], maintenance_cost(due[0][1])):
        seat, item = due.pop(0)
        _give_back(state, seat, item, events)


def _give_back(state: State, seat: int, item: int, events: Events) -> None:
    """The Equipment returns to the Engine shed without chai and may be bought again."""
    state["players"][seat]["equipment"].remove(item)
    state["shed"].append({"id": item, "chai": 0})
    state["shed"].sort(key=lambda entry: entry["id"])
    events.append({"maintenance": {"seat": seat, "equipment_id": item, "paid": False}})


def station_building(state: State, _index: int, events: Events) -> None:
    """The game fills the empty station spaces of the nearest unfinished town above Siliguri."""
    town = railway.nearest_unfinished_town(state)
    if town is None:
        return
    built: list[int] = []
    for space, owner in enumerate(state["stations"][town]):
        if owner == railway.NOBODY and state["supply"]["game_markers"] > 0:
            state["stations"][town][space] = railway.GAME
            state["supply"]["game_markers"] -= 1
            built.append(space)
    if built:
        events.append({"station_built": {"owner": railway.GAME, "town": TOWN_NAMES[town], "spaces": built}})


def harvest(state: State, _index: int, events: Events) -> None:
    """A tea harvest for everyone."""
    tracks.tea_harvest(state, events, "HARVEST_EVENT")


_HANDLERS = {
    "EXCAVATE": game_excavates,
    "CROPS_GROW": crops_grow,
    "CLEAR_UP": clear_up,
    "TRACK_IS_LAID": track_is_laid,
    "EQUIPMENT_MAINTENANCE": equipment_maintenance,
    "STATION_BUILDING": station_building,
    "HARVEST": harvest,
}
