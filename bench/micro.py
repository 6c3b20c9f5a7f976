"""Each game module's own cases (views, whole games, India Rails listings and bot turns, the
conductor's busy/quiet latency), every one beside its baseline as :mod:`bench.harness` times it.
"""

from __future__ import annotations

import importlib

from bench.config import Config
from bench.harness import measure
from bench.results import Row

SUITE = "micro"


def run(config: Config) -> list[Row]:
    """Every ``bench/<module>.py`` with ``cases()``; quick mode times each case for a moment."""
    from bench.__main__ import bench_modules  # late: __main__ imports the suites

    rows: list[Row] = []
    for name in bench_modules():
        if config.quick and name == "conductor":
            continue  # it starts a stack and four bot games: not a quick check
        module = importlib.import_module(f"bench.{name}")
        try:
            for row in measure(module.cases(), min_seconds=config.engine_seconds):
                rows.append(Row(f"{SUITE}.{name}", str(row["case"]), f"{row['unit']}/s", float(row["per_second"]),
                                str(row["baseline"]), float(row["baseline_per_second"])))  # fmt: skip
        finally:
            if hasattr(module, "teardown"):
                module.teardown()
    return rows
