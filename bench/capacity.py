"""The ``capacity`` suite: the largest steady mix ``make run``'s stack holds with move p99 ≤ 50 ms (issue 47, item 4).

``python -m bench capacity [--workers N]`` starts the whole stack as ``make run`` does (the real
supervisor, :class:`tests.support.supervised.Supervised`: Redis with its AOF, one rules service per
game asked for, the conductor that plays bots, the webhook dispatcher, the director, matchmaker,
notifier and gateway; ``N`` processes per gateway and rules service, one per core by default), a
webhook receiver of its own (:mod:`bench.webhook_sink`, subscribed to ``turn.started`` and to
``game.started``/``game.finished``) and then ramps a realistic mix (:mod:`bench.capacity_mix`: players
on their ``/v1/me/events`` streams acting on their notices after seconds to minutes, bot games,
spectators) up in blocks — each step grown, left to settle, then held and measured — until a step
breaks: move (``POST /moves``) p99 above 50 ms, or any error (a refused request, a stream that
failed or ended, a notice or ``turn.started`` webhook that never came, a delivery that did not
verify).  It then narrows between the last good step and the first bad one by halves, and reports
both mixes with what broke.  Rows: one per step (its move p99 against the 50 ms goal), the largest
steady mix's move p99 against the goal (≤ 1×), and its size against the first bad one's.

The machine's other load counts: every step row gives the load average and the stack's and this
client's CPU (this process shares the cores), so a sitting can be read for what it was.
``--quick`` runs one small step with short think times, in seconds: a check that the suite runs and
reports well-formed rows, not a figure.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from bench import many_streams as many
from bench.capacity_mix import PLAYERS, SPECTATED, SPECTATORS, Block, Shared, Tally
from bench.config import Config, Plan
from bench.load import percentile
from bench.procs import UNLIMITED, cpu_seconds, process_tree, rss_bytes
from bench.results import Row
from tests.support.supervised import Supervised

SUITE = "capacity"
GOAL_P99_MS = 50.0
OPERATOR_KEY = "bench-capacity-operator-key-0123456789abcdef"  # this run's own stack only
WEBHOOKS = {"/turns": ["turn.started"], "/games": ["game.started", "game.finished"]}


IDLE_SECONDS = 10.0  # the stack's CPU at rest, before the ramp (subtracted for the CPU per move)


class Stack(Supervised):
    """``make run``'s supervisor, open to one client address and keyed for operators."""

    def env(self) -> dict[str, str]:
        """The supervisor's environment (every child inherits it)."""
        gateway = {name: value for name, value in many.GATEWAY.items() if name != "CHAIWALA_HTTP_WORKERS"}
        return {**super().env(), **UNLIMITED, **gateway, **many.RULES, "CHAIWALA_API_KEYS": OPERATOR_KEY}


class Sink:
    """The webhook receiver process (:mod:`bench.webhook_sink`) and what it has reported so far."""

    def __init__(self) -> None:
        root = Path(__file__).resolve().parents[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.webhook_sink"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        self.next = 0
        self.counted: dict[str, int] = {}

    async def subscribe(self, shared: Shared) -> None:
        """One subscription per path of :data:`WEBHOOKS`; each secret goes to the receiver only."""
        for path, kinds in WEBHOOKS.items():
            body = {"url": f"http://127.0.0.1:{self.port}{path}", "events": kinds}
            created = await shared.call("POST", "/v1/webhooks", body, shared.operator)
            await _post(self.port, f"/_secret{path}", created["secret"].encode())

    async def stats(self) -> dict[str, Any]:
        """Counts and ``turn.started`` arrivals since the last call."""
        found: dict[str, Any] = orjson.loads(await _get(self.port, f"/_stats?after={self.next}"))
        self.next, counts = found["next"], found["counts"]
        found["counts"] = {name: count - self.counted.get(name, 0) for name, count in counts.items()}
        self.counted = counts
        return found

    def stop(self) -> None:
        """Close its stdin (it exits) and wait."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def _post(port: int, path: str, body: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body)
    await reader.read()
    writer.close()


async def _get(port: int, path: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.0\r\nhost: x\r\n\r\n".encode())
    raw = await reader.read()
    writer.close()
    return raw.split(b"\r\n\r\n", 1)[1]


def _named(pid: int) -> str:
    """A supervised child's short name, from its command line."""
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    if "-m" in args:
        at = args.index("-m")
        return " ".join(args[at + 1 : at + 3]).replace("services.", "").replace("rules.server ", "rules-").strip()
    return Path(args[0]).name


def stack_cpu(supervisor: int) -> dict[str, float]:
    """CPU seconds so far of each child of the supervisor (with its workers), by name."""
    used: dict[str, float] = {}
    for child in process_tree(supervisor)[1:]:
        try:
            if Path(f"/proc/{child}/stat").read_text().split()[3] != str(supervisor):
                continue
            used[_named(child)] = used.get(_named(child), 0.0) + cpu_seconds(child)
        except OSError:
            continue
    return used


class Ramp:
    """The blocks running now, grown or shrunk to each step's size, and each step's figures."""

    def __init__(self, shared: Shared, sink: Sink, stack: Stack, plan: Plan) -> None:
        self.shared, self.sink, self.stack, self.plan = shared, sink, stack, plan
        self.blocks: list[Block] = []
        self.made = 0
        self.gate = asyncio.Semaphore(16)
        self.pid = stack.process.pid if stack.process is not None else 0
        self.idle_percent = 0.0

    async def rest(self, seconds: float) -> dict[str, float]:
        """The stack's CPU (percent of one core, by process) with nothing played: its own work at rest."""
        before, start = stack_cpu(self.pid), time.perf_counter()
        await asyncio.sleep(seconds)
        after, seconds = stack_cpu(self.pid), time.perf_counter() - start
        idle = {name: round(100 * (after[name] - before.get(name, 0.0)) / seconds, 2) for name in after}
        self.idle_percent = sum(idle.values())
        return idle

    async def resize(self, wanted: int) -> None:
        """Start new blocks (never restart a stopped one) or stop the newest, until ``wanted`` run."""
        while len(self.blocks) > wanted:
            await self.blocks.pop().stop()
        fresh = [Block(self.shared, self.made + n) for n in range(wanted - len(self.blocks))]
        self.made += len(fresh)
        await asyncio.gather(*(block.start(self.gate) for block in fresh))
        self.blocks += fresh

    async def step(self, wanted: int) -> dict[str, Any]:
        """Grow or shrink to ``wanted`` blocks, settle, hold and measure; the step's figures."""
        began = time.monotonic()
        await self.resize(wanted)
        grown = time.monotonic() - began
        await asyncio.sleep(self.plan.settle)
        shared = self.shared
        await self.sink.stats()  # what came before the window is not the window's
        shared.tally, load = Tally(), os.getloadavg()[0]
        cpu, client, start = stack_cpu(self.pid), time.process_time(), time.perf_counter()
        await asyncio.sleep(self.plan.hold)
        while len(shared.tally.moves) < self.plan.min_moves and time.perf_counter() - start < self.plan.max_hold:
            await asyncio.sleep(5.0)  # a p99 of a handful of moves would be their worst one
        end = time.perf_counter()
        tally, used = shared.tally, stack_cpu(self.pid)
        client = time.process_time() - client
        await asyncio.sleep(self.plan.grace)  # the window's last notices and webhooks arrive
        hooks = await self._webhooks(start, end)
        missed = sum(1 for sent in shared.caused.values() if start <= sent < end)
        shared.forget_before(end)
        seconds = end - start
        cores = {name: round(100 * (used.get(name, 0.0) - cpu.get(name, 0.0)) / seconds, 1) for name in used}
        figures = _figures(tally, seconds, hooks, missed)
        played = max(1, figures["moves"] + len(tally.bot_turns))
        figures["stack_cpu_ms_per_move"] = round(sum(cores.values()) * seconds * 10 / played, 2)
        # What one more move costs: the stack's CPU above its rest, per move (human and bot) played;
        # one core's worth of it is a ceiling from CPU alone (no latency goal in it: inferred).
        marginal = max(0.0, sum(cores.values()) - self.idle_percent) * seconds * 10 / played
        figures["marginal_cpu_ms_per_move"] = round(marginal, 2)
        figures["cpu_ceiling_moves_per_s_per_core"] = round(1000 / marginal, 1) if marginal else 0.0
        mix = self.mix()
        return {
            **mix,
            **figures,
            "grow_s": round(grown, 1),
            "load_average": round(load, 2),
            "stack_cpu_percent": round(sum(cores.values()), 1),
            "client_cpu_percent": round(100 * client / seconds, 1),
            "cpu_percent_by_process": dict(sorted(cores.items(), key=lambda kv: -kv[1])),
            "seconds": round(seconds, 1),
            "stack_rss_mib": round(rss_bytes(self.pid) / 2**20),
            **_verdict(figures),
        }

    def mix(self) -> dict[str, int]:
        """What runs now: blocks, players (each on one stream), games, bot games, spectators, webhooks."""
        totals = {"blocks": len(self.blocks), "players": 0, "games": 0, "bot_games": 0, "spectators": 0}
        for block in self.blocks:
            for name, value in block.mix.items():
                totals[name] += value
        return {**totals, "webhooks": len(WEBHOOKS)}

    async def _webhooks(self, start: float, end: float) -> dict[str, Any]:
        found = await self.sink.stats()
        lags = []
        for game_id, version, arrived in found["turns"]:
            sent = self.shared.hooked.pop((game_id, version), None)
            if sent is not None and start <= sent < end:
                lags.append(arrived - sent)
        missing = sum(1 for sent in self.shared.hooked.values() if start <= sent < end)
        return {
            "lags": lags,
            "missing": missing,
            "unverified": found["counts"].get("unverified", 0),
            "delivered": found["counts"].get("verified", 0),
        }


def _ms(samples: list[float], q: float) -> float:
    return round(percentile(samples, q) * 1000, 1)


def _figures(tally: Tally, seconds: float, hooks: dict[str, Any], missed: int) -> dict[str, Any]:
    errors = dict(tally.errors)
    for name, count in (
        ("notice_missing", missed),
        ("webhook_missing", hooks["missing"]),
        ("webhook_unverified", hooks["unverified"]),
    ):
        if count:
            errors[name] = errors.get(name, 0) + count
    return {
        "moves_per_s": round(len(tally.moves) / seconds, 2),
        "bot_moves_per_s": round(len(tally.bot_turns) / seconds, 2),
        "moves": len(tally.moves),
        "move_p50_ms": _ms(tally.moves, 0.5),
        "move_p99_ms": _ms(tally.moves, 0.99),
        "read_p99_ms": _ms(tally.reads, 0.99),
        "notice_p50_ms": _ms(tally.notices, 0.5),
        "notice_p99_ms": _ms(tally.notices, 0.99),
        "bot_turn_p99_ms": _ms(tally.bot_turns, 0.99),
        "spectator_p99_ms": _ms(tally.spectated, 0.99),
        "webhook_p99_ms": _ms(hooks["lags"], 0.99),
        "webhooks_per_s": round(hooks["delivered"] / seconds, 2),
        "version_races_retried": tally.retried,
        "games_ended": tally.ended,
        "errors": sum(errors.values()),
        "error_kinds": errors,
    }


def _verdict(figures: dict[str, Any]) -> dict[str, Any]:
    broke = []
    if figures["move_p99_ms"] > GOAL_P99_MS:
        broke.append(f"move p99 {figures['move_p99_ms']} ms > {GOAL_P99_MS:g} ms")
    if figures["errors"]:
        broke.append(f"errors {figures['error_kinds']}")
    if not figures["moves"]:
        broke.append("no move measured")
    return {"held": not broke, "broke": "; ".join(broke)}


async def ramp(shared: Shared, sink: Sink, stack: Stack, plan: Plan) -> list[dict[str, Any]]:
    """Up the levels until a step breaks (or the budget ends), then narrow by halves."""
    running = Ramp(shared, sink, stack, plan)
    idle = await running.rest(IDLE_SECONDS if plan.min_moves else 1.0)
    print(f"[bench capacity] at rest: {running.idle_percent:.1f} % of a core {idle}", file=sys.stderr, flush=True)
    steps: list[dict[str, Any]] = []
    started = time.monotonic()
    good, bad = 0, 0
    for level in plan.levels:
        if time.monotonic() - started > plan.budget:
            break
        steps.append(await running.step(level))
        print(f"[bench capacity] {_line(steps[-1])}", file=sys.stderr, flush=True)
        if not steps[-1]["held"] and not plan.every:
            bad = level
            break
        good = level
    for _ in range(plan.narrow if bad else 0):
        middle = (good + bad) // 2
        if middle in (good, bad) or time.monotonic() - started > plan.budget:
            break
        steps.append(await running.step(middle))
        print(f"[bench capacity] {_line(steps[-1])}", file=sys.stderr, flush=True)
        good, bad = (middle, bad) if steps[-1]["held"] else (good, middle)
    await running.resize(0)
    for step in steps:
        step.update(idle_stack_cpu_percent=round(running.idle_percent, 2), idle_cpu_percent_by_process=idle)
    return steps


def _line(step: dict[str, Any]) -> str:
    return (
        f"{step['blocks']} blocks, {step['players']} players, {step['games']} games: {step['moves_per_s']} moves/s,"
        f" p99 {step['move_p99_ms']} ms, load {step['load_average']}, "
        f"{'held' if step['held'] else 'BROKE: ' + step['broke']}"
    )


async def _measure(config: Config, plan: Plan) -> list[dict[str, Any]]:
    limits = many.raise_open_files(65536)
    stack = Stack(Path(tempfile.mkdtemp(prefix="chaiwala-capacity-")), games=(config.game,), processes=config.workers)
    sink = Sink()
    try:
        stack.start(seconds=180)
        shared = Shared(int(stack.ports["http"]), OPERATOR_KEY, config.game, plan.think, seed=47)
        async with shared.http:
            await sink.subscribe(shared)
            steps = await ramp(shared, sink, stack, plan)
    finally:
        sink.stop()
        stack.stop()
        shutil.rmtree(stack.directory, ignore_errors=True)
    for step in steps:
        step.update(workers=config.workers, cores=os.cpu_count(), nofile=limits["nofile"])
    return steps


def rows(steps: list[dict[str, Any]]) -> list[Row]:
    """One row per step, then the largest steady mix against the goal and against the first bad mix."""
    found = [
        Row(
            SUITE,
            f"step{n}_{step['blocks']}_blocks_{step['players']}_players",
            "ms",
            step["move_p99_ms"],
            "goal_p99_ms",
            GOAL_P99_MS,
            better="lower",
            details=step,
        )
        for n, step in enumerate(steps, 1)
    ]
    held = [step for step in steps if step["held"]]
    broke = [step for step in steps if not step["held"]]
    best = max(held, key=lambda step: step["blocks"]) if held else None
    worst = min(broke, key=lambda step: step["blocks"]) if broke else None
    summary = {
        "last_good": _mix_of(best),
        "first_bad": _mix_of(worst),
        "what_broke": worst["broke"] if worst else "nothing: the ramp ended first",
    }
    # No step held: no figure to set against the goal (the row says so, and what broke first).
    failed = {} if best else {"failed": "no step held"}
    p99 = best["move_p99_ms"] if best else 0.0
    found.append(Row(SUITE, "largest_steady_mix_move_p99", "ms", p99, "goal_p99_ms", GOAL_P99_MS, better="lower",
                     goal=1.0, details={**summary, **failed}))  # fmt: skip
    top = worst or (steps[-1] if steps else {"players": 0})
    found.append(
        Row(
            SUITE,
            "largest_steady_mix_players",
            "players",
            best["players"] if best else 0,
            "first_bad_mix_players" if worst else "last_step_players",
            max(1, top["players"]),
            details={"blocks": best["blocks"] if best else 0, "moves_per_s": best["moves_per_s"] if best else 0},
        )
    )
    return found


def _mix_of(step: dict[str, Any] | None) -> dict[str, Any]:
    if step is None:
        return {}
    names = ("blocks", "players", "games", "bot_games", "spectators", "webhooks", "moves_per_s", "bot_moves_per_s",
             "move_p99_ms", "notice_p99_ms", "webhooks_per_s", "stack_cpu_percent", "marginal_cpu_ms_per_move",
             "load_average")  # fmt: skip
    return {name: step[name] for name in names}


def run(config: Config) -> list[Row]:
    """The ramp (or the quick slice's one step) on ``make run``'s stack; its rows."""
    plan = config.capacity
    per_block = {"players": PLAYERS, "spectators": SPECTATED * SPECTATORS}
    print(
        f"[bench capacity] blocks of {per_block}; think {plan.think} s; {config.workers} processes per service",
        file=sys.stderr,
        flush=True,
    )
    return rows(asyncio.run(_measure(config, plan)))
