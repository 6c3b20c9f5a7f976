"""Trial: Darjeeling's balance by turn position with another multiplier strip for one player count.

The multiplier strips are designed content (``seeds/darjeeling/wharf.yaml``).  The rulebook puts
each player's starting crate on the next-lowest empty ship in turn order, so the strip decides what
each turn position's first crate scores.  This trial plays the arena's tables (the same seeds and
seating as ``chaiwala arena``) with a candidate strip patched in for this process and its workers
only, and prints the arena's summary (``turn_position_win_rate`` and the rest) as one JSON object.

Not a test and not the product: a measurement for ``seeds/darjeeling/README.md`` ("Balance").
For example, 4 players, the heuristic in every seat, 2000 tables of seed 11, strip 1 2 2 2 3 3:

    PYTHONPATH=.:gen .venv/bin/python tests/darjeeling/strip_trial.py 4 1,2,2,2,3,3 --tables 2000 --seed 11
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

import typer

from services.arena.schedule import plan
from services.arena.stats import summarize
from services.arena.tables import TableResult, TableSpec, play_table
from services.darjeeling.content import STRIPS


@contextmanager
def strip_for(players: int, strip: tuple[int, ...]) -> Iterator[None]:
    """Within the block, ``players``-seat games use ``strip`` (bottom berth first)."""
    if len(strip) < players or list(strip) != sorted(strip):
        raise ValueError("a strip needs a ship for every player, multipliers rising from the bottom")
    designed = STRIPS[players]
    STRIPS[players] = strip
    try:
        yield
    finally:
        STRIPS[players] = designed


def _play(spec: TableSpec, strip: tuple[int, ...]) -> TableResult:
    with strip_for(len(spec.bots), strip):
        return play_table(spec)


def main(players: int, strip: str, tables: int = 2000, seed: int = 1, bots: str = "heuristic", jobs: int = 1) -> None:
    """Play ``tables`` arena tables of ``seed`` with ``strip`` (e.g. ``1,2,2,2,3,3``) and print the summary."""
    multipliers = tuple(int(m) for m in strip.split(","))
    specs = plan("darjeeling", players, bots.split(","), tables, seed=seed)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_play, specs, [multipliers] * len(specs), chunksize=50))
    summary = summarize("darjeeling", players, results)
    summary["strip"] = list(multipliers)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    typer.run(main)
