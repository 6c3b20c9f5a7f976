"""The keyed generator's cost against PCG32, in the same run: alone, and per engine step of every game.

* ``rng-step-blake2b`` vs ``rng-step-pcg32``: what a service step does with the generator and
  nothing else — rebuild it from the stored state, make four draws, serialise it again.
* ``rng-draw-blake2b`` vs ``rng-draw-pcg32``: one ``randbelow(52)`` on a live generator.
* ``<game>-random-step-<n>p-blake2b`` vs the same with ``pcg32``: one random-bot move through
  :class:`~services.common.runner.Match` (legality, state copy, apply, the bot's forked
  generator), as :mod:`bench.engines` times it, the only difference being the generator.

Part of ``python -m bench micro``; ``python -m bench.rng [seconds [rounds]]`` runs these cases
alone, case and baseline in alternating rounds, and prints each median ratio and what the
generator adds to each game's step (docs/lab/rng.md keeps a run's figures).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from bench.engine_cases import Stepper
from bench.harness import Case, rate
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


def cpu_rate(fn: Callable[[], object], min_seconds: float) -> float:
    """Calls per CPU second of this process (time spent waiting for a core on a shared machine does not count)."""
    return rate(fn, min_seconds, clock=time.process_time)


def _median_ratio(case: Case, seconds: float, rounds: int) -> tuple[float, float, float, float]:
    """Case and baseline timed in alternating rounds; the median ratio, its range, and the case's calls per second.

    CPU time, alternating rounds and the median keep a busy machine's swings (other work on
    the same cores) out of the ratio better than one wall-clock measurement of each.
    """
    assert isinstance(case.baseline, tuple)
    ratios, rates = [], []
    for _ in range(rounds):
        base = cpu_rate(case.baseline[1], seconds)
        mine = cpu_rate(case.run, seconds)
        ratios.append(mine / base)
        rates.append(mine)
    return statistics.median(ratios), min(ratios), max(ratios), statistics.median(rates)


def main(argv: list[str]) -> None:
    """Time every case against PCG32 (``argv[0]`` seconds per side and round, default 1; ``argv[1]`` rounds, default 7).

    Prints each median ratio (keyed calls per second over PCG32's: below 1 is slower), both
    generators' time per service step, and the keyed generator's share of each game's step.
    """
    seconds = float(argv[0]) if argv else 1.0
    rounds = int(argv[1]) if len(argv) > 1 else 7
    print(f"{'case':38} {'per CPU s':>10} {'ratio':>6} {'range':>13}")
    keyed_us = 0.0
    for case in cases():
        median, low, high, per_second = _median_ratio(case, seconds, rounds)
        print(f"{case.name:38} {per_second:>10.0f} {median:>6.3f} {low:>6.3f}-{high:<6.3f}")
        if case.name == "rng-step-blake2b":
            keyed_us = 1e6 / per_second
            print(f"{'':38} per step: keyed {keyed_us:.2f} us, PCG32 {keyed_us * median:.2f} us")
        elif "-random-step-" in case.name:
            step_us = 1e6 / per_second
            print(f"{'':38} the keyed generator's share of a {step_us:.0f} us step: {100 * keyed_us / step_us:.1f} %")


if __name__ == "__main__":
    main(sys.argv[1:])
