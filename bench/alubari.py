"""Alubari engine speed: single engine steps and whole games (timed by bench.harness)."""

from __future__ import annotations

from bench.engine_cases import game_case, step_case
from bench.harness import Case
from services.alubari.engine import AlubariEngine

ENGINE = AlubariEngine()


def cases() -> list[Case]:
    """Engine steps per second, full random games per second (1, 3, 5 players), one heuristic game."""
    return [
        step_case(ENGINE, 3),
        step_case(ENGINE, 5),
        game_case(ENGINE, 1),
        game_case(ENGINE, 3),
        game_case(ENGINE, 5),
        game_case(ENGINE, 3, "heuristic"),
    ]
