"""The ``listeners`` suite: 2,000 live games × 10 SSE listeners on one gateway worker (issue 47, item 2).

``python -m bench listeners --listeners 20000``: ``L / 10`` two-seat games, each watched by its two
seats (each with its own bearer, so its own upstream watch) and eight spectators (who share one);
then :data:`bench.many_streams.DRIVERS` movers play the watched games in turn, first with no
listener connected, then with all of them.  Rows: moves/s with against without (goal ≥ 0.8),
delivery p99 against the bare server at the same count (goal ≤ 2×), and the gateway's memory per
connection beside the bare server's (see :mod:`bench.many_streams`).

**Delivery is timed from the commit.**  The bare server's event exists the moment the bench
publishes it; a move's event exists once the rules service has appended it to the game's log in
Redis.  So in the paced phase each mover, before its ``POST``, blocks an ``XREAD`` on the game's log
after the version it saw (:func:`_commit_seen`, a connection of the bench's own) and stamps the
moment Redis hands the new entry over: the commit as a Redis client sees it, on the bench's own
``perf_counter`` clock (``CLOCK_MONOTONIC``, the listeners' clock too: no skew to trust).  The
headline p99 runs from that stamp to the listener's read returning, the same span the bare server's
figure covers (publish to read).  Timed from just before the ``POST`` (the figure before
2026-12-07) it held the move itself, 12-82 ms at p99, which no bare server makes; that figure stays
in the details (``from_post_p99_ms``), beside the one from the mover's answer.  On a cluster of one process
per suite the rules services follow every game with their stream mux (a few Redis connections,
``rules_redis_connections`` in the details, from ``CLIENT LIST``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from redis import asyncio as aioredis

from bench import many_streams as many
from bench.config import Config
from bench.rest_path import Players
from bench.results import Row
from bench.sse_listeners import Target
from services.games.store import events_key

SUITE = "listeners"
NOUNS = many.Nouns(SUITE, "listener", "event", "delivery")
SEATS, SPECTATORS = 2, 8  # listeners per game: its two seats and eight spectators
COMMIT_WAIT_MS = 10_000  # how long a commit watch waits for the move's log entry (then: not seen)


def _layout(players: Players, games: int) -> tuple[tuple[str, ...], tuple[str, ...], list[int]]:
    """Each listener's path and header, and its game (index into ``players.games``)."""
    paths, headers, game_of = [], [], []
    for index in range(games):
        game = players.games[index]
        path = f"/v1/games/{game.game_id}/events?after={game.version}"
        for seat in range(SEATS):
            paths.append(path)
            headers.append(f"Authorization: Bearer {game.tokens[seat]}")
            game_of.append(index)
        for _ in range(SPECTATORS):
            paths.append(path)
            headers.append("")
            game_of.append(index)
    return tuple(paths), tuple(headers), game_of


async def _commit_seen(redis: aioredis.Redis, game_id: str, before: int) -> float | None:
    """When the entry after version ``before`` of the game's log reached this process (``None``: not
    within :data:`COMMIT_WAIT_MS`).  Started before the move's ``POST``, so Redis answers the blocked
    read as the rules service's ``XADD`` commits (log entry ids are ``<version>-1``)."""
    answer = await redis.xread({events_key(game_id): f"{before}-1"}, count=1, block=COMMIT_WAIT_MS)
    return time.perf_counter() if answer else None


async def _play(players: Players, games: int, config: Config, listeners_of: dict[str, list[int]] | None,
                sent: many.Sent, rate: float = 0.0, redis: aioredis.Redis | None = None) -> dict[str, Any]:  # fmt: skip
    """The movers (closed loop, or paced at ``rate``; :func:`bench.many_streams.drive`); each send is noted,
    and with ``redis`` the moment each move's commit was seen (:func:`_commit_seen`).

    ``listeners_of`` is keyed by game id, not by the movers' index: a game that ends is replaced by a
    new one at its index (``Players.choose``), which its listeners do not watch, so its moves expect
    nothing of them (keyed by index, a run where a game ended counted its successor's moves "missed").
    """

    async def move(index: int) -> None:
        choice = await players.choose(index)
        game_id, before = choice.game.game_id, choice.game.version
        watched = (listeners_of or {}).get(game_id, [])
        seen = asyncio.create_task(_commit_seen(redis, game_id, before)) if redis is not None and watched else None
        await asyncio.sleep(0)  # the watch's XREAD goes out before the POST
        at = time.perf_counter()
        await players.submit(index, choice)
        answered = time.perf_counter()
        committed = await seen if seen is not None else None
        version = players.games[index].version
        sent.order.append((at, f"/events/{index}", version))
        for listener in watched:
            sent.expected[(listener, version)] = at
            sent.answered[(listener, version)] = answered
            if committed is not None:
                sent.committed[(listener, version)] = committed

    tally = await many.drive(move, games, config.seconds, config.warmup, rate)
    return {"rate": tally.rate, **tally.summary()}


async def _mux_connections(redis_url: str) -> int:
    """Connections of the rules services' stream muxes open in Redis now."""
    redis = aioredis.Redis.from_url(redis_url)
    try:
        clients: list[dict[str, Any]] = await redis.client_list()
    finally:
        await redis.aclose()
    return sum(1 for client in clients if str(client.get("name", "")).startswith("chaiwala-streams:"))


def _frame(size: int) -> Any:
    def frame(version: int) -> bytes:
        return b"id: %d:0\nevent: game_event\ndata: " % version + b"x" * size + b"\n\n"

    return frame


async def _measure(config: Config) -> list[Row]:
    count = max(config.many_listeners, SEATS + SPECTATORS)
    games = count // (SEATS + SPECTATORS)
    limits = many.raise_open_files(count * 2 + 4096)
    async with many.one_gateway(config) as (running, gateway, client):
        players = Players(client, config.game, seed=11)
        await players.start(games, at_once=32)
        quiet = await _play(players, games, config, None, many.Sent())
        paths, headers, game_of = _layout(players, games)
        listeners_of: dict[str, list[int]] = {}  # by the game each listener watches
        for listener, index in enumerate(game_of):
            listeners_of.setdefault(players.games[index].game_id, []).append(listener)
        target = Target(gateway.port, paths=paths, headers=headers)
        listeners, opened = await many.connect(target, len(paths), gateway, config.idle_seconds)
        try:
            loaded = await _play(players, games, config, None, many.Sent())
            sent, rate = many.Sent(), many.probe_rate(quiet["rate"])
            cpu = gateway.cpu()
            redis = aioredis.Redis.from_url(running.redis_url)
            try:
                paced = await _play(players, games, config, listeners_of, sent, rate, redis)
            finally:
                await redis.aclose()
            cpu = gateway.cpu() - cpu
            await listeners.settle()  # the last moves reach every listener (late ones too)
            connections = await _mux_connections(running.redis_url)
        finally:
            await asyncio.to_thread(listeners.stop)
        sample = (await client.get(f"/v1/games/{players.games[0].game_id}/events")).content
    case = {**many.deliveries(sent, listeners.first), **opened, **many.stream_errors(listeners),
            "paced_moves_per_s": round(paced["rate"], 2), "paced_move_p99_ms": paced["p99_ms"]}  # fmt: skip
    size = max(64, len(sample) // max(1, players.games[0].version + 1))
    bare = await many.floor(tuple(f"/events/{index}" for index in game_of), sent, _frame(size))
    details = {"listeners": count, "games": games, "per_game": f"{SEATS} seats + {SPECTATORS} spectators",
               "gateway_workers": 1, "rules_workers": config.workers, "rules_redis_connections": connections,
               "gateway_cpu_ms_per_move": round(cpu * 1000 / max(1, len(sent.order)), 2), **limits}  # fmt: skip
    return many.rows(NOUNS, case, bare, quiet, loaded, details)


def run(config: Config) -> list[Row]:
    """2,000 games × 10 listeners (or ``--listeners``) on one gateway worker."""
    return asyncio.run(_measure(config))
