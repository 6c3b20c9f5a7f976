"""Turn flow: what follows a move automatically - refills, the next starting position, scoring, the end."""

from __future__ import annotations

from typing import Any

from services.common.engine import Event, Result, State
from services.common.rng import Rng
from services.darjeeling import movement
from services.darjeeling.board import REGIONS
from services.darjeeling.content import COSTS, GOAL, TILES
from services.darjeeling.movement import NO_TILE
from services.darjeeling.wharf import ship_points


def after_taking(state: State, seat: int, offered: bool, then: dict[str, Any], rng: Rng) -> list[Event]:
    """After a tile is taken: wait for the action-tile decision if one is offered, else carry on."""
    if offered:
        state["phase"] = "ACTION_TILE"
        state["offer"] = then
        return []
    return carry_on(state, seat, then, rng)


def carry_on(state: State, seat: int, then: dict[str, Any], rng: Rng) -> list[Event]:
    """Refill the vacated space (if any), then the next starting position or phase III."""
    events: list[Event] = []
    if then["refill"] != NO_TILE:
        events.append(movement.refill(state, REGIONS[state["region"]], then["refill"], rng))
    if then["then"] == "LOAD":
        state["phase"] = "LOAD"
        return events
    return events + next_start(state, seat)


def resume(state: State, seat: int, rng: Rng) -> list[Event]:
    """Carry on where the action-tile offer interrupted the turn (or the starting positions)."""
    then = state["offer"]
    state["offer"] = None
    return carry_on(state, seat, then, rng)


def after_loading(state: State, seat: int, done: bool) -> list[Event]:
    """End the turn once the ship is loaded, else wait for the player to pick the next crate to move."""
    if done:
        return after_turn(state, seat)
    state["phase"] = "BORROW"
    return []


def next_start(state: State, seat: int) -> list[Event]:
    """The next seat to the left chooses its starting position; after the last, the first turn begins."""
    state["placed"] += 1
    if state["placed"] < state["players"]:
        state["phase"] = "START_POSITIONS"
        state["current"] = (seat + 1) % state["players"]
        return []
    return begin_turn(state, state["start_player"])


def begin_turn(state: State, seat: int) -> list[Event]:
    """Phase I: score the crates on the ships; reaching the goal ends the game at once."""
    state["current"] = seat
    state["turn_number"] += 1
    state["phase"] = "MOVE"
    state["taken_back"] = False
    points = ship_points(state, seat)
    if not points:
        return []
    player = state["seats"][seat]
    player["score"] += points
    events: list[Event] = [{"crates_scored": {"seat": seat, "points": points, "score": player["score"]}}]
    if player["score"] >= GOAL:
        events.append(end_game(state, seat))
    return events


def after_turn(state: State, seat: int) -> list[Event]:
    """End the turn (the game, if the shipment reached the goal) and start the next player's."""
    if state["seats"][seat]["score"] >= GOAL:
        return [end_game(state, seat)]
    following = (seat + 1) % state["players"]
    events: list[Event] = [{"turn_ended": {"seat": seat, "next": following}}]
    events.extend(begin_turn(state, following))
    return events


def end_game(state: State, ended_by: int) -> Event:
    """Lift the screens: -1 per half crate still held; most points wins, ties share."""
    penalties = [
        COSTS.half_crate_penalty * sum(TILES[t].halves for t in player["tiles"]) for player in state["seats"]
    ]
    state["phase"] = "GAME_OVER"
    state["current"] = -1
    state["ended_by"] = ended_by
    state["penalties"] = penalties
    finals = final_scores(state)
    state["winners"] = Result.from_scores([float(final) for final in finals]).winners
    scores = [
        {
            "seat": seat,
            "score": player["score"],
            "penalty": penalties[seat],
            "final_score": finals[seat],
            "tiles": [movement.tile_json(t) for t in sorted(player["tiles"])],
        }
        for seat, player in enumerate(state["seats"])
    ]
    return {"game_ended": {"ended_by": ended_by, "scores": scores, "winners": list(state["winners"])}}


def final_scores(state: State) -> list[int]:
    """Each seat's score less its half-crate penalty (once the game is over)."""
    return [player["score"] - penalty for player, penalty in zip(state["seats"], state["penalties"], strict=True)]


def result(state: State) -> Result | None:
    """Final scores after the half-crate penalty; ties share the win (``None`` while the game goes on)."""
    if state["phase"] != "GAME_OVER":
        return None
    return Result.from_scores([float(final) for final in final_scores(state)])
