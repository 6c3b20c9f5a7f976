"""Run every benchmark: ``make bench`` (or ``python -m bench [name ...]``).

Each ``bench/<name>.py`` module offers ``cases() -> list[Case]``; results are printed
as JSON lines with the ratio to a baseline timed in the same run.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys

import bench
from bench.harness import measure


def bench_modules() -> list[str]:
    """Names of the modules in ``bench/`` that offer ``cases()`` (helpers such as the harness do not)."""
    names = (m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))
    return sorted(name for name in names if hasattr(importlib.import_module(f"bench.{name}"), "cases"))


def main(argv: list[str]) -> None:
    """Time the named benchmark modules (all of them when none is named)."""
    for name in argv or bench_modules():
        module = importlib.import_module(f"bench.{name}")
        try:
            for row in measure(module.cases()):
                print(json.dumps({"bench": name, **row}), flush=True)
        finally:
            if hasattr(module, "teardown"):
                module.teardown()


if __name__ == "__main__":
    main(sys.argv[1:])
