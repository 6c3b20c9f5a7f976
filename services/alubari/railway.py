"""The railway: laying track spaces, river crossings, and which towns' stations may be built."""

from __future__ import annotations

from typing import Any

from services.alubari.content import EQUIPMENT, STATIONS, TRACK, station_kind

State = dict[str, Any]
Events = list[dict[str, Any]]

NOBODY = -1
GAME = -2
BLOCKED = -3
UNMARKED = -4  # track the game laid after its ownership markers ran out


def next_track_space(state: State) -> int | None:
    """The lowest track space without a marker, or None once the line reaches Darjeeling."""
    for index, owner in enumerate(state["track"]):
        if owner == NOBODY:
            return index
    return None


def track_remaining(state: State) -> int:
    """How many track spaces are still to be laid."""
    return sum(1 for owner in state["track"] if owner == NOBODY)


def open_towns(state: State) -> list[int]:
    """Towns whose stations may be built: Siliguri, plus every town below the first open river."""
    for index, owner in enumerate(state["track"]):
        if TRACK[index]["river"] and owner == NOBODY:
            return list(range(TRACK[index]["segment"] + 1))
    return list(range(len(STATIONS)))


def lay_track(state: State, owner: int, count: int, events: Events) -> tuple[int, int]:
    """Lay up to ``count`` track spaces for ``owner`` (a seat or GAME); return (laid, rivers crossed)."""
    laid = rivers = 0
    spaces: list[int] = []
    while laid < count:
        index = next_track_space(state)
        if index is None:
            break
        state["track"][index] = owner
        spaces.append(index)
        laid += 1
        if TRACK[index]["river"]:
            rivers += 1
    if spaces:
        events.append({"track_laid": {"owner": owner, "spaces": spaces, "rivers": rivers}})
    return laid, rivers


def station_cost(state: State, seat: int, town: int, space: int) -> dict[str, int]:
    """What ``seat`` pays for a station space, after the Construction Work Gang's discount."""
    cost = dict(STATIONS[town]["spaces"][space]["cost"])
    if "WORK_GANG" in owned_abilities(state, seat):
        kind = station_kind(cost)
        if kind == "RUBBLE":
            cost["rubble"] = max(0, cost["rubble"] - 2)
        elif kind == "STONE":
            cost["stone"] = max(0, cost["stone"] - 1)
    return {k: v for k, v in cost.items() if v}


def owned_abilities(state: State, seat: int) -> set[str]:
    """Abilities of the Equipment ``seat`` owns."""
    return {EQUIPMENT[item]["ability"] for item in state["players"][seat]["equipment"]}


def can_pay(player: dict[str, Any], cost: dict[str, int]) -> bool:
    """Whether a player holds everything ``cost`` asks for (chai is read off the chai track)."""
    return all(player[resource] >= amount for resource, amount in cost.items())


def buildable_stations(state: State, seat: int) -> list[tuple[int, int]]:
    """(town, space) pairs ``seat`` may build now: open town, empty space, affordable, a marker to spare."""
    player = state["players"][seat]
    if player["markers"] <= 0:
        return []
    result = []
    for town in open_towns(state):
        for space, owner in enumerate(state["stations"][town]):
            if owner == NOBODY and can_pay(player, station_cost(state, seat, town, space)):
                result.append((town, space))
    return result


def nearest_unfinished_town(state: State) -> int | None:
    """The lowest town above Siliguri that still has an empty station space."""
    for town in range(1, len(STATIONS)):
        if any(owner == NOBODY for owner in state["stations"][town]):
            return town
    return None
