"""Darjeeling engine benchmarks: engine steps, views for every seat and whole games."""

from __future__ import annotations

import copy
from itertools import count

from bench.engine_cases import game_case, step_case
from bench.harness import Case
from services.common.engine import RandomBot
from services.common.runner import Match, play_out
from services.darjeeling.engine import DarjeelingEngine

ENGINE = DarjeelingEngine()


def _mid_game_positions(games: int = 4, every: int = 7) -> list[tuple[dict, int]]:
    """States sampled from random 4-player games, each with its seat to act."""
    positions: list[tuple[dict, int]] = []
    for seed in range(games):
        match = Match.start(ENGINE, 4, seed)

        def keep(m: Match, seat: int, move: dict, events: list) -> None:
            if not ENGINE.is_over(m.state) and m.state["turn_number"] % every == 0:
                positions.append((copy.deepcopy(m.state), m.to_act()[0]))

        play_out(match, {s: RandomBot() for s in range(4)}, after_move=keep)
    return positions


def cases() -> list[Case]:
    """Engine steps (the shared Match step), views for every seat, full random and heuristic games."""
    positions = _mid_game_positions()
    cursor = count()

    def view_all_seats() -> None:
        state, _ = positions[next(cursor) % len(positions)]
        for seat in (None, 0, 1, 2, 3):
            ENGINE.view(state, seat)

    return [
        step_case(ENGINE, 4),
        Case("darjeeling-view-5-viewers", view_all_seats, unit="5 views"),
        game_case(ENGINE, 2),
        game_case(ENGINE, 5),
        game_case(ENGINE, 4, "heuristic"),
    ]
