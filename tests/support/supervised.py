"""``make run``'s supervisor as a test starts it: the real ``python -m services.processes``
on free ports, its output in a log file, and a look at its process tree (psutil)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil
import redis

from services.common.embedded_redis import free_port, loopback_url, redis_password
from services.common.processes import stop_process
from tests.support.fleet import ROOT
from tests.support.waiting import eventually


def _distinct_ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


@dataclass
class Supervised:
    """One supervisor running ``games`` (a subset of ``make run``'s), groups of ``processes`` each."""

    directory: Path
    games: tuple[str, ...] = ("darjeeling",)
    processes: int = 2
    process: subprocess.Popen[bytes] | None = None
    ports: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from services.processes.supervisor import game_order

        self.directory.mkdir(parents=True, exist_ok=True)
        names = ["http", "redis", "conductor_metrics", "tournament", "tournament_metrics", "webhook",
                 "webhook_metrics", "matchmaking", "matchmaking_metrics", "notify", "notify_metrics",
                 *(f"grpc:{g}" for g in game_order()),
                 *(f"metrics:{g}" for g in game_order())]
        self.ports = dict(zip(names, _distinct_ports(len(names)), strict=True))
        self.game_order = game_order()

    @property
    def url(self) -> str:
        """The gateway's base URL."""
        return f"http://127.0.0.1:{self.ports['http']}"

    @property
    def redis_url(self) -> str:
        """The embedded Redis's URL, with the password the supervisor generated into its data folder."""
        return loopback_url(self.ports["redis"], redis_password(self.directory / "redis"))

    @property
    def log_path(self) -> Path:
        """Where the supervisor and its children write."""
        return self.directory / "supervisor.log"

    def env(self) -> dict[str, str]:
        """The supervisor's environment: every port free, Redis embedded with its AOF here."""
        p = self.ports
        env = {
            **os.environ,
            "CHAIWALA_HTTP_PORT": str(p["http"]),
            "CHAIWALA_RUN_GAMES": ",".join(self.games),
            "CHAIWALA_RUN_GRPC_PORTS": ",".join(str(p[f"grpc:{g}"]) for g in self.game_order),
            "CHAIWALA_RUN_METRICS_PORTS": ",".join(str(p[f"metrics:{g}"]) for g in self.game_order),
            "CHAIWALA_RUN_CONDUCTOR_METRICS_PORT": str(p["conductor_metrics"]),
            "CHAIWALA_RUN_TOURNAMENT_PORT": str(p["tournament"]),
            "CHAIWALA_RUN_TOURNAMENT_METRICS_PORT": str(p["tournament_metrics"]),
            "CHAIWALA_RUN_WEBHOOK_GRPC_PORT": str(p["webhook"]),
            "CHAIWALA_RUN_WEBHOOK_METRICS_PORT": str(p["webhook_metrics"]),
            "CHAIWALA_RUN_MATCHMAKING_PORT": str(p["matchmaking"]),
            "CHAIWALA_RUN_MATCHMAKING_METRICS_PORT": str(p["matchmaking_metrics"]),
            "CHAIWALA_RUN_NOTIFY_GRPC_PORT": str(p["notify"]),
            "CHAIWALA_RUN_NOTIFY_METRICS_PORT": str(p["notify_metrics"]),
            "CHAIWALA_REDIS_PORT": str(p["redis"]),
            "CHAIWALA_VAR_DIR": str(self.directory),
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_GRPC_PROCESSES": str(self.processes),
            "CHAIWALA_HTTP_WORKERS": str(self.processes),
        }
        env.pop("REDIS_URL", None)
        return env

    def start(self, seconds: float = 90) -> None:
        """Start the supervisor and wait (boundedly) until the gateway is ready."""
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "services.processes"], cwd=ROOT, env=self.env(), stdout=log, stderr=log
            )
        deadline = time.monotonic() + seconds
        while not self.ready():
            assert self.process.poll() is None, f"the supervisor exited early:\n{self.log_tail()}"
            assert time.monotonic() < deadline, f"the stack did not become ready:\n{self.log_tail()}"
            time.sleep(0.2)

    def ready(self) -> bool:
        """Whether the gateway answers /readyz with 200."""
        try:
            return httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def log_tail(self, lines: int = 40) -> str:
        """The end of the supervisor's log (for failure messages)."""
        text = self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def aof_written(self) -> bool:
        """Whether Redis has written every write it acknowledged to its AOF (to the OS: a ``kill -9``
        of Redis alone then loses none of it).  With ``appendfsync everysec`` Redis holds new writes
        in memory, replying all the same, for up to 2 s while its previous fsync still runs (a busy
        disk); a kill meanwhile loses them (the game of a test under load was gone after a restart)."""
        client = redis.Redis.from_url(self.redis_url)
        try:
            return int(client.info("persistence")["aof_buffer_length"]) == 0
        except redis.RedisError:
            return False
        finally:
            client.close()

    def child(self, marker: str) -> psutil.Process:
        """The supervisor's (live) child whose command line contains ``marker``."""
        assert self.process is not None
        for child in psutil.Process(self.process.pid).children():
            if alive(child) and marker in " ".join(child.cmdline()):
                return child
        raise LookupError(marker)

    def tree(self) -> list[psutil.Process]:
        """The supervisor and every live descendant."""
        assert self.process is not None
        root = psutil.Process(self.process.pid)
        return [p for p in [root, *root.children(recursive=True)] if alive(p)]

    def interrupt(self, seconds: float = 60) -> int:
        """Ctrl-C: SIGINT, and the supervisor's exit status."""
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=seconds)

    def stop(self) -> None:
        """Make sure it is gone (a test that failed midway)."""
        if self.process is not None:
            stop_process(self.process, timeout=30)


def alive(process: psutil.Process) -> bool:
    """Running and not a zombie (an orphan that died stays a zombie when init does not reap it)."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def listeners(port: int) -> set[int]:
    """Pids with a listening TCP socket on ``port``."""
    return {c.pid for c in psutil.net_connections("tcp") if c.status == "LISTEN" and c.laddr.port == port and c.pid}


def wait_until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    """Poll ``condition()`` until true; fail naming ``what`` after ``seconds`` (a behaviour bound)."""
    eventually(condition, what, seconds, step=0.1)
