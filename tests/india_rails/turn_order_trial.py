"""Trial: does India Rails' start-player edge follow the largest-payout hand or the first turn?

The rulebook's first player is the seat holding the largest single payout, so in a normal game
"turn position 1" and "the best-looking hand" are the same seat and the arena cannot tell them
apart.  This trial plays heuristic self-play tables on the arena's seeds (``table_seed(seed, t)``)
with the first player moved ``t % players`` seats on from the rulebook's choice (the engine's
choice is patched in this process only; ``t % players == 0`` is the rulebook order), so the best
hand starts at every turn position equally often.  It prints one JSON object: wins by turn
position, wins of the best hand by the turn position it held, and each table's outcome.

Not a test and not the product: a measurement for ``seeds/india_rails/README.md`` ("Is it the turn
order or the hand?").  For example, 5 seats, 100 tables of seed 1, two processes:

    PYTHONPATH=.:gen .venv/bin/python tests/india_rails/turn_order_trial.py 5 100 --seed 1 --jobs 2
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
from services.arena.tables import TableSpec, play_table
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


def _play(players: int, seed: int, table: int) -> dict[str, Any]:
    """One table with the first player moved ``table % players`` seats on."""
    shift = table % players
    spec = TableSpec(game="india_rails", bots=("heuristic",) * players, seed=table_seed(seed, table))
    with first_player_moved(shift):
        result = play_table(spec)
    best = rulebook_first_player(players, spec.seed)
    return {
        "table": table, "shift": shift, "finished": result.finished, "moves": result.moves,
        "winners": list(result.winners), "first": (best + shift) % players, "best_hand": best,
        "cpu_seconds": round(result.cpu_seconds, 2),
    }


def _position(seat: int, first: int, players: int) -> int:
    return (seat - first) % players + 1


def _rates(wins: list[int], tables: list[int]) -> list[dict[str, Any]]:
    return [
        {"position": p + 1, "wins": w, "tables": n, "rate": round(w / n, 4) if n else None,
         "ci95": [round(x, 4) for x in wilson(w, n)]}
        for p, (w, n) in enumerate(zip(wins, tables, strict=True))
    ]


def summarize(players: int, outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """Wins by turn position, and wins of the best hand by the turn position it held."""
    finished = [o for o in outcomes if o["finished"]]
    by_position = [0] * players
    best_wins, best_tables = [0] * players, [0] * players
    for o in finished:
        best_position = _position(o["best_hand"], o["first"], players)
        best_tables[best_position - 1] += 1
        best_wins[best_position - 1] += o["best_hand"] in o["winners"]
        for seat in o["winners"]:
            by_position[_position(seat, o["first"], players) - 1] += 1
    total = len(finished)
    return {
        "players": players, "tables": len(outcomes), "unfinished": len(outcomes) - total,
        "wins_by_turn_position": _rates(by_position, [total] * players),
        "best_hand_wins_by_its_position": _rates(best_wins, best_tables),
        "best_hand_wins": {"wins": sum(best_wins), "tables": total},
        "cpu_seconds_per_table": round(sum(o["cpu_seconds"] for o in outcomes) / max(1, len(outcomes)), 2),
        "outcomes": outcomes,
    }


def main(players: int, tables: int, seed: int = 1, start: int = 0, jobs: int = 1) -> None:
    """Play tables ``start`` .. ``start + tables - 1`` of ``seed`` and print the summary as JSON."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(_play, [players] * tables, [seed] * tables, range(start, start + tables)))
    print(json.dumps(summarize(players, outcomes), indent=1))


if __name__ == "__main__":
    typer.run(main)
