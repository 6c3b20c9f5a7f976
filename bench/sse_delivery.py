"""SSE delivery: POST a move → its event at every listener, with 10, 1,000 and 5,000 listeners.

One game, L spectators on ``GET /v1/games/{id}/events`` (``Accept: text/event-stream``), held by
child processes with raw sockets (:mod:`bench.sse_listeners`: one ``epoll`` loop each, no parsing
beyond finding ``id:`` lines, so the client costs next to nothing and does not share the driver's
event loop).  A driver plays moves one at a time; the driver waits (bounded) until every listener
has a move before the next one.

**What the latency is.**  The issue defines it as "POST accepted → event received".  The moment
the gateway accepts a request is not visible to a client, so a delivery's latency runs from just
before the driver sends ``POST /moves`` (the legal moves were fetched before, and the request body
is ready: :meth:`bench.rest_path.Players.choose`) to the time the listener's ``recv`` of the
event's bytes returned (until 2026-12-07 the time its ``epoll`` wait returned, which could predate
bytes that came in before the read).  It therefore includes the POST's transfer and the move's
processing up to the commit (a bound from above), and never the ``GET /legal-moves`` (until
2026-12-01 the stamp was taken before it, which added a whole request to every figure).  The
driver posts through :mod:`bench.lean_http`, so its own HTTP client costs next to nothing inside
the measured span.

Baselines: one bare Redis ``XADD`` → blocking ``XREAD``, read by the very same kind of child (a raw
RESP connection), so both sides of the ratio pay the same client; and **the floor**
(:mod:`bench.sse_floor`): a bare asyncio server, as many processes as the gateway's workers on one
port, writing the same bytes the gateway sent for each measured move (the game's events, rendered
as the gateway renders them) to the same number of listeners, timed by the same listener
processes — what the machine can do for one write per listener and move.  The delivery row's
details also say how the listeners spread over the gateway's processes (sockets each gained).
Beside them, move throughput (a closed loop of other games through httpx) while the listeners stay
connected, against the same with no listener.

Whatever breaks (a listener refused or cut off, a POST failing, an event never delivered) is
counted in the row's details; a case has a deadline, so an overloaded stack cannot hang it.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
from redis import asyncio as aioredis
from sse_starlette import ServerSentEvent

from bench.config import Config
from bench.lean_http import LeanClient
from bench.load import closed_loop, error_kind, percentile
from bench.procs import Child, process_tree, stack
from bench.rest_path import Players, Seat
from bench.results import Row
from bench.sse_floor import FloorServer, worker_sockets
from bench.sse_listeners import ListenerGroup, Target

SUITE = "sse"
THROUGHPUT_GAMES = 8
PER_PROCESS = 500  # listeners per child process, rounded down (at least one child, at most four)
FLOOR_STREAM = "bench:floor"


def processes_for(count: int) -> int:
    """How many child processes hold ``count`` listeners."""
    return max(1, min(4, count // PER_PROCESS))


async def _delivered(listeners: ListenerGroup, version: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not listeners.reached(version) and time.monotonic() < deadline:
        await asyncio.sleep(0.001)


def _latencies(listeners: ListenerGroup, sent: dict[int, float]) -> list[float]:
    return [stamp - at for version, at in sent.items() for stamp in listeners.arrivals.get(version, [])]


def _summary(latencies: list[float], expected: int) -> dict[str, Any]:
    return {
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "deliveries": len(latencies),
        "missed": max(0, expected - len(latencies)),
        "expected": expected,
    }


async def _drive(players: Players, listeners: ListenerGroup, config: Config, deadline: float) -> dict[int, float]:
    """Play moves one at a time; per move wait (bounded) until every open listener has it.

    Returns each measured version's send time (the first move only proves the streams are live)."""
    sent: dict[int, float] = {}
    post_errors: Counter[str] = Counter()
    for attempt in range(config.sse_moves + 1):
        if time.monotonic() > deadline:
            break
        try:
            choice = await players.choose(0)  # GET legal-moves is not part of the latency
            at = time.perf_counter()
            await players.submit(0, choice)
        except Exception as error:  # counted: an overloaded stack answers errors, the run goes on
            post_errors[error_kind(error)] += 1
            continue
        version = players.games[0].version
        await _delivered(listeners, version, 10.0)
        if attempt:
            sent[version] = at
    listeners.errors.update({f"post_{kind}": n for kind, n in post_errors.items()})
    return sent


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
    async with LeanClient(gateway.port) as client:  # the driver's own CPU stays out of the latency
        players = Players(client, config.game)
        await players.new_game(0)
        game: Seat = players.games[0]
        path = f"/v1/games/{game.game_id}/events?after={game.version}"
        listeners = ListenerGroup(Target(gateway.port, path=path), count, processes_for(count))
        sockets = worker_sockets(process_tree(gateway.pid))
        try:
            await asyncio.to_thread(listeners.start)
            spread = _spread(sockets, worker_sockets(process_tree(gateway.pid)))
            cpu = gateway.cpu()
            sent = await _drive(players, listeners, config, deadline)
            cpu = gateway.cpu() - cpu
            moves = await _throughput(gateway, config.game, config)
        finally:
            await asyncio.to_thread(listeners.stop)
        frames = await _frames(client, game.game_id, sorted(sent))
    post_errors = sum(n for kind, n in listeners.errors.items() if kind.startswith("post_"))
    stream_errors = Counter({k: n for k, n in listeners.errors.items() if not k.startswith("post_")})
    return {
        "listeners": count,
        "listener_processes": processes_for(count),
        "open": listeners.opened,
        "connect_errors": sum(listeners.connect_errors.values()),
        **({"listener_error_kinds": dict(listeners.connect_errors.most_common(3))} if listeners.connect_errors else {}),
        **({"stream_error_kinds": dict(stream_errors.most_common(3))} if stream_errors else {}),
        "closed_early": listeners.ended,
        **_summary(_latencies(listeners, sent), listeners.opened * len(sent)),
        # CPU the gateway spent per move and per delivery while the moves were driven (the machine's
        # load stretches latency; this barely moves with it).
        "gateway_cpu_ms_per_move": round(cpu * 1000 / max(1, len(sent) + 1), 2),
        "gateway_cpu_us_per_delivery": round(cpu * 1e6 / max(1, listeners.opened * (len(sent) + 1)), 2),
        "post_errors": post_errors,
        "moves_per_s": round(moves["rate"], 2),
        "move_errors": moves["errors"],
        "listeners_per_process": spread,
        "frames": frames,
    }


def _spread(before: dict[int, int], after: dict[int, int]) -> list[int]:
    """Sockets each gateway process gained while the listeners connected (largest first)."""
    gained = [count - before.get(pid, 0) for pid, count in after.items()]
    return sorted((n for n in gained if n > 0), reverse=True)


async def _frames(client: LeanClient, game_id: str, versions: list[int]) -> list[tuple[int, bytes]]:
    """Each measured version's SSE bytes as the gateway sends a spectator (``gateway.fanout.sse_bytes``)."""
    if not versions:
        return []
    listing = _checked_json(await client.get(f"/v1/games/{game_id}/events?after={versions[0] - 1}"))
    frames: dict[int, bytes] = {}
    for event in listing:
        version = event["version"]
        message = ServerSentEvent(id=f"{version}:{event.get('index', 0)}", event="game_event",
                                  data=orjson.dumps(event).decode())  # fmt: skip
        frames[version] = frames.get(version, b"") + message.encode()
    return [(version, frames[version]) for version in versions if version in frames]


def _checked_json(answer: Any) -> Any:
    if answer.status_code != 200:
        raise RuntimeError(f"listing events: {answer.status_code}")
    return answer.json()


async def _floor(count: int, frames: list[tuple[int, bytes]], workers: int) -> dict[str, Any]:
    """The same frames written by the bare server (:mod:`bench.sse_floor`) to ``count`` listeners."""
    floor = FloorServer(workers)
    listeners = ListenerGroup(Target(floor.port, path="/events"), count, processes_for(count))
    sent: dict[int, float] = {}
    try:
        await floor.start()
        await asyncio.to_thread(listeners.start)
        cpu = (floor.cpu(), listeners.cpu())
        for version, data in frames:
            await asyncio.sleep(0.002)  # the driver's GET legal-moves sits here in the gateway case
            at = time.perf_counter()
            await floor.publish(data)
            await _delivered(listeners, version, 10.0)
            sent[version] = at
        cpu = (floor.cpu() - cpu[0], listeners.cpu() - cpu[1])
    finally:
        await asyncio.to_thread(listeners.stop)
        await floor.stop()
    summary = _summary(_latencies(listeners, sent), listeners.opened * len(sent))
    deliveries = max(1, listeners.opened * len(sent))
    # CPU per delivery of the bare writes and of the listeners' reads (both on the same cores): the
    # physical floor of one move's fan-out is about listeners x their sum over the cores.
    return {**summary, "open": listeners.opened, "workers": floor.workers,
            "bytes_per_move": round(sum(len(d) for _, d in frames) / max(1, len(frames))),
            "server_cpu_us_per_delivery": round(cpu[0] * 1e6 / deliveries, 2),
            "listener_cpu_us_per_delivery": round(cpu[1] * 1e6 / deliveries, 2)}  # fmt: skip


async def _redis_floor(redis_url: str, port: int, events: int) -> dict[str, Any]:
    """Bare Redis: XADD, then the time until a blocking XREAD on another connection returns it,
    read by the same kind of listener process as the SSE streams."""
    writer = aioredis.Redis.from_url(redis_url)
    password = urlsplit(redis_url).password or ""  # Redis asks every client for it
    listeners = ListenerGroup(Target(port, stream=FLOOR_STREAM, password=password), 1, 1)
    sent: dict[int, float] = {}
    try:
        await writer.delete(FLOOR_STREAM)
        await asyncio.to_thread(listeners.start)
        for version in range(1, events + 1):
            await asyncio.sleep(0.001)  # let the read block again, as a listener's does
            at = time.perf_counter()
            await writer.xadd(FLOOR_STREAM, {"e": f"\nid: {version}:0\n".encode() + b"x" * 200}, id=f"{version}-1")
            await _delivered(listeners, version, 5.0)
            sent[version] = at
    finally:
        await asyncio.to_thread(listeners.stop)
        await writer.aclose()
    return _summary(_latencies(listeners, sent), len(sent))


def _rows(case: dict[str, Any], floor: dict[str, Any], quiet: dict[str, Any], bare: dict[str, Any]) -> list[Row]:
    count = case["listeners"]
    goal_note: dict[str, Any] = {"goal_p99_ms": 15} if count == 1000 else {}
    if not case["deliveries"]:
        goal_note["failed"] = "no event delivered"
    moves_note = {"failed": "no move played"} if not case["moves_per_s"] else {}
    bare_note = {"failed": "the floor delivered nothing"} if not bare["deliveries"] else {}
    return [
        Row(SUITE, f"delivery_p99_{count}_listeners", "ms", case["p99_ms"], "redis_xadd_xread_p99", floor["p99_ms"],
            better="lower", details={**case, "redis_p50_ms": floor["p50_ms"], **goal_note}),
        Row(SUITE, f"delivery_p99_{count}_listeners_vs_floor", "ms", case["p99_ms"], "bare_server_p99",
            max(bare["p99_ms"], 0.01), better="lower",
            details={"p50_ms": case["p50_ms"], "floor": bare, **goal_note, **bare_note}),
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
            floor = await _redis_floor(running.redis_url, _port(running.redis_url), max(config.sse_moves, 20))
            case = await _case(gateway, count, config)
        bare = await _floor(count, case.pop("frames"), config.workers)
        rows += _rows(case, floor, quiet, bare)
    return rows


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def run(config: Config) -> list[Row]:
    """Every listener count of the configuration."""
    return asyncio.run(_measure(config))
