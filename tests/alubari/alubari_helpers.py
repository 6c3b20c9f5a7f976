"""Shared helpers for the Alubari tests: fresh states, forced positions, conservation checks."""

from __future__ import annotations

from typing import Any

from services.alubari import rounds
from services.alubari.content import CUBE_BOX, GAME_MARKERS, MARKERS_PER_PLAYER, TOTAL_LEAVES, TOTAL_RUBBLE, TOTAL_STEEL
from services.alubari.engine import AlubariEngine
from services.common.engine import GameConfig
from services.common.rng import Rng

ENGINE = AlubariEngine()
State = dict[str, Any]


def new_state(players: int, seed: int = 1, **options: Any) -> State:
    """A freshly set-up game."""
    merged = ENGINE.validate_options(players, options)
    return ENGINE.setup(GameConfig(players=players, options=merged), Rng(seed))


def play(state: State, seat: int, move: dict[str, Any], rng: Rng | None = None) -> list[dict[str, Any]]:
    """Apply a move after checking it is legal (as the framework does)."""
    legal = ENGINE.legal_moves(state, seat)
    assert move in legal, f"{move} not in {legal}"
    _, events = ENGINE.apply(state, seat, move, rng or Rng(5))
    return events


def resolve_with(
    state: State, placements: dict[str, list[int]], rng: Rng | None = None, quiet: bool = False
) -> list[dict[str, Any]]:
    """Put workers straight onto spaces (area -> occupant per space, -1 empty) and start Phase 5.

    ``quiet`` takes the event cubes out of the bag and the weather off the track, so that the next
    round's phases 2-3 change nothing a scenario looks at.
    """
    if quiet:
        state["box"]["event"] += state["bag"]["event"]
        state["bag"]["event"] = 0
        for position, weather in enumerate(state["weather"]):
            if weather is not None:
                state["weather_pool"][weather] += 1
                state["weather"][position] = None
    for area, occupants in placements.items():
        spaces = state["areas"][area]
        for index, seat in enumerate(occupants):
            spaces[index] = seat
    for player in state["players"]:
        player["workers"] = 0
    state["stage"] = "RESOLVE"
    state["resolve"] = {"area": 0, "window": rounds.turn_order(state), "space": 0}
    events: list[dict[str, Any]] = []
    rounds.run_resolution(state, rng or Rng(9), events)
    return events


def owned_estate_spaces(state: State, seat: int, count: int) -> None:
    """Give ``seat`` the first ``count`` estate spaces, cleared, from the left."""
    given = 0
    for estate in state["estates"]:
        for space in estate["spaces"]:
            if given < count:
                state["supply"]["rubble"] += space["rubble"]
                space["rubble"] = 0
                space["owner"] = seat
                state["players"][seat]["markers"] -= 1
                given += 1


def check_conservation(state: State) -> None:
    """Every component is somewhere, exactly once."""
    players = state["players"]
    estates = [s for e in state["estates"] for s in e["spaces"]]
    rubble = state["supply"]["rubble"] + sum(p["rubble"] for p in players) + sum(s["rubble"] for s in estates)
    assert rubble == TOTAL_RUBBLE
    assert state["supply"]["steel"] + sum(p["steel"] for p in players) == TOTAL_STEEL
    assert state["supply"]["tea_leaves"] + sum(p["tea_leaves"] for p in players) == TOTAL_LEAVES
    on_board = [s["owner"] for s in estates] + list(state["track"]) + [o for town in state["stations"] for o in town]
    assert state["supply"]["game_markers"] + on_board.count(-2) == GAME_MARKERS
    for seat, player in enumerate(players):
        placed = on_board.count(seat) + sum(1 for s in estates if s["borrower"] == seat)
        assert player["markers"] + placed + 1 == MARKERS_PER_PLAYER, seat
        assert 0 <= player["chai"] <= state["chai_max"]
        for key in ("iron_ore", "stone", "rubble", "steel", "tea_leaves", "markers"):
            assert player[key] >= 0, key
    shed_chai = sum(entry["chai"] for entry in state["shed"])
    for cube in ("iron_ore", "stone", "chai"):
        held = sum(p[cube] for p in players) if cube != "chai" else shed_chai
        total = state["bag"][cube] + state["stockyard"][cube] + state["box"][cube] + held
        assert total == CUBE_BOX[cube], cube
    event_cubes = state["bag"]["event"] + state["event_cubes_pending"] + sum(state["rondel"]) + state["box"]["event"]
    assert event_cubes == CUBE_BOX["event"]  # pending: drawn, waiting for a maintenance decision
    weather_on_track = [w for w in state["weather"] if w is not None]
    for kind in ("SUN", "RAIN", "FOG"):
        assert state["weather_pool"][kind] + weather_on_track.count(kind) == 3
