"""The whole stack as real processes on fixed loopback ports, each of which can be killed and restarted.

``tests/support/stack.py`` runs rules services and the gateway in threads of the test process,
which cannot be ``kill -9``-ed on their own.  A :class:`Fleet` starts every component the way
``make run`` does, as its own process: an embedded ``redis-server`` with AOF
(``appendfsync everysec``, files in the fleet's directory), one rules service per game
(``python -m services.rules.server <game>``), the gateway (``python -m gateway``) and a conductor
(``python -m services.conductor``).  Ports are picked once, so a restarted component comes back at
the same address, and Redis with the same data (its AOF is replayed on start).

Redis writes every command to its AOF before it answers, so a ``kill -9`` of the Redis process
alone loses nothing that was acknowledged (only a crash of the machine can lose the last second).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from services.common.embedded_redis import free_port, loopback_url, redis_args, redis_password, wait_for_redis
from services.common.processes import stop_group
from tests.support import secrets
from tests.support.stack import grpc_serving

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60.0


@dataclass
class Component:
    """One process of the fleet and how to start it again at the same address."""

    name: str
    args: list[str]
    env: dict[str, str]
    log_path: Path
    ready: Callable[[subprocess.Popen[bytes]], bool]
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        """Start the process and wait until it serves."""
        self.spawn()
        self.wait_ready()

    def spawn(self) -> None:
        """Start the process (without waiting for it)."""
        with self.log_path.open("ab") as log:
            # Its own process group, so a stop ends the workers too (see stop).
            self.process = subprocess.Popen(
                self.args, env=self.env, cwd=ROOT, stdout=log, stderr=log, start_new_session=True
            )
        self.starts += 1

    def wait_ready(self) -> None:
        """Wait (boundedly) until the process serves; fail if it exits or takes too long."""
        assert self.process is not None
        deadline = time.monotonic() + START_SECONDS
        while not self.ready(self.process):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start (exit {self.process.poll()}; see {self.log_path})")
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL the process alone (not its workers), as when it crashes: the workers must end by
        themselves (services.common.workers)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def alive(self) -> bool:
        """Whether the process is running."""
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers; the same for whatever is left of its group."""
        if self.process is not None:
            stop_group(self.process)


def _grpc_serving(port: int) -> Callable[[subprocess.Popen[bytes]], bool]:
    return lambda process: grpc_serving(f"127.0.0.1:{port}")


def _http_ok(url: str) -> Callable[[subprocess.Popen[bytes]], bool]:
    def ready(process: subprocess.Popen[bytes]) -> bool:
        try:
            return httpx.get(url, timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    return ready


@dataclass
class Fleet:
    """Redis, one rules service per game, the gateway and a conductor, each a real process."""

    directory: Path
    games: list[str]
    api_key: str = "chaos-operator-key-" + os.urandom(12).hex()
    lease_ms: int = 30_000
    with_gateway: bool = True
    gateway_env: dict[str, str] = field(default_factory=dict)
    components: dict[str, Component] = field(default_factory=dict)

    def __post_init__(self) -> None:
        secrets.remember(self.api_key)
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / "redis").mkdir(mode=0o700, exist_ok=True)  # its auth.conf is written first
        self.redis_port = free_port()
        self.http_port = free_port()
        self.grpc_ports = {game: free_port() for game in self.games}
        base = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_API_KEYS": self.api_key,
        }
        self._add_redis()
        for game, port in self.grpc_ports.items():
            env = {**base, "CHAIWALA_GRPC_PORT": str(port), "CHAIWALA_METRICS_PORT": str(free_port())}
            self._add(f"rules:{game}", ["-m", "services.rules.server", game], env, _grpc_serving(port))
        gateway = {
            **base,
            "CHAIWALA_HTTP_PORT": str(self.http_port),
            "CHAIWALA_GAMES": ",".join(self.games),
            **{f"CHAIWALA_SERVICE_{g.upper()}": f"127.0.0.1:{p}" for g, p in self.grpc_ports.items()},
            **self.gateway_env,
        }
        if self.with_gateway:
            self._add("gateway", ["-m", "gateway"], gateway, _http_ok(f"{self.url}/healthz"))
        metrics = free_port()
        conductor = {**base, "CHAIWALA_METRICS_PORT": str(metrics), "CHAIWALA_CONDUCTOR_LEASE_MS": str(self.lease_ms)}
        self._add("conductor", ["-m", "services.conductor"], conductor, _http_ok(f"http://127.0.0.1:{metrics}/metrics"))

    def _add_redis(self) -> None:
        data = self.directory / "redis"
        data.mkdir(exist_ok=True)
        port, password = self.redis_port, redis_password(data)  # its password, kept across restarts
        self.components["redis"] = Component(
            "redis", redis_args(data, port), dict(os.environ), self.directory / "redis.out",
            lambda process: wait_for_redis(process, port, password, seconds=0.5),
        )

    def _add(self, name: str, args: list[str], env: dict[str, str], ready: Callable[..., bool]) -> None:
        log = self.directory / f"{name.replace(':', '-')}.log"
        self.components[name] = Component(name, [sys.executable, *args], env, log, ready)

    @property
    def url(self) -> str:
        """The gateway's base URL (the same across restarts)."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def redis_url(self) -> str:
        """Redis's URL with its password (the same across restarts)."""
        return loopback_url(self.redis_port, redis_password(self.directory / "redis"))

    def start(self) -> None:
        """Start Redis, then everything else at once (they import in parallel)."""
        self.components["redis"].start()
        others = [c for name, c in self.components.items() if name != "redis"]
        for component in others:
            component.spawn()
        for component in others:
            component.wait_ready()

    def stop(self) -> None:
        """Stop everything, Redis last."""
        for component in reversed(self.components.values()):
            with contextlib.suppress(Exception):
                component.stop()

    def kill_and_restart(self, name: str) -> tuple[float, float]:
        """``kill -9`` one component and start it again at once; return (killed at, serving again at)."""
        component = self.components[name]
        component.kill()
        killed = time.monotonic()
        component.start()
        return killed, time.monotonic()

    def dead(self) -> list[str]:
        """Components that exited on their own (none should: each must ride out the others' faults)."""
        return [name for name, component in self.components.items() if not component.alive()]
