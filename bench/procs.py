"""The processes a benchmark measures: Redis, rules services, the gateway and the baselines.

Every server is a real child process (as ``make run`` starts them), so the load generator in
the benchmark process does not share their interpreter; each is asked for its CPU time from
``/proc`` (with its children, so a process that forks workers is counted whole).  ``workers``
is handed to every server the same way (``CHAIWALA_WORKERS``; the trivial baseline runs that
many uvicorn workers), so a comparison is always between equal process counts.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.common.embedded_redis import EmbeddedRedis, free_port, start_redis
from services.common.processes import stop_process

# Where the servers' code comes from: this checkout, or (A/B runs) another checkout of the project
# with its gen/ built, e.g. ``BENCH_SERVER_ROOT=/tmp/old python -m bench rest`` then ``--compare``.
HERE = Path(__file__).resolve().parents[1]
ROOT = Path(os.environ.get("BENCH_SERVER_ROOT") or HERE)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Limits that protect a public deployment would throttle a load test from one address.
UNLIMITED = {
    "CHAIWALA_RATE_LIMIT_PER_TOKEN": "1000000/second",
    "CHAIWALA_RATE_LIMIT_PER_ADDRESS": "1000000/second",
    "CHAIWALA_CREATE_LIMIT": "1000000/second",
    "CHAIWALA_SSE_STREAMS_PER_ADDRESS": "1000000",
    "CHAIWALA_SSE_STREAMS_PER_PROCESS": "1000000",
}


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            text = (task / "children").read_text().split()
            found += [int(child) for child in text]
    return found


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants, as they are now."""
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += _children(current)
    return tree


def rss_bytes(pid: int) -> int:
    """Resident memory of ``pid`` and its living descendants."""
    total = 0
    for member in process_tree(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and its living descendants."""
    total = 0.0
    for member in process_tree(pid):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return total


@dataclass
class Child:
    """A server child process, its log file and the port it serves."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    def processes(self) -> int:
        """How many processes serve (the child and the workers it forked)."""
        return len(process_tree(self.pid))

    def cpu(self) -> float:
        """CPU seconds used so far (whole process tree)."""
        return cpu_seconds(self.pid)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        stop_process(self.process, timeout=10)

    def tail(self, lines: int = 20) -> str:
        """The end of the child's log (for an error message)."""
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""


def _spawn(name: str, args: list[str], env: dict[str, str], port: int, work: Path, root: Path = ROOT) -> Child:
    log_path = work / f"{name}.log"
    with log_path.open("wb") as log:
        environment = {**os.environ, "PYTHONPATH": f"{root}:{root / 'gen'}", **env}
        process = subprocess.Popen(args, env=environment, cwd=root, stdout=log, stderr=log)
    return Child(name, process, port, log_path)


def _wait(child: Child, ready: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.process.poll() is not None:
            raise RuntimeError(f"{child.name} exited at start:\n{child.tail()}")
        with contextlib.suppress(Exception):
            if ready():  # type: ignore[operator]
                return
        time.sleep(0.1)
    raise RuntimeError(f"{child.name} did not become ready in {timeout}s:\n{child.tail()}")


def _grpc_ready(port: int) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def _http_ready(port: int, path: str) -> bool:
    return httpx.get(f"http://127.0.0.1:{port}{path}", timeout=1).status_code == 200


def _port_open(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        return True


@dataclass
class Meter:
    """The CPU of a process that is no server of ours (the embedded Redis), read like a :class:`Child`'s."""

    name: str
    pid: int

    def cpu(self) -> float:
        """CPU seconds used so far (whole process tree)."""
        return cpu_seconds(self.pid)


@dataclass
class Stack:
    """Everything one benchmark case started; :meth:`close` stops it all."""

    workers: int = 1
    work: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="chaiwala-bench-")))
    redis: EmbeddedRedis | None = None
    children: list[Child] = field(default_factory=list)
    # Started but not yet seen ready, by name; running ones are reused by name (a shared stack).
    starting: dict[str, Any] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        """The embedded Redis (started on first use)."""
        if self.redis is None:
            self.redis = start_redis(self.work / "redis", appendonly=False)
        return self.redis.url

    def redis_meter(self) -> Meter:
        """The embedded Redis's CPU (started on first use), for whole-stack figures."""
        self.redis_url  # noqa: B018 -- starts it
        assert self.redis is not None
        return Meter("redis", self.redis.process.pid)

    def _env(self) -> dict[str, str]:
        return {
            "REDIS_URL": self.redis_url,
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_WORKERS": str(self.workers),
            # What the gateway and the rules services read (services/common/workers.py).
            "CHAIWALA_HTTP_WORKERS": str(self.workers),
            "CHAIWALA_GRPC_PROCESSES": str(self.workers),
        }

    def _serve(
        self, name: str, module: list[str], env: dict[str, str], port: int, ready: object, root: Path = ROOT
    ) -> Child:
        for child in self.children:
            if child.name == name:  # already running (a shared stack): reuse it
                self._ready(child)
                return child
        child = _spawn(name, [sys.executable, "-m", *module], {**self._env(), **env}, port, self.work, root)
        self.children.append(child)
        self.starting[name] = ready
        self._ready(child)
        return child

    def _ready(self, child: Child) -> None:
        ready = self.starting.pop(child.name, None)
        if ready is not None:
            _wait(child, ready)

    def prestart(self, game_type: str) -> None:
        """Start what the suites use up front (a process stack starts each when first asked)."""

    def rules(self, game_type: str, extra: dict[str, str] | None = None) -> Child:
        """A rules service process for ``game_type`` (``python -m services.rules.server``)."""
        port = free_port()
        env = {"CHAIWALA_GRPC_PORT": str(port), "CHAIWALA_METRICS_PORT": str(free_port()), **(extra or {})}
        return self._serve(f"rules-{game_type}", ["services.rules.server", game_type], env, port,
                           lambda: _grpc_ready(port))  # fmt: skip

    def gateway(self, services: dict[str, Child], extra: dict[str, str] | None = None) -> Child:
        """The gateway process (``python -m gateway``) routing to ``services`` (``extra``: more settings)."""
        port = free_port()
        env = {**UNLIMITED, "CHAIWALA_HTTP_PORT": str(port), "CHAIWALA_GAMES": ",".join(services), **(extra or {})}
        env.update({f"CHAIWALA_SERVICE_{game.upper()}": f"127.0.0.1:{c.port}" for game, c in services.items()})
        return self._serve("gateway", ["gateway"], env, port, lambda: _http_ready(port, "/healthz"))

    def trivial(self) -> Child:
        """The trivial FastAPI + Redis endpoint (:mod:`bench.trivial`), same worker count."""
        port = free_port()
        return self._serve("trivial", ["bench.trivial"], {"BENCH_PORT": str(port)}, port,
                           lambda: _http_ready(port, "/trivial"), HERE)  # fmt: skip

    def echo(self, intercepted: bool = False) -> Child:
        """The bare grpc.aio echo server (:mod:`bench.echo`), or one with the rules services' interceptor."""
        port = free_port()
        env = {"BENCH_PORT": str(port), "BENCH_INTERCEPTED": "1" if intercepted else "0"}
        name = "echo-intercepted" if intercepted else "echo"
        return self._serve(name, ["bench.echo"], env, port, lambda: _port_open(port), HERE)

    def floor_rules(self) -> Child:
        """The floor's rules half (:mod:`bench.floor`): load and commit in Redis, nothing else."""
        port = free_port()
        return self._serve("floor-rules", ["bench.floor", "rules"], {"BENCH_PORT": str(port)}, port,
                           lambda: _port_open(port), HERE)  # fmt: skip

    def floor_gateway(self, rules: Child) -> Child:
        """The floor's HTTP half (:mod:`bench.floor`), same worker count as the gateway."""
        port = free_port()
        env = {"BENCH_PORT": str(port), "BENCH_RULES_PORT": str(rules.port)}
        return self._serve("floor-gateway", ["bench.floor", "gateway"], env, port,
                           lambda: _http_ready(port, "/floor/ready/legal-moves"), HERE)  # fmt: skip

    def close(self) -> None:
        """Stop every child, then Redis."""
        for child in reversed(self.children):
            child.stop()
        self.children.clear()
        if self.redis is not None:
            self.redis.stop()
            self.redis = None


SHARED: list[Stack] = []


@contextlib.contextmanager
def stack(workers: int = 1) -> Iterator[Stack]:
    """A :class:`Stack` that is closed however the block ends, or the shared one (:func:`shared`)."""
    if SHARED:
        yield SHARED[0]
        return
    running = Stack(workers=workers)
    try:
        yield running
    finally:
        running.close()


@contextlib.contextmanager
def shared(running: Stack) -> Iterator[Stack]:
    """``running`` serves every suite run inside the block (the quick slice); closed at its end."""
    SHARED.append(running)
    try:
        yield running
    finally:
        SHARED.remove(running)
        running.close()
