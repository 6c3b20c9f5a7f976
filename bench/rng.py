"""The keyed generator's cost against PCG32, in the same run: alone, and per engine step of every game.

* ``rng-step-blake2b`` vs ``rng-step-pcg32``: what a service step does with the generator and
  nothing else — rebuild it from the stored state, make four draws, serialise it again.
* ``rng-draw-blake2b`` vs ``rng-draw-pcg32``: one ``randbelow(52)`` on a live generator.
* ``<game>-random-step-<n>p-blake2b`` vs the same with ``pcg32``: one random-bot move through
  :class:`~services.common.runner.Match` (legality, state copy, apply, the bot's forked
  generator), as :mod:`bench.engines` times it, the only difference being the generator.

Part of ``python -m bench micro``; ``python -m bench.rng [seconds]`` runs these cases alone
and prints each ratio (docs/lab/rng.md keeps a run's figures).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from bench.engine_cases import Stepper
from bench.harness import Case, measure
from services.common.registry import engine_for
from services.common.rng import KIND_KEYED, KIND_PCG32, Rng, Seed, new_rng

# Game and seats of each engine-step case.
GAMES = (("darjeeling", 4), ("tea_rum", 3), ("alubari", 3), ("india_rails", 2))
DRAWS_PER_STEP = 4


def _service_step(kind: str) -> Callable[[], object]:
    """Restore, draw ``DRAWS_PER_STEP`` times, serialise: the generator's share of a service step."""
    holder = {"state": new_rng(Seed(2026, kind)).state}

    def step() -> None:
        rng = Rng.from_state(holder["state"])
        for _ in range(DRAWS_PER_STEP):
            rng.randbelow(52)
        holder["state"] = rng.state

    return step


def _draw(kind: str) -> Callable[[], object]:
    rng = new_rng(Seed(2026, kind))
    return lambda: rng.randbelow(52)


def cases() -> list[Case]:
    """The generator alone, then one engine step of every game, keyed against PCG32."""
    found = [
        Case("rng-step-blake2b", _service_step(KIND_KEYED), "step", ("rng-step-pcg32", _service_step(KIND_PCG32))),
        Case("rng-draw-blake2b", _draw(KIND_KEYED), "draw", ("rng-draw-pcg32", _draw(KIND_PCG32))),
    ]
    for game, players in GAMES:
        engine = engine_for(game)
        name = f"{game}-random-step-{players}p"
        keyed, plain = Stepper(engine, players, generator=KIND_KEYED), Stepper(engine, players, generator=KIND_PCG32)
        found.append(Case(f"{name}-blake2b", keyed, "step", (f"{name}-pcg32", plain)))
    return found


def main(argv: list[str]) -> None:
    """Time every case (``argv[0]`` seconds each, default 2) and print its ratio to PCG32."""
    seconds = float(argv[0]) if argv else 2.0
    print(f"{'case':40} {'per s':>12} {'pcg32 per s':>12} {'ratio':>7}")
    for row in measure(cases(), min_seconds=seconds):
        print(f"{row['case']!s:40} {row['per_second']:>12} {row['baseline_per_second']:>12} "
              f"{row['ratio_to_baseline']:>7.3f}")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
