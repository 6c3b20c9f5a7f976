"""Redis bytes per game and per logged move (``MEMORY USAGE``), for every game.

Each game type's rules service plays one two-seat game of random legal moves over gRPC (up to
``memory_moves`` moves); every 25 moves the game's keys are measured exactly (``SAMPLES 0``).
Rows: the largest snapshot + metadata seen while the game was active, against the issue's
budget of 32 KiB, and the event stream's bytes per entry, against 300 B (ratio ≤ 1 meets it).
The sizing table in the README is derived from these rows.
"""

from __future__ import annotations

import asyncio
from typing import Any

from grpc import aio
from redis import asyncio as aioredis

from bench.config import Config
from bench.grpc_path import GrpcPlayers
from bench.procs import stack
from bench.results import Row
from chaiwala.v1 import rules_pb2_grpc
from services.common.registry import game_types
from services.filing.keys import game_keys

SUITE = "memory"
GAMES = tuple(game_types())  # every registered game, in port order
SNAPSHOT_BUDGET = 32 * 1024
MOVE_BUDGET = 300
EVERY = 25


async def _usage(redis: aioredis.Redis, game_id: str) -> tuple[int, int, int, int]:
    """Bytes of meta, state and events, and the number of stream entries."""
    meta, state, events = game_keys(game_id)
    sizes = [int(await redis.memory_usage(key, samples=0) or 0) for key in (meta, state, events)]
    return sizes[0], sizes[1], sizes[2], int(await redis.xlen(events))


async def _play(port: int, redis_url: str, config: Config) -> dict[str, Any]:
    redis = aioredis.Redis.from_url(redis_url)
    async with aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        players = GrpcPlayers(rules_pb2_grpc.RulesServiceStub(channel))
        await players.new_game(0)
        game_id = players.games[0][0]
        largest, moves = 0, 0
        while moves < config.memory_moves and players.games[0][2]:
            await players.move(0)
            moves += 1
            if moves % EVERY == 0 and players.games[0][2]:
                meta, state, _, _ = await _usage(redis, game_id)
                largest = max(largest, meta + state)
        meta, state, events, entries = await _usage(redis, game_id)
    await redis.aclose()
    return {
        "largest_active": max(largest, meta + state),
        "events": events,
        "entries": entries,
        "moves": moves,
        "finished": not players.games[0][2],
        "total": meta + state + events,
    }


def _rows(game: str, measured: dict[str, Any]) -> list[Row]:
    per_move = measured["events"] / max(1, measured["entries"])
    details = {k: measured[k] for k in ("moves", "entries", "finished", "total")}
    return [
        Row(SUITE, f"{game}_snapshot_and_meta", "bytes", measured["largest_active"], "budget_32KiB",
            SNAPSHOT_BUDGET, better="lower", goal=1.0, details=details),
        Row(SUITE, f"{game}_bytes_per_logged_move", "bytes", per_move, "budget_300B", MOVE_BUDGET,
            better="lower", goal=1.0, details={"stream_bytes": measured["events"]}),
    ]  # fmt: skip


def run(config: Config) -> list[Row]:
    """Play one game of each type and measure its keys."""
    rows: list[Row] = []
    with stack(config.workers) as running:
        for game in (config.game,) if config.quick else GAMES:
            rules = running.rules(game)
            rows += _rows(game, asyncio.run(_play(rules.port, running.redis_url, config)))
    return rows
