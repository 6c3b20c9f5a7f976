"""Alubari engine speed: single engine steps and whole random games (timed by bench.harness)."""

from __future__ import annotations

import copy

from bench.harness import Case
from services.alubari.engine import AlubariEngine
from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match, play_out

ENGINE = AlubariEngine()


def _mid_game_states(players: int, count: int = 200) -> list[tuple[dict, int]]:
    """Positions sampled from one random game, to step from."""
    match = Match.start(ENGINE, players, seed=42)
    chooser = Rng(7)
    states: list[tuple[dict, int]] = []
    while not ENGINE.is_over(match.state) and len(states) < count:
        seat = match.to_act()[0]
        states.append((copy.deepcopy(match.state), seat))
        match.play(seat, chooser.choice(ENGINE.legal_moves(match.state, seat)))
    return states


def _step_case(players: int) -> Case:
    positions = _mid_game_states(players)
    chooser = Rng(3)
    cursor = [0]

    def step() -> None:
        state, seat = positions[cursor[0] % len(positions)]
        cursor[0] += 1
        moves = ENGINE.legal_moves(state, seat)
        ENGINE.apply(copy.deepcopy(state), seat, chooser.choice(moves), Rng(cursor[0]))

    return Case(name=f"alubari-step-{players}p", run=step, unit="step (legal moves + copy + apply)")


def _game_case(players: int, bot: str = "random") -> Case:
    seed = [0]
    player = RandomBot() if bot == "random" else ENGINE.bots()[bot]

    def game() -> None:
        seed[0] += 1
        match = Match.start(ENGINE, players, seed[0])
        play_out(match, dict.fromkeys(range(players), player))

    return Case(name=f"alubari-{bot}-game-{players}p", run=game, unit=f"full {bot} game")


def cases() -> list[Case]:
    """Engine steps per second, full random games per second (1, 3, 5 players), one heuristic game."""
    return [_step_case(3), _step_case(5), _game_case(1), _game_case(3), _game_case(5), _game_case(3, "heuristic")]
