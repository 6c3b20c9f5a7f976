"""Tea & Rum benchmarks: engine steps per second and whole random games per second."""

from __future__ import annotations

from bench.engine_cases import game_case, step_case
from bench.harness import Case
from services.tea_rum.engine import TeaRumEngine

ENGINE = TeaRumEngine()


def cases() -> list[Case]:
    """Steps and whole random games at 2 (automa), 3 and 4 players."""
    return [case for players in (2, 3, 4) for case in (step_case(ENGINE, players), game_case(ENGINE, players))]
