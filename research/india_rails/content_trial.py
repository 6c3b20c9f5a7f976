"""Trial: does a change to India Rails' designed content even out the turn order at 5 players?

At 5 seats heuristic self-play gives the start player 23.4 % and the last position 16.8 % of
1,000 tables (``seeds/india_rails/README.md``).  Two parts of the content are ours, not the
rulebook's, and could be the lever:

* ``compressed-payouts`` — every demand's payout pulled towards the median, p' = round(34 ×
  (p / 34) ^ 0.6) (11M → 17M, 98M → 64M): the best opening hand, which the rulebook sends first,
  stands less far above the others.
* ``medium-cities`` — every small city takes track from 3 players instead of 2, as if all 27 small
  cities were medium: the rulebook's entry limits stay, but which city is small is our choice, and
  a full city is where building first shuts a later seat out.

Each variant is patched in this process only (``designed`` patches nothing; the build listings'
and the bot's memos are dropped on the way in and out, since their keys hold the state and not the
content) and plays heuristic self-play on the arena's tables (``table_seed(seed, t)``), the same
deals as ``chaiwala arena``.
It prints one JSON object: the arena's statistics (``turn_position_win_rate`` and the rest) and
the winner's mean turn position, a single figure for the gradient (3.0 is fair at 5 seats; a
shared victory counts as its winners' mean position).

Not a test and not the product: a measurement for ``seeds/india_rails/README.md``.  For example,
one variant on tables 0–99 of seed 1:

    PYTHONPATH=.:gen .venv/bin/python research/india_rails/content_trial.py medium-cities 5 100 --seed 1
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

import typer
from turn_order_trial import turn_position

from services.arena.intervals import mean_ci
from services.arena.schedule import table_seed
from services.arena.stats import summarize as arena_summary
from services.arena.tables import TableResult, TableSpec, play_table
from services.india_rails import bots, track
from services.india_rails.content import DEMAND_CARDS
from services.india_rails.track import ENTRY_LIMITS

MEDIAN_PAYOUT = 34
COMPRESSION = 0.6


def compressed(payout: int) -> int:
    """A payout pulled towards the median (the 2-player trial's rule)."""
    return round(MEDIAN_PAYOUT * (payout / MEDIAN_PAYOUT) ** COMPRESSION)


def _forget_memos() -> None:
    """Drop the engine's and the bot's memos: their keys hold the state, not the content patched here."""
    for memo in (track._LISTINGS, bots._SEARCHES, bots._RUNS):
        memo.clear()


@contextmanager
def _patched(apply: Callable[[], None], undo: Callable[[], None]) -> Iterator[None]:
    """Within the block the content is patched, with no memo from before it or kept after it."""
    _forget_memos()
    apply()
    try:
        yield
    finally:
        undo()
        _forget_memos()


@contextmanager
def designed() -> Iterator[None]:
    """The content as committed."""
    yield


@contextmanager
def compressed_payouts() -> Iterator[None]:
    """Within the block every demand pays its compressed payout."""
    demands = [d for card in DEMAND_CARDS.values() for d in card["demands"]]
    before = [d["payout"] for d in demands]

    def pay(payouts: list[int]) -> None:
        for demand, payout in zip(demands, payouts, strict=True):
            demand["payout"] = payout

    with _patched(lambda: pay([compressed(p) for p in before]), lambda: pay(before)):
        yield


@contextmanager
def medium_cities() -> Iterator[None]:
    """Within the block a small city admits as many players as a medium one."""
    before = ENTRY_LIMITS["small"]
    with _patched(lambda: ENTRY_LIMITS.update(small=ENTRY_LIMITS["medium"]),
                  lambda: ENTRY_LIMITS.update(small=before)):
        yield


VARIANTS: dict[str, Callable[[], Any]] = {
    "designed": designed,
    "compressed-payouts": compressed_payouts,
    "medium-cities": medium_cities,
}


def _play(variant: str, players: int, seed: int, table: int) -> TableResult:
    spec = TableSpec(game="india_rails", bots=("heuristic",) * players, seed=table_seed(seed, table))
    with VARIANTS[variant]():
        return play_table(spec)


def winner_position(results: list[TableResult]) -> dict[str, float]:
    """The winner's mean turn position over finished tables, with its 95 % interval.

    A table is one value: its winner's turn position, or the mean of its winners' when shared.
    """
    positions = [statistics.fmean(turn_position(result, seat) for seat in result.winners)
                 for result in results if result.finished and result.winners]
    if not positions:
        return {"mean": math.nan, "lo": math.nan, "hi": math.nan, "tables": 0}
    lo, hi = mean_ci(positions)
    return {"mean": statistics.fmean(positions), "lo": lo, "hi": hi, "tables": len(positions)}


def summarize(players: int, results: list[TableResult]) -> dict[str, Any]:
    """The arena's statistics and the winner's mean turn position."""
    return {**arena_summary("india_rails", players, results), "winner_turn_position": winner_position(results)}


def main(variant: str, players: int, tables: int, seed: int = 1, start: int = 0, jobs: int = 1) -> None:
    """Play tables ``start`` .. ``start + tables - 1`` of ``seed`` under ``variant``; print JSON."""
    if variant not in VARIANTS:
        raise typer.BadParameter(f"choose one of {', '.join(VARIANTS)}", param_hint="variant")
    rows = range(start, start + tables)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_play, [variant] * tables, [players] * tables, [seed] * tables, rows))
    print(json.dumps({"variant": variant, **summarize(players, results)}, indent=1))


if __name__ == "__main__":
    typer.run(main)
