"""The real stack for tests: rules services on ephemeral gRPC ports, a uvicorn gateway, conductors.

Services run on an asyncio loop in a background thread (real ``grpc.aio`` servers
on real sockets); the gateway runs under a real ``uvicorn.Server`` in another
thread; conductors are real subprocesses.  Redis is real too (see ``tests/conftest.py``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from grpc import aio

from gateway.app import create_app
from gateway.server import uvicorn_config
from gateway.settings import GatewaySettings
from services.common.processes import stop_process
from services.games.store import GameStore
from services.identity.settings import IdentitySettings
from services.rules.server import create_server, shutdown
from services.rules.service import RulesServicer
from services.streaming.hub import HubLimits
from tests.support import secrets

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[2]


class LoopThread:
    """An asyncio loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        """Run ``coro`` on the loop and wait for its result."""
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def close(self) -> None:
        """Stop the loop and its thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


@dataclass
class RunningService:
    """A rules service started by :class:`Services`."""

    game_type: str
    server: aio.Server
    port: int
    servicer: RulesServicer
    store: GameStore

    @property
    def address(self) -> str:
        """host:port for gRPC clients."""
        return f"127.0.0.1:{self.port}"


@dataclass
class Services:
    """Starts and stops rules services against one Redis URL."""

    redis_url: str
    cluster: bool = False
    api_keys: frozenset[str] = frozenset()
    # Trusted issuers and the guest issuer of these services (None: the environment's).
    identity: IdentitySettings | None = None
    loops: LoopThread = field(default_factory=LoopThread)

    def __post_init__(self) -> None:
        for key in self.api_keys:
            secrets.remember(key)

    def start(self, game_type: str, port: int = 0, live_limits: HubLimits | None = None, **pool: Any) -> RunningService:
        """Start a rules service for ``game_type`` (port 0 = ephemeral); ``live_limits`` bound its
        live-event fan-out, ``pool`` (``max_connections``, ``pool_timeout``) its Redis pool."""

        async def boot() -> RunningService:
            store = GameStore.from_url(self.redis_url, cluster=self.cluster, **pool)
            address = f"127.0.0.1:{port}"
            server, bound, servicer = await create_server(
                game_type, store, address, self.api_keys, live_limits, self.identity
            )
            return RunningService(game_type, server, bound, servicer, store)

        return self.loops.run(boot())

    def stop(self, service: RunningService, grace: float | None = None) -> None:
        """Stop a service and close its Redis connections."""

        async def halt() -> None:
            await shutdown(service.server, service.servicer, service.store, grace)

        self.loops.run(halt())

    def close(self) -> None:
        """Stop the background loop."""
        self.loops.close()


class Gateway:
    """The FastAPI gateway served by a real uvicorn on an ephemeral port."""

    def __init__(
        self,
        addresses: dict[str, str],
        customise: Any = None,
        redis_url: str = "",
        send_buffer: int | None = None,
        **overrides: Any,
    ) -> None:
        # Failed authentications are counted per address in Redis, shared by every gateway of the
        # session (all from 127.0.0.1, many tests refusing bad tokens on purpose): generous here;
        # the test of that bucket gives its own gateway a small one.
        overrides.setdefault("auth_failure_limit", "1000000/minute")
        overrides.setdefault("rpc_timeout_seconds", 600)
        settings = GatewaySettings(
            games=",".join(addresses),
            log_format="console",
            redis_url=redis_url,
            **{f"service_{game}": address for game, address in addresses.items()},
            **overrides,
        )
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if send_buffer is not None:  # accepted connections inherit it: a client that stops reading stalls sooner
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        app = create_app(settings)
        self.app = app
        if customise is not None:
            customise(app)  # tests may add a route, e.g. one that crashes on purpose
        self.settings = settings
        self.server = uvicorn.Server(uvicorn_config(app, settings, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("gateway did not start")
            time.sleep(0.02)

    @property
    def url(self) -> str:
        """Base URL of the gateway."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Shut uvicorn down."""
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


class ConductorProcess:
    """A real conductor: ``python -m services.conductor`` in its own process, over one Redis."""

    def __init__(
        self,
        redis_url: str,
        log_path: Path,
        cluster: bool = False,
        lease_ms: int = 30_000,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.log_path = log_path
        self.log = log_path.open("ab")
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CHAIWALA_REDIS_CLUSTER": "true" if cluster else "false",
            "CHAIWALA_METRICS_PORT": str(free_port()),
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_CONDUCTOR_LEASE_MS": str(lease_ms),
            **(extra_env or {}),
        }
        self.metrics_port = int(env["CHAIWALA_METRICS_PORT"])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.conductor"], env=env, cwd=ROOT, stdout=self.log, stderr=self.log
        )

    @property
    def pid(self) -> int:
        """The conductor's process id."""
        return self.process.pid

    def metric(self, name: str) -> float:
        """The sum of one metric's samples on the conductor's Prometheus endpoint (0 if absent)."""
        return metric_sum(self.metrics_port, name)

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as when a machine dies."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.log.close()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers."""
        stop_process(self.process)
        self.log.close()


class DirectorProcess(ConductorProcess):
    """A real tournament director: ``python -m services.tournament`` in its own process (killed,
    stopped and scraped like a conductor)."""

    def __init__(  # the conductor's __init__ starts a conductor: not called
        self,
        redis_url: str,
        services: dict[str, str],
        log_path: Path,
        api_keys: str = "",
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.log_path = log_path
        self.log = log_path.open("ab")
        self.port = free_port()
        self.metrics_port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_GRPC_PORT": str(self.port),
            "CHAIWALA_METRICS_PORT": str(self.metrics_port),
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_API_KEYS": api_keys,
            **{f"CHAIWALA_SERVICE_{game.upper()}": address for game, address in services.items()},
            **(extra_env or {}),
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.tournament"], env=env, cwd=ROOT, stdout=self.log, stderr=self.log
        )

    @property
    def address(self) -> str:
        """host:port of its gRPC server."""
        return f"127.0.0.1:{self.port}"


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# The operator key of the test webhook dispatchers' WebhookService (the rules services stay open).
WEBHOOK_OPERATOR_KEY = "test-webhook-operator-key-0123456789"


class WebhookProcess:
    """A real webhook dispatcher: ``python -m services.webhook`` in its own process, over one Redis.

    Retries are fast and the lease short, so tests see backoff, dead letters and recovery from a
    SIGKILL in seconds; loopback targets are allowed (the receiver runs on 127.0.0.1).
    """

    def __init__(
        self,
        redis_url: str,
        log_path: Path,
        api_key: str = "",
        extra_env: dict[str, str] | None = None,
        **settings: str,
    ) -> None:
        self.log_path = log_path
        self.grpc_port = free_port()
        self.metrics_port = free_port()
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_GRPC_PORT": str(self.grpc_port),
            "CHAIWALA_METRICS_PORT": str(self.metrics_port),
            "CHAIWALA_API_KEYS": api_key,
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "info",
            "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": "true",
            "CHAIWALA_WEBHOOK_RETRY_BASE_S": "0.2",
            "CHAIWALA_WEBHOOK_RETRY_CAP_S": "1",
            "CHAIWALA_WEBHOOK_RETRY_WINDOW_S": "8",
            "CHAIWALA_WEBHOOK_LEASE_MS": "2000",
            "CHAIWALA_WEBHOOK_TIMEOUT_S": "10",
            "CHAIWALA_WEBHOOK_POLL_S": "0.1",
            **{f"CHAIWALA_WEBHOOK_{name.upper()}": value for name, value in settings.items()},
            **(extra_env or {}),
        }
        self.start()

    @property
    def address(self) -> str:
        """host:port of its WebhookService."""
        return f"127.0.0.1:{self.grpc_port}"

    def start(self) -> None:
        """Start (or restart) the process on the same ports."""
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.webhook"], env=self.env, cwd=ROOT, stdout=self.log, stderr=self.log
        )
        wait_for_grpc(self.address, self.process)

    def metric(self, name: str, **labels: str) -> float:
        """The sum of one metric's samples (with these labels) on its Prometheus endpoint."""
        return metric_sum(self.metrics_port, name, **labels)

    # A dispatcher is killed and stopped as a conductor is.
    kill = ConductorProcess.kill
    stop = ConductorProcess.stop


def metric_sum(port: int, name: str, **labels: str) -> float:
    """The sum of one metric's samples (with these labels) on a Prometheus endpoint (0 if absent)."""
    from tests.support.metrics import samples_sum, scrape

    return samples_sum(scrape(f"http://127.0.0.1:{port}/metrics"), name, **labels)


def wait_for_grpc(address: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until a gRPC server answers health checks as SERVING (fail if its process exits)."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + seconds
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the process serving {address} exited with {process.returncode}")
            try:
                answer = stub.Check(health_pb2.HealthCheckRequest(), timeout=2)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing serving on {address} after {seconds}s")
            time.sleep(0.05)


# The matching policy of test matchmakers: short waits, a band that widens fast (tests stay quick).
MATCHMAKER_TEST_ENV = {
    "CHAIWALA_MATCHMAKING_POLL_S": "0.05",
    "CHAIWALA_MATCHMAKING_SMALLER_AFTER_S": "2",
    "CHAIWALA_MATCHMAKING_BAND_BASE": "3",
    "CHAIWALA_MATCHMAKING_BAND_PER_SECOND": "10",
    "CHAIWALA_MATCHMAKING_REMATCH_AFTER_S": "2",
    "CHAIWALA_MATCHMAKING_LEASE_MS": "1000",
    "CHAIWALA_MATCHMAKING_FORMING_LEASE_MS": "3000",
}


class MatchmakerProcess:
    """A real matchmaker: ``python -m services.matchmaking`` in its own process, over one Redis, creating
    games through the given rules services (killed, stopped and scraped like a conductor)."""

    def __init__(
        self,
        redis_url: str,
        services: dict[str, str],
        log_path: Path,
        extra_env: dict[str, str] | None = None,
        **settings: str,
    ) -> None:
        self.log_path = log_path
        self.grpc_port = free_port()
        self.metrics_port = free_port()
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_GRPC_PORT": str(self.grpc_port),
            "CHAIWALA_METRICS_PORT": str(self.metrics_port),
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "info",
            **MATCHMAKER_TEST_ENV,
            **{f"CHAIWALA_SERVICE_{game.upper()}": address for game, address in services.items()},
            **{f"CHAIWALA_MATCHMAKING_{name.upper()}": value for name, value in settings.items()},
            **(extra_env or {}),
        }
        self.start()

    @property
    def address(self) -> str:
        """host:port of its MatchmakingService."""
        return f"127.0.0.1:{self.grpc_port}"

    def start(self) -> None:
        """Start (or restart) the process on the same ports."""
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "services.matchmaking"], env=self.env, cwd=ROOT, stdout=self.log, stderr=self.log
        )
        wait_for_grpc(self.address, self.process)

    def metric(self, name: str, **labels: str) -> float:
        """The sum of one metric's samples (with these labels) on its Prometheus endpoint."""
        return metric_sum(self.metrics_port, name, **labels)

    kill = ConductorProcess.kill
    stop = ConductorProcess.stop
