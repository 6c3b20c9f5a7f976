"""Trial: does India Rails' start-player edge follow the largest-payout hand or the first turn?

The rulebook's first player is the seat holding the largest single payout, so in a normal game
"turn position 1" and "the best-looking hand" are the same seat and the arena cannot tell them
apart.  This trial plays heuristic self-play tables on the arena's seeds (``table_seed(seed, t)``)
with the first player moved ``t % players`` seats on from the rulebook's choice (the engine's
choice is patched in this process only; ``t % players == 0`` is the rulebook order), so the best
hand starts at every turn position equally often.  It prints one JSON object: the arena's
statistics (``turn_position_win_rate`` and the rest, as ``chaiwala arena --json``), the best hand's
wins by the turn position it held (read from the engine's ``turn_position`` facts), and each
table's outcome.

Not a test and not the product: a measurement for ``seeds/india_rails/README.md`` ("Is it the turn
order or the hand?").  For example, 5 seats, 100 tables of seed 1, two processes:

    PYTHONPATH=.:gen .venv/bin/python research/india_rails/turn_order_trial.py 5 100 --seed 1 --jobs 2
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

import typer

from services.arena.intervals import wilson
from services.arena.schedule import table_seed
from services.arena.stats import summarize as arena_summary
from services.arena.tables import TableResult, TableSpec, play_table
from services.common.runner import Match
from services.india_rails.engine import IndiaRailsEngine, State

_RULEBOOK_FIRST = IndiaRailsEngine._first_player


@contextmanager
def first_player_moved(shift: int) -> Iterator[None]:
    """Within the block, new games start ``shift`` seats on from the rulebook's first player."""

    def moved(state: State) -> int:
        return (_RULEBOOK_FIRST(state) + shift) % len(state["players"])

    IndiaRailsEngine._first_player = staticmethod(moved)  # type: ignore[method-assign]
    try:
        yield
    finally:
        IndiaRailsEngine._first_player = staticmethod(_RULEBOOK_FIRST)  # type: ignore[method-assign]


def rulebook_first_player(players: int, seed: int) -> int:
    """The seat the rulebook starts on this deal: the largest single payout."""
    return _RULEBOOK_FIRST(Match.start(IndiaRailsEngine(), players, seed).state)


def _play(players: int, seed: int, table: int) -> tuple[TableResult, int]:
    """One table with the first player moved ``table % players`` seats on, and its best hand's seat."""
    spec = TableSpec(game="india_rails", bots=("heuristic",) * players, seed=table_seed(seed, table))
    with first_player_moved(table % players):
        result = play_table(spec)
    return result, rulebook_first_player(players, spec.seed)


def turn_position(result: TableResult, seat: int) -> int:
    """The seat's turn position as the engine reports it (``turn_position:K``, from the game's own order)."""
    fact = next(f for f in result.facts[seat] if f.startswith("turn_position:"))
    return int(fact.partition(":")[2])


def summarize(players: int, played: list[tuple[TableResult, int]]) -> dict[str, Any]:
    """The arena's statistics (wins by turn position and the rest), and the best hand's wins by its position."""
    arena = arena_summary("india_rails", players, [result for result, _ in played])
    best_wins, best_tables = [0] * players, [0] * players
    outcomes = []
    for result, best in played:
        if not result.finished:
            continue
        position = turn_position(result, best)
        best_tables[position - 1] += 1
        best_wins[position - 1] += best in result.winners
        outcomes.append({"seed": result.spec.seed, "winners": list(result.winners), "best_hand": best,
                         "best_hand_position": position})
    return {
        **arena,
        "best_hand_wins_by_its_position": [
            {"position": p + 1, "wins": w, "tables": n, "ci95": list(wilson(w, n))}
            for p, (w, n) in enumerate(zip(best_wins, best_tables, strict=True))
        ],
        "best_hand_wins": {"wins": sum(best_wins), "tables": arena["games"]},
        "outcomes": outcomes,
    }


def main(players: int, tables: int, seed: int = 1, start: int = 0, jobs: int = 1) -> None:
    """Play tables ``start`` .. ``start + tables - 1`` of ``seed`` and print the summary as JSON."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        played = list(pool.map(_play, [players] * tables, [seed] * tables, range(start, start + tables)))
    print(json.dumps(summarize(players, played), indent=1))


if __name__ == "__main__":
    typer.run(main)
