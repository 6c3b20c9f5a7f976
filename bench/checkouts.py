"""Two checkouts' code measured in turns: the A/B loop of the in-process micro benchmarks.

``bench.submit_handler``, ``bench.narrator`` and ``bench.move_render`` each time a piece of the rules
service's code in a fresh interpreter per checkout (a worker: ``python -m <module> --worker <root>
...``) and alternate the checkouts, so the machine's load falls on both alike.  This module is that
loop: :func:`enter` puts a worker on its checkout's code, :func:`run_worker` runs one and reads its
figures (the last line of its output, JSON), :func:`alternate` takes the turns, :func:`roots` names
the sides (``before``/``after`` with ``--before``, else ``this``) and :func:`report` prints them.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
Figures = dict[str, dict[str, list[float]]]  # side -> case -> one value per turn


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


def alternate(sides: dict[str, Path], repeats: int, measure: Callable[[Path, int], dict[str, float]]) -> Figures:
    """``measure(root, turn)`` for every side, ``repeats`` times in turns; each case's values by side."""
    figures: Figures = {side: {} for side in sides}
    for turn in range(repeats):
        for side, root in sides.items():
            for case, value in measure(root, turn).items():
                figures[side].setdefault(case, []).append(value)
    return figures


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
