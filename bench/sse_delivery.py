"""SSE delivery: POST a move → its event at every listener, with 10, 1,000 and 5,000 listeners.

One game, L spectators on ``GET /v1/games/{id}/events`` (``Accept: text/event-stream``), each a
raw asyncio connection that only looks for ``id:`` lines (parsing costs the client next to
nothing, so the latency is the server's).  A driver plays moves one at a time and records,
per listener, when the first event of each new version arrives; latency is from sending the
POST to that arrival (so it includes the move's own processing).  Baseline: one bare Redis
``XADD`` → blocking ``XREAD`` on the same machine.  Beside it, move throughput (a closed loop
of other games) while the listeners stay connected, against the same with no listener.

Whatever breaks (a listener refused or cut off, a POST failing, an event never delivered) is
counted in the row's details; a case has a deadline, so an overloaded stack cannot hang it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
from redis import asyncio as aioredis

from bench.config import Config
from bench.load import closed_loop, error_kind, percentile
from bench.procs import Child, stack
from bench.rest_path import Players, Seat
from bench.results import Row

SUITE = "sse"
CONNECT_BATCH = 200
THROUGHPUT_GAMES = 8


@dataclass
class Listeners:
    """L raw SSE connections to one game and what they received."""

    port: int
    path: str
    open: int = 0
    ended: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    # version -> arrival time at each listener that saw it (first event of that version only)
    arrivals: dict[int, list[float]] = field(default_factory=dict)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def listen(self) -> None:
        """One listener: connect, check the status line, then record ``id:`` lines until the end."""
        writer = None
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), 30)
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            status = head.split(b" ", 2)[1].decode()
            if status != "200":
                self.errors[f"http_{status}"] += 1
                return
            self.open += 1
            await self._receive(reader)
        except (TimeoutError, OSError, asyncio.IncompleteReadError) as error:
            self.errors[error_kind(error)] += 1
        finally:
            if writer is not None:
                writer.close()

    async def _receive(self, reader: asyncio.StreamReader) -> None:
        seen: set[int] = set()
        pending = b""
        while True:
            data = await reader.read(65536)
            if not data:
                self.ended += 1
                return
            now = time.perf_counter()
            lines = (pending + data).split(b"\n")
            pending = lines.pop()
            for line in lines:
                if line.startswith(b"event: error"):
                    self.errors["error_event"] += 1
                if not line.startswith(b"id: "):
                    continue
                version = int(line[4:].split(b":")[0])
                if version not in seen:
                    seen.add(version)
                    self.arrivals.setdefault(version, []).append(now)

    async def start(self, count: int) -> None:
        """Open ``count`` listeners, ``CONNECT_BATCH`` at a time, and wait until each is open or failed."""
        for first in range(0, count, CONNECT_BATCH):
            before = self.open + sum(self.errors.values())
            batch = min(CONNECT_BATCH, count - first)
            self.tasks += [asyncio.create_task(self.listen()) for _ in range(batch)]
            deadline = time.monotonic() + 30
            while self.open + sum(self.errors.values()) - before < batch and time.monotonic() < deadline:
                await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """Close every connection."""
        for task in self.tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*self.tasks, return_exceptions=True)


async def _delivered(listeners: Listeners, version: int, expected: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(listeners.arrivals.get(version, [])) < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.002)


async def _drive(players: Players, listeners: Listeners, config: Config, deadline: float) -> dict[str, Any]:
    """Play moves one at a time; per move wait (bounded) until every open listener has it."""
    latencies: list[float] = []
    post_errors: Counter[str] = Counter()
    expected = missed = 0
    warm = True
    for _ in range(config.sse_moves + 1):
        if time.monotonic() > deadline:
            break
        sent = time.perf_counter()
        try:
            await players.move(0)
        except Exception as error:  # counted: an overloaded stack answers errors, the run goes on
            post_errors[error_kind(error)] += 1
            continue
        version = players.games[0].version
        live = listeners.open - listeners.ended  # a stream that already ended gets nothing more
        await _delivered(listeners, version, live, 10.0)  # ends as soon as every live listener has it
        arrivals = listeners.arrivals.get(version, [])
        if not warm:  # the first move only proves the streams are live
            latencies += [arrival - sent for arrival in arrivals]
            expected += live
            missed += max(0, live - len(arrivals))
        warm = False
    return {
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "deliveries": len(latencies),
        "missed": missed,
        "expected": expected,
        "post_errors": sum(post_errors.values()),
        **({"post_error_kinds": dict(post_errors)} if post_errors else {}),
    }


async def _throughput(gateway: Child, game: str, config: Config) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.port}", timeout=30) as client:
        players = Players(client, game, seed=7)
        try:
            await players.start(THROUGHPUT_GAMES)
        except Exception as error:
            return {"rate": 0.0, "errors": 1, "error_kinds": {error_kind(error): 1}}
        tally = await closed_loop(players.move, THROUGHPUT_GAMES, config.seconds, config.warmup)
        return {"rate": tally.rate, "errors": sum(tally.errors.values()), "p99_ms": tally.summary()["p99_ms"]}


async def _case(gateway: Child, count: int, config: Config) -> dict[str, Any]:
    deadline = time.monotonic() + config.sse_deadline
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.port}", timeout=30) as client:
        players = Players(client, config.game)
        await players.new_game(0)
        game: Seat = players.games[0]
        listeners = Listeners(gateway.port, f"/v1/games/{game.game_id}/events?after={game.version}")
        try:
            await listeners.start(count)
            delivery = await _drive(players, listeners, config, deadline)
            moves = await _throughput(gateway, config.game, config)
        finally:
            await listeners.stop()
    return {
        "listeners": count,
        "open": listeners.open,
        "connect_errors": sum(listeners.errors.values()),
        **({"listener_error_kinds": dict(listeners.errors.most_common(3))} if listeners.errors else {}),
        "closed_early": listeners.ended,
        **delivery,
        "moves_per_s": round(moves["rate"], 2),
        "move_errors": moves["errors"],
    }


async def _redis_floor(redis_url: str, events: int) -> dict[str, float]:
    """Bare Redis: XADD, then the time until a blocking XREAD on another connection returns it."""
    writer, reader = aioredis.Redis.from_url(redis_url), aioredis.Redis.from_url(redis_url)
    latencies: list[float] = []
    try:
        last = "0-0"
        for _ in range(events):
            read = asyncio.create_task(reader.xread({"bench:floor": last}, block=5000, count=1))
            await asyncio.sleep(0.001)  # let the read block first, as a listener's does
            sent = time.perf_counter()
            last = (await writer.xadd("bench:floor", {"e": b"x" * 200})).decode()
            await read
            latencies.append(time.perf_counter() - sent)
    finally:
        await writer.aclose()
        await reader.aclose()
    return {"p50_ms": round(percentile(latencies, 0.5) * 1000, 3),
            "p99_ms": round(percentile(latencies, 0.99) * 1000, 3)}  # fmt: skip


def _rows(case: dict[str, Any], floor: dict[str, float], quiet: dict[str, Any]) -> list[Row]:
    count = case["listeners"]
    goal_note = {"goal_p99_ms": 15} if count == 1000 else {}
    if not case["deliveries"]:
        goal_note["failed"] = "no event delivered"
    moves_note = {"failed": "no move played"} if not case["moves_per_s"] else {}
    return [
        Row(SUITE, f"delivery_p99_{count}_listeners", "ms", case["p99_ms"], "redis_xadd_xread_p99", floor["p99_ms"],
            better="lower", details={**case, "redis_p50_ms": floor["p50_ms"], **goal_note}),
        Row(SUITE, f"moves_with_{count}_listeners", "moves/s", case["moves_per_s"], "moves_without_listeners",
            quiet["rate"], goal=0.8,
            details={"move_errors": case["move_errors"], "quiet_errors": quiet["errors"], **moves_note}),
    ]  # fmt: skip


async def _measure(config: Config) -> list[Row]:
    rows: list[Row] = []
    for count in config.sse_listeners:
        # A fresh stack per listener count: one that fell over cannot spoil the next.
        with stack(config.workers) as running:
            rules = running.rules(config.game)
            gateway = running.gateway({config.game: rules})
            quiet = await _throughput(gateway, config.game, config)
            floor = await _redis_floor(running.redis_url, max(config.sse_moves, 20))
            case = await _case(gateway, count, config)
        rows += _rows(case, floor, quiet)
    return rows


def run(config: Config) -> list[Row]:
    """Every listener count of the configuration."""
    return asyncio.run(_measure(config))
