"""Seat the bots for every table (rotated through the seats) and play the tables in parallel."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from services.arena.tables import TableResult, TableSpec, play_table
from services.bots.roster import bots_for
from services.bots.search import WALL_CAP_ENV
from services.common.engine import RulesError
from services.common.registry import UnknownGameType, engine_for, game_types


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
    game: str,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int = 1,
    max_moves: int = 50_000,
    options: Mapping[str, Any] | None = None,
) -> list[TableSpec]:
    """Every table of a run (``options``: the game's options, the same at every table).

    Raises :class:`ValueError` naming the problem for an unknown game or bot, a seat count
    the game does not take or options it refuses, before any table is played.
    """
    check_run(game, players, bots, options or {})
    return [
        TableSpec(
            game=game,
            bots=seating(bots, players, table),
            seed=table_seed(seed, table),
            max_moves=max_moves,
            options=dict(options or {}),
        )
        for table in range(games)
    ]


def check_run(game: str, players: int, bots: Sequence[str], options: Mapping[str, Any]) -> None:
    """Refuse (``ValueError``) a run that could not play: unknown game or bot, bad count or options."""
    try:
        engine = engine_for(game)
    except UnknownGameType:
        raise ValueError(f"no game type {game!r}; choose from {sorted(game_types())}") from None
    unknown = sorted(set(bots) - set(bots_for(engine)))
    if unknown:
        raise ValueError(f"{game} has no bot {', '.join(unknown)}; choose from {sorted(bots_for(engine))}")
    try:
        engine.validate_options(players, options)
    except RulesError as error:
        raise ValueError(error.message) from None


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``["region=india", "fast_game=true", "round_limit=100"]`` as game options.

    Values read as JSON where they can (numbers, ``true``/``false``), else as strings.
    """
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"option {pair!r} is not KEY=VALUE")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options


def run_tables(
    specs: Sequence[TableSpec], jobs: int = 1, on_result: Callable[[TableResult], None] | None = None
) -> list[TableResult]:
    """Play every table (``jobs`` processes; 1 = in this process); results in ``specs`` order.

    Lifts the search bot's wall-clock safety cap (``CHAIWALA_SEARCH_WALL_CAP=off`` unless the
    caller set it): a measured strength is then the level's own, whatever the machine's load.
    """
    os.environ.setdefault(WALL_CAP_ENV, "off")
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
