"""What the ``listeners`` and ``players`` suites share: many streams on one gateway worker.

Both suites hold thousands of SSE streams open on **one gateway worker** (the issue's unit: "one
gateway process") with the rules services as deployed (``--workers``), play moves meanwhile in a
closed loop of :data:`DRIVERS` concurrent players spread over the watched games, and report:

* **moves/s with the streams open** against the same loop with none (goal ≥ 0.8);
* **delivery p99** (from the moment the event exists → the listener's read of it returned: the
  move's commit as seen in Redis where the suite watches for it, :mod:`bench.many_listeners`; else
  the move's ``POST`` sent, which holds the move itself), in a second phase paced at half the
  quiet rate (:func:`probe_rate`: below saturation, so the figure is
  the fan-out's and not the queue of a saturated move loop), against a **bare SSE server**
  (:mod:`bench.sse_floor`) holding the same number of listeners on the same topic layout, sent the
  same events at the same pace (goal ≤ 2×);
* **memory per connection**: the gateway's resident memory (whole process tree) gained while the
  listeners connected, divided by them, beside the bare server's.

Listeners are :mod:`bench.sse_listeners` child processes (raw sockets, one ``epoll`` loop each):
listener ``n`` asks for its own path and header, and stamps the first arrival of each number its
pattern finds.  The machine's open-file limit bounds the count: each listener is a socket on both
sides, so the benchmark raises its own limit (children inherit it) and says in the row's details
what it had.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.config import Config
from bench.load import Tally, closed_loop, percentile
from bench.procs import Child, Stack, rss_bytes, stack
from bench.results import Row
from bench.sse_floor import FloorServer
from bench.sse_listeners import ListenerGroup, Target

DRIVERS = 8  # concurrent move loops, as the sse suite's throughput run
PER_PROCESS = 5000  # listeners per child process (each child is one epoll loop)
PROBE_MAX_RATE = 100.0  # moves a second of the latency phase, at most
# The latency phase lasts at least this many moves at its pace (the quick slice's half second at a
# few moves a second made one or two notices, or none, for the players suite's p99 and its test).
PROBE_MOVES = 16
MANY = "1000000"
# One gateway worker, open to every stream of the run (bench.procs.UNLIMITED covers the rest).
GATEWAY = {
    "CHAIWALA_HTTP_WORKERS": "1",
    "CHAIWALA_SSE_UPSTREAMS_PER_PROCESS": MANY,
    "CHAIWALA_SSE_STREAMS_PER_TOKEN": MANY,
    "CHAIWALA_SESSION_LIMIT": f"{MANY}/second",
}
RULES = {"CHAIWALA_SESSION_LIMIT": f"{MANY}/second"}


@contextlib.asynccontextmanager
async def one_gateway(config: Config) -> AsyncIterator[tuple[Stack, Child, httpx.AsyncClient]]:
    """What both suites measure: ``config.game``'s rules service as deployed, one gateway worker open
    to every stream of the run (:data:`GATEWAY`), and an HTTP client of it for the movers."""
    with stack(config.workers) as running:
        rules = running.rules(config.game, RULES)
        gateway = running.gateway({config.game: rules}, GATEWAY)
        # Idle connections are let go well before the gateway's keep-alive timeout (5 s): at 5 s on both
        # sides, a request sent on a connection the gateway was closing was reset (httpx ReadError),
        # which ended two runs under a load of 15-19 while guests and games were being created.
        http = httpx.Limits(max_connections=64, max_keepalive_connections=64, keepalive_expiry=2.0)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{gateway.port}", timeout=60, limits=http) as client:
            yield running, gateway, client


def raise_open_files(wanted: int) -> dict[str, int]:
    """Raise this process's open-file limit (soft and, as root, hard) towards ``wanted``; children inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        target = max(hard, wanted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, target))
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    now = resource.getrlimit(resource.RLIMIT_NOFILE)
    return {"nofile_before": soft, "nofile_hard_before": hard, "nofile": now[0]}


def processes_for(count: int) -> int:
    """Listener child processes for ``count`` listeners."""
    return max(1, min(8, -(-count // PER_PROCESS)))


@dataclass
class Sent:
    """What the driver sent: each awaited number (a version) per listener, with its send time."""

    expected: dict[tuple[int, int], float] = field(default_factory=dict)  # (listener, number) -> sent at
    answered: dict[tuple[int, int], float] = field(default_factory=dict)  # (listener, number) -> POST answered at
    # (listener, number) -> the move's commit seen in Redis (the delivery's origin when present)
    committed: dict[tuple[int, int], float] = field(default_factory=dict)
    order: list[tuple[float, str, int]] = field(default_factory=list)  # (sent at, topic, number) per event


def deliveries(sent: Sent, first: dict[tuple[int, int], float]) -> dict[str, Any]:
    """Latency of every expected arrival (the first at or after its send), and how many never came
    (``missed``, which counts too the ones stamped before their send: ``before_send``, told apart so a
    failing run says whether an event was lost or a clock read out of order).

    The headline (``p50_ms``, ``p99_ms``) runs from the moment the event existed: its commit seen in
    Redis where the suite noted it (``origin`` ``commit``), else the ``POST`` sent (``origin``
    ``post``).  Beside it, always, from the ``POST`` (``from_post_…``: the move's own time included)
    and from the mover's answer (``after_answer_…``)."""
    latencies, from_post, after_answer = [], [], []
    missed = before_send = early = 0
    for key, at in sent.expected.items():
        arrived = first.get(key)
        if arrived is None or arrived < at:
            missed += 1
            before_send += arrived is not None
            continue
        from_post.append(arrived - at)
        if (committed := sent.committed.get(key)) is not None:
            early += arrived < committed  # the listener had it before the bench's own read returned
            latencies.append(max(0.0, arrived - committed))
        if key in sent.answered:  # how long after the mover had its answer (0 when the event came first)
            after_answer.append(max(0.0, arrived - sent.answered[key]))
    origin = "commit" if sent.committed else "post"
    latencies = latencies if sent.committed else from_post
    found: dict[str, Any] = {
        "origin": origin,
        "p50_ms": _ms(latencies, 0.5),
        "p99_ms": _ms(latencies, 0.99),
        "deliveries": len(from_post),
        "missed": missed,
        "before_send": before_send,
    }
    if sent.committed:
        found |= {"timed_from_commit": len(latencies), "before_commit_seen": early,
                  "from_post_p50_ms": _ms(from_post, 0.5), "from_post_p99_ms": _ms(from_post, 0.99)}  # fmt: skip
    if after_answer:  # the fan-out's share after the mover's answer (0 for an event that came first)
        found["after_answer_p50_ms"] = _ms(after_answer, 0.5)
        found["after_answer_p99_ms"] = _ms(after_answer, 0.99)
    return found


def _ms(values: list[float], fraction: float) -> float:
    return round(percentile(values, fraction) * 1000, 2) if values else 0.0


async def drive(move: Callable[[int], Awaitable[None]], games: int, seconds: float, warmup: float,
                rate: float = 0.0) -> Tally:  # fmt: skip
    """:data:`DRIVERS` movers (fewer when there are fewer ``games``); ``move(index)`` plays one move of
    game ``index``.  Each mover has its own games, played in turn (:func:`game_of`), so two movers never
    race for one game (a version conflict, counted as an error).  A closed loop (as fast as the stack
    answers: the throughput), or paced at ``rate`` moves a second in all, for :data:`PROBE_MOVES` moves
    at least."""
    movers = max(1, min(DRIVERS, games))
    seconds = max(seconds, PROBE_MOVES / rate) if rate else seconds
    counts = [0] * movers

    async def body(loop: int) -> None:
        counts[loop] += 1
        await move(game_of(loop, counts[loop] - 1, games, movers))

    return await closed_loop(body, movers, seconds, warmup, pace=movers / rate if rate else 0.0)


def game_of(loop: int, k: int, games: int, movers: int) -> int:
    """The game of mover ``loop``'s ``k``-th move: mover ``loop`` of ``movers`` (at most ``games``) plays
    the games ``g`` with ``g % movers == loop`` in turn."""
    own = (games - loop + movers - 1) // movers
    return loop + movers * (k % own)


def probe_rate(quiet_rate: float) -> float:
    """The pace of the latency phase: half what the stack played with no listener, at most
    :data:`PROBE_MAX_RATE` a second.  Delivery is measured below saturation: a closed loop at full
    speed would time the moves' own queue, not the fan-out."""
    return max(1.0, min(PROBE_MAX_RATE, quiet_rate / 2))


async def connect(
    target: Target, count: int, gateway: Child, idle_seconds: float
) -> tuple[ListenerGroup, dict[str, Any]]:
    """Open ``count`` listeners; how many opened, what failed, how fast, the memory they cost, and the
    gateway's CPU holding them for ``idle_seconds`` with nothing happening."""
    listeners = ListenerGroup(target, count, processes_for(count))
    before = rss_bytes(gateway.pid)
    started = time.monotonic()
    await asyncio.to_thread(listeners.start)
    took = time.monotonic() - started
    await asyncio.sleep(2.0)  # upstream watches settle (their history reads) before memory is read
    gained = rss_bytes(gateway.pid) - before
    cpu, idle_from = gateway.cpu(), time.monotonic()
    await asyncio.sleep(idle_seconds)  # what holding them costs with nothing happening (pings)
    idle = (gateway.cpu() - cpu) / (time.monotonic() - idle_from)
    return listeners, {
        "open": listeners.opened,
        "connect_errors": sum(listeners.connect_errors.values()),
        **({"connect_error_kinds": dict(listeners.connect_errors.most_common(4))} if listeners.connect_errors else {}),
        "connect_seconds": round(took, 1),
        "gateway_kib_per_connection": round(gained / 1024 / max(1, listeners.opened), 1),
        "gateway_idle_cpu_percent": round(100 * idle, 1),
    }


async def floor(paths: tuple[str, ...], sent: Sent, frame: Callable[[int], bytes],
                pattern: bytes = Target.pattern) -> dict[str, Any]:  # fmt: skip
    """The bare server with the same listeners (one topic per path) sent the same events at the same pace."""
    server = FloorServer(1)  # one process, as the gateway worker measured
    target = Target(server.port, paths=paths, pattern=pattern)
    listeners = ListenerGroup(target, len(paths), processes_for(len(paths)))
    replay = Sent()
    topics: dict[str, list[int]] = {}
    for index, path in enumerate(paths):
        topics.setdefault(path, []).append(index)
    try:
        await server.start()
        before = sum(rss_bytes(process.pid) for process in server.processes)
        await asyncio.to_thread(listeners.start)
        gained = sum(rss_bytes(process.pid) for process in server.processes) - before
        order = sorted(sent.order)
        began, first_at = time.perf_counter(), order[0][0] if order else 0.0
        for at, topic, number in order:
            delay = (at - first_at) - (time.perf_counter() - began)
            if delay > 0:
                await asyncio.sleep(delay)
            now = time.perf_counter()
            await server.publish(frame(number), topic)
            for index in topics.get(topic, []):
                replay.expected[(index, number)] = now
        await listeners.settle(least=2.0)
    finally:
        await asyncio.to_thread(listeners.stop)
        await server.stop()
    return {**deliveries(replay, listeners.first), "open": listeners.opened,
            "kib_per_connection": round(gained / 1024 / max(1, listeners.opened), 1)}  # fmt: skip


def stream_errors(listeners: ListenerGroup) -> dict[str, Any]:
    """What went wrong on open streams (ended early, error events, socket errors)."""
    errors = Counter(listeners.errors)
    return {"closed_early": listeners.ended, **({"stream_error_kinds": dict(errors.most_common(4))} if errors else {})}


@dataclass(frozen=True)
class Nouns:
    """How a suite names its streams in its rows: ``listeners`` hold game streams and get events
    (``delivery_…``); ``players`` hold their own streams and get notices (``notice_…``)."""

    suite: str  # the suite, and the plural of who holds a stream ("listeners", "players")
    holder: str  # one of them ("listener", "player")
    item: str  # what reaches them ("event", "notice")
    latency: str  # the latency rows' first word ("delivery", "notice")


def rows(nouns: Nouns, case: dict[str, Any], bare: dict[str, Any], quiet: dict[str, Any], loaded: dict[str, Any],
         details: dict[str, Any]) -> list[Row]:  # fmt: skip
    """The rows both suites report: moves/s with the streams open against none (goal ≥ 0.8), delivery
    p99 against the bare server (goal ≤ 2×), the same after the mover's answer, and memory per
    connection (``details[nouns.suite]``: how many streams)."""
    suite, count = nouns.suite, details[nouns.suite]
    failed = {"failed": f"no {nouns.item} delivered"} if not case["deliveries"] or not bare["deliveries"] else {}
    after_answer = f"{nouns.item} at the {nouns.holder} after the mover had its POST answer"
    after_answer += " (the move's own time left out)"
    headline = {"commit": f"the move's commit seen in Redis → the {nouns.holder}'s read (as the bare server:"
                " publish → read)", "post": f"the move's POST sent → the {nouns.holder}'s read (the move's own"
                " time included)"}[case.get("origin", "post")]  # fmt: skip
    notes = []
    if case.get("origin") == "commit":  # the figure before 2026-12-07, kept as a note
        notes.append(Row(suite, f"{nouns.latency}_from_post_p99_{count}_{suite}_vs_floor", "ms",
                         case["from_post_p99_ms"], "bare_server_p99", max(bare["p99_ms"], 0.01), better="lower",
                         details={"what": f"{nouns.item} timed from just before the move's POST (the move included)",
                                  "from_post_p50_ms": case["from_post_p50_ms"]}))  # fmt: skip
    return [
        Row(suite, f"moves_with_{count}_{suite}", "moves/s", round(loaded["rate"], 2), f"moves_without_{suite}",
            round(quiet["rate"], 2), goal=0.8,
            details={**details, "move_p99_ms": loaded["p99_ms"], "quiet_move_p99_ms": quiet["p99_ms"],
                     "move_errors": loaded["errors"], "quiet_errors": quiet["errors"]}),
        Row(suite, f"{nouns.latency}_p99_{count}_{suite}_vs_floor", "ms", case["p99_ms"], "bare_server_p99",
            max(bare["p99_ms"], 0.01), better="lower", goal=2.0,
            details={"what": headline, **case, "floor": bare, **failed}),
        *notes,
        Row(suite, f"{nouns.latency}_after_answer_p99_{count}_{suite}_vs_floor", "ms",
            case.get("after_answer_p99_ms", 0.0), "bare_server_p99", max(bare["p99_ms"], 0.01), better="lower",
            details={"what": after_answer, "after_answer_p50_ms": case.get("after_answer_p50_ms", 0.0),
                     "floor_p50_ms": bare["p50_ms"]}),
        Row(suite, f"memory_per_connection_{count}_{suite}", "KiB", case["gateway_kib_per_connection"],
            "bare_server_kib_per_connection", max(bare["kib_per_connection"], 0.1), better="lower",
            details={"open": case["open"], "floor_open": bare["open"]}),
    ]  # fmt: skip
