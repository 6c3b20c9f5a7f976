"""Trials of Darjeeling's balance by turn position: another multiplier strip, or random starting spaces.

The multiplier strips are designed content (``seeds/darjeeling/wharf.yaml``).  The rulebook puts
each player's starting crate on the next-lowest empty ship in turn order, so the strip decides what
each turn position's first crate scores.  ``--strip`` plays the arena's tables (the same seeds and
seating as ``chaiwala arena``) with a candidate strip patched in for this process and its workers
only.  ``--random-starts`` makes the heuristic choose its starting space at random (its other
choices unchanged), which takes its start evaluation out of the turn positions' rates.  The bot
``heuristic-ahead`` is the heuristic with its start evaluation before 2026-12-05 (the tiles straight
ahead, not the tea its first move can reach), for ``--bots heuristic,heuristic-ahead``.  Prints the
arena's summary (``turn_position_win_rate``, ``bots`` and the rest) as one JSON object.

Not a test and not the product: measurements for ``seeds/darjeeling/README.md`` ("Balance").
For example, 4 players, the heuristic in every seat, 2000 tables of seed 11, strip 1 2 2 2 3 3;
and the heuristic against its former start choice, 2 of each at 4 seats:

    PYTHONPATH=.:gen .venv/bin/python research/darjeeling/balance_trial.py 4 --strip 1,2,2,2,3,3 --seed 11
    PYTHONPATH=.:gen .venv/bin/python research/darjeeling/balance_trial.py 4 --bots heuristic,heuristic-ahead
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack, contextmanager
from typing import Any

import typer

from services.arena.schedule import plan
from services.arena.stats import summarize
from services.arena.tables import TableResult, TableSpec, play_table
from services.bots.roster import extra_bots
from services.common.engine import View
from services.darjeeling.board import STEP
from services.darjeeling.bots import Board, HeuristicBot
from services.darjeeling.content import BERTHS, STRIPS, WATER_TILES, check_strips

FORMER = "heuristic-ahead"


class StraightAheadStart(HeuristicBot):
    """The heuristic as it chose starting spaces before 2026-12-05: the tile, a city beside it, and
    how many spaces lie straight ahead (up to four); every other choice is today's."""

    def _value_choose_start(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        cell = (body["row"], body["col"])
        d_row, d_col = STEP[body["facing"]]
        ahead = 0
        while (cell[0] + d_row * (ahead + 1), cell[1] + d_col * (ahead + 1)) in board.spaces:
            ahead += 1
        near_city = 3.0 if board.near_city(cell) else 0.0
        return float(board.spaces[cell]["tile"]["halves"]) + near_city + min(ahead, 4) * 0.5


@contextmanager
def strip_for(players: int, strip: tuple[int, ...]) -> Iterator[None]:
    """Within the block, ``players``-seat games use ``strip`` (bottom berth first)."""
    check_strips({players: strip}, BERTHS, WATER_TILES)
    if list(strip) != sorted(strip):
        raise ValueError("a strip's multipliers rise from the bottom berth")
    designed = STRIPS[players]
    STRIPS[players] = strip
    try:
        yield
    finally:
        STRIPS[players] = designed


@contextmanager
def random_starts() -> Iterator[None]:
    """Within the block, the heuristic values every starting space alike (its tie-break draws one)."""
    evaluate = HeuristicBot._value_choose_start

    def indifferent(self: HeuristicBot, *args: Any) -> float:
        return 0.0

    HeuristicBot._value_choose_start = indifferent  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        HeuristicBot._value_choose_start = evaluate  # type: ignore[method-assign]


@contextmanager
def former_start_bot() -> Iterator[None]:
    """Within the block, Darjeeling's bots include ``heuristic-ahead`` (:class:`StraightAheadStart`)."""
    with extra_bots("darjeeling", {FORMER: StraightAheadStart}):
        yield


def _play(spec: TableSpec, strip: tuple[int, ...], random_start: bool) -> TableResult:
    with ExitStack() as trial:
        trial.enter_context(former_start_bot())
        if strip:
            trial.enter_context(strip_for(len(spec.bots), strip))
        if random_start:
            trial.enter_context(random_starts())
        return play_table(spec)


def main(
    players: int,
    tables: int = 2000,
    seed: int = 1,
    strip: str = "",
    random_start: bool = typer.Option(False, "--random-starts"),
    region: str = "",
    bots: str = "heuristic",
    jobs: int = 1,
) -> None:
    """Play ``tables`` arena tables of ``seed`` under the trial and print the summary."""
    multipliers = tuple(int(m) for m in strip.split(",")) if strip else ()
    with former_start_bot():
        specs = plan("darjeeling", players, bots.split(","), tables, seed=seed, options={"region": region})
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(_play, specs, [multipliers] * len(specs), [random_start] * len(specs), chunksize=50))
    summary = summarize("darjeeling", players, results)
    summary["trial"] = {"strip": list(multipliers), "random_starts": random_start, "region": region}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    typer.run(main)
