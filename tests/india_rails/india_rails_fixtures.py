"""Helpers for India Rails tests: start matches and arrange positions on the generated map."""

from __future__ import annotations

import itertools
from typing import Any

from services.common.engine import BadConfig
from services.common.runner import Match
from services.india_rails.content import BOARD
from services.india_rails.engine import IndiaRailsEngine, fresh_turn
from services.india_rails.operations import start_trains

ENGINE = IndiaRailsEngine()


def new_match(players: int = 2, seed: int = 1, **options: Any) -> Match:
    """A fresh match (first building turn of the first player)."""
    return Match.start(ENGINE, players, seed=seed, options=options)


def refused_options(players: int, options: dict[str, Any]) -> str:
    """The code with which the engine refuses these options for ``players`` (fails if it accepts them)."""
    try:
        ENGINE.validate_options(players, options)
    except BadConfig as refusal:
        return refusal.code
    raise AssertionError(f"options accepted: {options}")


def set_turn(match: Match, seat: int, phase: str, trains_placed: bool = True) -> dict[str, Any]:
    """Make it ``seat``'s turn in ``phase`` (normal play order) and return the state.

    Unless ``trains_placed`` is false, trains not yet on the board are put in Colombo, far from
    every event's area, as if the first turns were over.
    """
    state = match.state
    for player in state["players"] if trains_placed else []:
        for train in player["trains"]:
            if train["at"] < 0:
                train["at"] = BOARD.cities["Colombo"].anchor
    n = len(state["players"])
    state["phase"] = phase
    state["first"] = 0
    state["order"] = list(range(n))
    state["pos"] = seat
    state["current"] = seat
    state["building_round"] = state["initial_rounds"]
    state["turn"] = fresh_turn()
    start_trains(state, seat)
    return state


def lay(state: dict[str, Any], seat: int, path: list[int]) -> None:
    """Give ``seat`` track along a path of mileposts."""
    for a, b in itertools.pairwise(path):
        eid = BOARD.edge_between(a, b)
        assert eid >= 0, (a, b)
        state["players"][seat]["track"].append(eid)


def place(state: dict[str, Any], seat: int, milepost: int, prev: int = -1, train: int = 0) -> dict[str, Any]:
    """Put a seat's train on a milepost."""
    t = state["players"][seat]["trains"][train]
    t["at"], t["prev"] = milepost, prev
    return t


def clear_path_from(start: int, length: int, avoid: set[int]) -> list[int]:
    """A straight-ish run of clear mileposts without river crossings, starting next to ``start``."""
    path = [start]
    while len(path) < length + 1:
        for v, eid in BOARD.adjacency[path[-1]]:
            if (BOARD.terrain[v] == "clear" and not BOARD.river[eid] and not BOARD.strait[eid]
                    and v not in path and v not in avoid and not BOARD.city_at[v]):
                path.append(v)
                break
        else:
            return []
    return path


def building_example() -> list[int]:
    """Mileposts for the rulebook's example: 4 clear, 1 clear across a river, then a medium city."""
    for city in sorted(BOARD.cities.values(), key=lambda c: c.name):
        if city.size != "medium":
            continue
        m = city.anchor
        for c5, e5 in BOARD.adjacency[m]:
            if BOARD.terrain[c5] != "clear" or BOARD.river[e5]:
                continue
            for c4, e4 in BOARD.adjacency[c5]:
                if BOARD.terrain[c4] != "clear" or not BOARD.river[e4] or BOARD.strait[e4]:
                    continue
                back = clear_path_from(c4, 4, {m, c5})
                if back:
                    return [*back[::-1], c5, m]
    raise AssertionError("the map has no place for the building example")


def neighbours(milepost: int) -> list[int]:
    """Adjacent mileposts."""
    return [v for v, _ in BOARD.adjacency[milepost]]


def city_with_free_edges(size: str, count: int) -> str:
    """The first city of ``size`` (by name) with at least ``count`` edges to mileposts outside any city."""
    for city in sorted(BOARD.cities.values(), key=lambda c: c.name):
        spokes = [v for v in neighbours(city.anchor) if not BOARD.city_at[v]]
        if city.size == size and len(spokes) >= count:
            return city.name
    raise AssertionError(size)


def lead_in(spoke: int, city: int) -> list[int]:
    """A segment ending at ``spoke`` that does not touch ``city``."""
    return [next(v for v in neighbours(spoke) if v != city and not BOARD.city_at[v]), spoke]
