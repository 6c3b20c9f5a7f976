"""Things measured in turns: the A/B loop of the benchmarks, and the ratio of paired turns.

``bench.submit_handler``, ``bench.narrator`` and ``bench.move_render`` each time a piece of the rules
service's code in a fresh interpreter per checkout (a worker: ``python -m <module> --worker <root>
...``) and alternate the checkouts, so the machine's load falls on both alike.  This module is that
loop: :func:`enter` puts a worker on its checkout's code, :func:`run_worker` runs one and reads its
figures (the last line of its output, JSON), :func:`alternate` takes the turns, :func:`roots` names
the sides (``before``/``after`` with ``--before``, else ``this``) and :func:`report` prints them.

The same loop, awaited (:func:`take_turns`), interleaves a move and its floor in short rounds against
already-started servers (``bench.rest_path``, ``bench.grpc_path``): the other tenants' load then falls on
both sides of each round alike, and :func:`paired` forms the ratio of the two as the median of the
rounds' own ratios, with their spread.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parents[1]
Figures = dict[str, dict[str, list[float]]]  # side -> case -> one value per turn
Side = TypeVar("Side")


def roots(before: Path | None) -> dict[str, Path]:
    """The checkouts compared: ``before`` and this one, or this one alone."""
    return {"before": before, "after": HERE} if before else {"this": HERE}


def enter(root: str) -> None:
    """Make this (worker) interpreter run ``root``'s code, quietly; fails if another checkout's is found."""
    sys.path[:0] = [root, str(Path(root) / "gen")]
    import services
    from services.common.logs import configure_logging

    # The checkout's own code, not this one's (the before/after comparison depends on it).
    assert str(Path(services.__file__).resolve()).startswith(str(Path(root).resolve())), services.__file__
    configure_logging(level="warning")


def run_worker(module: str, root: Path, *arguments: str) -> dict[str, float]:
    """Run ``python -m module --worker root arguments...`` and answer the figures it printed last."""
    command = [sys.executable, "-m", module, "--worker", str(root), *arguments]
    done = subprocess.run(command, cwd=HERE, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


async def take_turns(
    sides: dict[str, Side], repeats: int, measure: Callable[[Side, int], Awaitable[dict[str, float]]]
) -> Figures:
    """``await measure(side, turn)`` for every side in order, ``repeats`` times in turns; each case's
    values by side name, one per turn (the one loop behind :func:`alternate`)."""
    figures: Figures = {name: {} for name in sides}
    for turn in range(repeats):
        for name, side in sides.items():
            for case, value in (await measure(side, turn)).items():
                figures[name].setdefault(case, []).append(value)
    return figures


def alternate(sides: dict[str, Path], repeats: int, measure: Callable[[Path, int], dict[str, float]]) -> Figures:
    """``measure(root, turn)`` for every side, ``repeats`` times in turns; each case's values by side."""

    async def measured(root: Path, turn: int) -> dict[str, float]:
        return measure(root, turn)

    return asyncio.run(take_turns(sides, repeats, measured))


@dataclass(frozen=True)
class Paired:
    """The ratio of two sides measured in the same rounds: one ratio per round, their median and spread."""

    ratios: tuple[float, ...]

    @property
    def median(self) -> float:
        """The median of the rounds' ratios (0 with no round measured on both sides)."""
        return statistics.median(self.ratios) if self.ratios else 0.0

    def notes(self) -> dict[str, Any]:
        """The spread for a row's notes: pairs, min, quartiles, max and every round's ratio."""
        if not self.ratios:
            return {"pairs": 0}
        one = len(self.ratios) == 1
        low, _, high = [self.ratios[0]] * 3 if one else statistics.quantiles(self.ratios, n=4, method="inclusive")
        return {
            "pairs": len(self.ratios),
            "ratio_min": round(min(self.ratios), 3),
            "ratio_iqr": f"{low:.3f}-{high:.3f}",
            "ratio_max": round(max(self.ratios), 3),
            "ratios": series(self.ratios),
        }


def medians(values: dict[str, list[float]]) -> dict[str, float]:
    """Each case's median over the rounds of one side (a side of :func:`take_turns`' figures)."""
    return {case: round(statistics.median(series), 3) for case, series in values.items() if series}


def series(values: Sequence[float]) -> str:
    """Every round's value for a row's notes, in order (3 decimals)."""
    return " ".join(f"{value:.3f}" for value in values)


def paired(numerators: Sequence[float], denominators: Sequence[float]) -> Paired:
    """Round ``i``'s ``numerators[i] / denominators[i]`` for every round where the denominator measured
    something (a round whose floor did no work says nothing about the ratio and is left out)."""
    if len(numerators) != len(denominators):
        raise ValueError(f"{len(numerators)} rounds against {len(denominators)}")
    return Paired(tuple(top / bottom for top, bottom in zip(numerators, denominators, strict=True) if bottom > 0))


def compare(module: str, before: Path | None, repeats: int, *arguments: str) -> Figures:
    """The common case: ``module``'s worker on each checkout in turns, with the same ``arguments``."""
    return alternate(roots(before), repeats, lambda root, _: run_worker(module, root, *arguments))


def report(figures: Figures, game: str, what: Callable[[str], str], digits: int = 2, runs: str = "runs") -> None:
    """Print each case's median and minimum on every side, a line each, the sides of a case together
    (``what(case)``: what a value is, e.g. "CPU µs per call"; ``runs``: what the count of values counts).
    A case one side lacks (a checkout before it) has no line for that side."""
    width = max((len(case) for cases in figures.values() for case in cases), default=0)
    for case in dict.fromkeys(case for cases in figures.values() for case in cases):
        for side, cases in figures.items():
            if case in cases:
                values = cases[case]
                print(f"{game} {side:6s} {case:{width}s} {what(case)}: median {statistics.median(values):.{digits}f}, "
                      f"min {min(values):.{digits}f} ({len(values)} {runs})")  # fmt: skip
