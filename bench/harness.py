"""Timing harness: every case runs beside a baseline in the same process and run.

Absolute numbers depend on the machine; the ratio to a baseline measured at the
same moment is what we compare across runs.  Nothing here asserts on time.  The default
baseline is one Darjeeling engine step (a comparable operation, not a loop of arithmetic).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    """A named operation to time; ``unit`` names what one call does (e.g. "step")."""

    name: str
    run: Callable[[], object]
    unit: str = "op"
    # A name from BASELINES, or (name, callable) for a baseline of the case's own kind.
    baseline: str | tuple[str, Callable[[], object]] = "darjeeling-step"


def rate(fn: Callable[[], object], min_seconds: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Calls per second of ``fn``, measured for at least ``min_seconds`` on ``clock`` (wall time by
    default; ``time.process_time`` counts only this process's CPU, for a shared machine)."""
    calls = 0
    start = clock()
    elapsed = 0.0
    while elapsed < min_seconds:
        fn()
        calls += 1
        elapsed = clock() - start
    return calls / elapsed


def darjeeling_step() -> Callable[[], object]:
    """One random move of a 4-player Darjeeling game per call, as :mod:`bench.engines` times it."""
    from bench.engine_cases import Stepper  # late: engine_cases imports this module
    from services.common.registry import engine_for

    return Stepper(engine_for("darjeeling"), 4)


BASELINES: dict[str, Callable[[], Callable[[], object]]] = {"darjeeling-step": darjeeling_step}


def measure(cases: list[Case], min_seconds: float = 1.0) -> list[dict[str, object]]:
    """Time every case and its baseline back to back; return one row per case."""
    rows: list[dict[str, object]] = []
    for case in cases:
        if isinstance(case.baseline, tuple):
            baseline_name, baseline_fn = case.baseline
        else:
            baseline_name, baseline_fn = case.baseline, BASELINES[case.baseline]()
        base = rate(baseline_fn, min_seconds / 2)
        per_second = rate(case.run, min_seconds)
        rows.append(
            {
                "case": case.name,
                "unit": case.unit,
                "per_second": round(per_second, 2),
                "baseline": baseline_name,
                "baseline_per_second": round(base, 2),
                "ratio_to_baseline": round(per_second / base, 6),
            }
        )
    return rows
