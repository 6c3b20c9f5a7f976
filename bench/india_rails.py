"""India Rails engine speed: engine steps, legal-move listing, heuristic bot turns (timed by bench.harness)."""

from __future__ import annotations

import copy

from bench.harness import Case
from services.bots.roster import bots_for
from services.common.rng import Rng
from services.common.runner import Match
from services.india_rails.engine import IndiaRailsEngine

ENGINE = IndiaRailsEngine()
HEURISTIC = bots_for(ENGINE)["heuristic"]


def _positions(players: int, count: int = 400) -> list[tuple[dict, int]]:
    """Mid-game positions sampled from one heuristic game (operations and building phases)."""
    match = Match.start(ENGINE, players, seed=42, options={"fast_game": True})
    positions: list[tuple[dict, int]] = []
    step = 0
    while not ENGINE.is_over(match.state) and len(positions) < count:
        seat = match.to_act()[0]
        if step % 3 == 0:
            positions.append((copy.deepcopy(match.state), seat))
        match.play(seat, match.bot_move(HEURISTIC, seat, step))
        step += 1
    return positions


def _step_case(players: int) -> Case:
    positions = _positions(players)
    chooser = Rng(3)
    cursor = [0]

    def run() -> None:
        state, seat = positions[cursor[0] % len(positions)]
        cursor[0] += 1
        moves = ENGINE.legal_moves(state, seat)
        ENGINE.apply(copy.deepcopy(state), seat, chooser.choice(moves), Rng(cursor[0]))

    return Case(name=f"india-rails-step-{players}p", run=run, unit="step (legal moves + copy + apply)")


def _listing_case(players: int, phase: str) -> Case:
    positions = [(s, seat) for s, seat in _positions(players) if s["phase"] == phase] or _positions(players)
    cursor = [0]

    def run() -> None:
        state, seat = positions[cursor[0] % len(positions)]
        cursor[0] += 1
        ENGINE.legal_moves(state, seat)

    return Case(name=f"india-rails-legal-moves-{phase}-{players}p", run=run, unit="legal-move listing")


def _bot_turn_case(players: int) -> Case:
    """One whole turn of the heuristic bot (every atomic step until the seat changes)."""
    positions = [(s, seat) for s, seat in _positions(players) if s["phase"] == "operations"]
    cursor = [0]

    def run() -> None:
        state, seat = positions[cursor[0] % len(positions)]
        cursor[0] += 1
        match = Match(engine=ENGINE, snapshot=Match.start(ENGINE, players, 1).snapshot)
        match.snapshot.state = copy.deepcopy(state)
        for i in range(500):
            if ENGINE.is_over(match.state) or match.to_act() != [seat]:
                break
            match.play(seat, match.bot_move(HEURISTIC, seat, i))

    return Case(name=f"india-rails-heuristic-turn-{players}p", run=run, unit="bot turn")


def cases() -> list[Case]:
    """Engine steps, move listing in both phases, and heuristic bot turns at 2 and 6 players."""
    return [
        _step_case(2),
        _step_case(6),
        _listing_case(6, "operations"),
        _listing_case(6, "build"),
        _bot_turn_case(2),
        _bot_turn_case(6),
    ]
