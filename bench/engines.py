"""Engine steps per game against the fastest game, measured back to back in the same run.

One step is one random-bot move through :class:`services.common.runner.Match`, as the service
plays it (legality check, state copy, apply); a new game starts when one ends.  Each game at
its usual table size (India Rails at 3 with ``fast_game``, as the issue measured).  The fastest
game's steps per second is every row's baseline; a second India Rails row is measured against
Darjeeling, the issue's goal (≥ 0.33).
"""

from __future__ import annotations

from typing import Any

from bench.config import Config
from bench.engine_cases import Stepper
from bench.harness import rate
from bench.results import Row
from services.common.registry import engine_for

SUITE = "engines"
TABLES: dict[str, tuple[int, dict[str, Any] | None]] = {
    "alubari": (3, None),
    "darjeeling": (4, None),
    "tea_rum": (2, None),
    "india_rails": (3, {"fast_game": True}),
}


def run(config: Config) -> list[Row]:
    """Steps per second of every game; ratios to the fastest and (India Rails) to Darjeeling."""
    rates: dict[str, float] = {}
    for game, (players, options) in TABLES.items():
        stepper = Stepper(engine_for(game), players, options=options)
        stepper()  # imports and first set-up stay out of the timing
        rates[game] = rate(stepper, config.engine_seconds)
    fastest = max(rates, key=lambda game: rates[game])
    rows = [
        Row(SUITE, f"{game}_steps_{TABLES[game][0]}p", "steps/s", value, f"{fastest}_steps", rates[fastest])
        for game, value in rates.items()
    ]
    rows.append(Row(SUITE, "india_rails_vs_darjeeling_steps", "steps/s", rates["india_rails"], "darjeeling_steps",
                    rates["darjeeling"], goal=0.33))  # fmt: skip
    return rows
