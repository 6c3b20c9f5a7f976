"""Seat the bots for every table (rotated through the seats) and play the tables in parallel."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed

from services.arena.tables import TableResult, TableSpec, play_table


def table_seed(base_seed: int, table: int) -> int:
    """The seed of table ``table``: derived from the run's seed, so a run is reproducible."""
    digest = hashlib.sha256(f"chaiwala/arena/{base_seed}/{table}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def seating(bots: Sequence[str], players: int, table: int) -> tuple[str, ...]:
    """The bot of each seat at table ``table``: the bot list, repeated to fill, rotated by the table.

    Rotating by one seat per table moves every bot through every seat, so over a multiple of
    ``players`` tables no bot is favoured by its seat position.
    """
    if not bots:
        raise ValueError("name at least one bot")
    if len(bots) > players:
        raise ValueError(f"{len(bots)} bots do not fit {players} seats")
    filled = [bots[s % len(bots)] for s in range(players)]
    shift = table % players
    return tuple(filled[shift:] + filled[:shift])


def plan(
    game: str, players: int, bots: Sequence[str], games: int, seed: int = 1, max_moves: int = 50_000
) -> list[TableSpec]:
    """Every table of a run."""
    return [
        TableSpec(game=game, bots=seating(bots, players, table), seed=table_seed(seed, table), max_moves=max_moves)
        for table in range(games)
    ]


def run_tables(
    specs: Sequence[TableSpec], jobs: int = 1, on_result: Callable[[TableResult], None] | None = None
) -> list[TableResult]:
    """Play every table (``jobs`` processes; 1 = in this process); results in ``specs`` order."""
    results: dict[int, TableResult] = {}
    if jobs <= 1:
        for index, spec in enumerate(specs):
            results[index] = play_table(spec)
            if on_result is not None:
                on_result(results[index])
        return [results[i] for i in range(len(specs))]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(play_table, spec): index for index, spec in enumerate(specs)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if on_result is not None:
                on_result(results[futures[future]])
    return [results[i] for i in range(len(specs))]
