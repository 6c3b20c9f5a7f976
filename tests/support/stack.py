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
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import uvicorn
from grpc import aio

from gateway.app import create_app
from gateway.server import uvicorn_config
from gateway.settings import GatewaySettings
from services.common.embedded_redis import free_port as embedded_free_port
from services.common.processes import stop_process
from services.games.store import GameStore
from services.identity.settings import IdentitySettings
from services.rules.server import create_server, shutdown
from services.rules.service import RulesServicer
from services.streaming.hub import HubLimits
from tests.support import secrets
from tests.support.stoppable import Stoppable

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


class Gateway(Stoppable):
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


def routes(stack: dict[str, Any]) -> dict[str, str]:
    """Game type -> gRPC address of the session stack's rules services: what a gateway routes to."""
    return {game: service.address for game, service in stack["services"].items()}


class ServiceProcess(Stoppable):
    """A real process of the platform, ``python -m <module>``, over one Redis, logging to a file.

    One launcher for every process the tests start: subclasses name the module and add their
    settings.  ``start`` (again after ``kill`` or ``stop``) reuses the same ports and environment,
    and waits until the gRPC health check says SERVING when the process serves gRPC (``wait=False``
    leaves that to :meth:`ready`, so several processes can start at once).  A context manager:
    leaving the block stops it.
    """

    module: ClassVar[str]
    serves_grpc: ClassVar[bool] = True
    log_level: ClassVar[str] = "info"

    def __init__(
        self,
        redis_url: str,
        log_path: Path,
        settings: dict[str, str],
        extra_env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        wait: bool = True,
    ) -> None:
        self.log_path = log_path
        self.args = args
        self.grpc_port = free_port() if self.serves_grpc else 0
        self.metrics_port = free_port()
        grpc = {"CHAIWALA_GRPC_PORT": str(self.grpc_port)} if self.serves_grpc else {}
        self.env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            **grpc,
            "CHAIWALA_METRICS_PORT": str(self.metrics_port),
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": self.log_level,
            **settings,
            **(extra_env or {}),
        }
        self.start(wait)

    @property
    def address(self) -> str:
        """host:port of its gRPC server."""
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    def start(self, wait: bool = True) -> None:
        """Start (or restart) the process on the same ports; wait until it serves unless told not to."""
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module, *self.args], env=self.env, cwd=ROOT, stdout=self.log, stderr=self.log
        )
        if wait:
            self.ready()

    def ready(self) -> None:
        """Wait until its gRPC health check says SERVING (when it serves gRPC); stop it if it never does."""
        if self.serves_grpc:
            try:
                wait_for_grpc(self.address, self.process)
            except BaseException:
                self.stop()  # nothing left running when it never came up
                raise

    def metric(self, name: str, **labels: str) -> float:
        """The sum of one metric's samples (with these labels) on its Prometheus endpoint (0 if absent)."""
        return metric_sum(self.metrics_port, name, **labels)

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as when a machine dies."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.log.close()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers (nothing if it has exited already)."""
        stop_process(self.process)
        self.log.close()


@contextmanager
def rules_and_gateway(
    store_url: str, game: str, api_keys: str = "", identity: IdentitySettings | None = None, **gateway: Any
) -> Iterator[tuple[RunningService, Gateway]]:
    """A rules service of ``game`` (its own :class:`Services` over ``store_url``, with ``identity``)
    and a gateway routing to it, both checking ``api_keys`` (comma-separated) when given; ``gateway``
    are the gateway's settings.  Both stop after the block."""
    keys = [key for key in api_keys.split(",") if key]
    services = Services(store_url, api_keys=frozenset(keys), identity=identity)
    try:
        service = services.start(game)
        try:
            with Gateway({game: service.address}, **({"api_keys": api_keys} if keys else {}), **gateway) as front:
                yield service, front
        finally:
            services.stop(service)
    finally:
        services.close()


class ConductorProcess(ServiceProcess):
    """A real conductor: ``python -m services.conductor`` (no gRPC server of its own)."""

    module = "services.conductor"
    serves_grpc = False
    log_level = "warning"

    def __init__(
        self,
        redis_url: str,
        log_path: Path,
        cluster: bool = False,
        lease_ms: int = 30_000,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        settings = {
            "CHAIWALA_REDIS_CLUSTER": "true" if cluster else "false",
            "CHAIWALA_CONDUCTOR_LEASE_MS": str(lease_ms),
        }
        super().__init__(redis_url, log_path, settings, extra_env)


class RoutingProcess(ServiceProcess):
    """A process that creates games through the given rules services (``CHAIWALA_SERVICE_<GAME>``);
    its own keyword settings become environment variables by :meth:`own_settings`."""

    def __init__(
        self,
        redis_url: str,
        services: dict[str, str],
        log_path: Path,
        extra_env: dict[str, str] | None = None,
        wait: bool = True,
        **settings: str,
    ) -> None:
        routed = {**service_addresses(services), **self.own_settings(**settings)}
        super().__init__(redis_url, log_path, routed, extra_env, wait=wait)

    def own_settings(self, **settings: str) -> dict[str, str]:
        """This process's environment from its keyword settings."""
        raise NotImplementedError


class DirectorProcess(RoutingProcess):
    """A real tournament director: ``python -m services.tournament`` (``api_keys`` its operator keys)."""

    module = "services.tournament"
    log_level = "warning"

    def own_settings(self, api_keys: str = "") -> dict[str, str]:  # type: ignore[override]
        """Its operator keys."""
        return {"CHAIWALA_API_KEYS": api_keys}


def service_addresses(services: dict[str, str]) -> dict[str, str]:
    """The ``CHAIWALA_SERVICE_<GAME>`` settings that route to these rules services."""
    return {f"CHAIWALA_SERVICE_{game.upper()}": address for game, address in services.items()}


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1 (picked outside the kernel's ephemeral range)."""
    return embedded_free_port()


# The operator key of the test webhook dispatchers' WebhookService (the rules services stay open).
WEBHOOK_OPERATOR_KEY = "test-webhook-operator-key-0123456789"


class WebhookProcess(ServiceProcess):
    """A real webhook dispatcher: ``python -m services.webhook``.

    Retries are fast and the lease short, so tests see backoff, dead letters and recovery from a
    SIGKILL in seconds; loopback targets are allowed (the receiver runs on 127.0.0.1).
    """

    module = "services.webhook"

    def __init__(
        self,
        redis_url: str,
        log_path: Path,
        api_key: str = "",
        extra_env: dict[str, str] | None = None,
        wait: bool = True,
        **settings: str,
    ) -> None:
        fast = {
            "CHAIWALA_API_KEYS": api_key,
            "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": "true",
            "CHAIWALA_WEBHOOK_RETRY_BASE_S": "0.2",
            "CHAIWALA_WEBHOOK_RETRY_CAP_S": "1",
            "CHAIWALA_WEBHOOK_RETRY_WINDOW_S": "8",
            "CHAIWALA_WEBHOOK_LEASE_MS": "2000",
            "CHAIWALA_WEBHOOK_TIMEOUT_S": "10",
            "CHAIWALA_WEBHOOK_POLL_S": "0.1",
        }
        super().__init__(redis_url, log_path, {**fast, **prefixed("CHAIWALA_WEBHOOK_", settings)}, extra_env, wait=wait)


def prefixed(prefix: str, settings: dict[str, str]) -> dict[str, str]:
    """``name=value`` keyword settings as environment variables: ``<prefix><NAME>``."""
    return {f"{prefix}{name.upper()}": value for name, value in settings.items()}


def metric_sum(port: int, name: str, **labels: str) -> float:
    """The sum of one metric's samples (with these labels) on a Prometheus endpoint (0 if absent)."""
    from tests.support.metrics import samples_sum, scrape

    return samples_sum(scrape(f"http://127.0.0.1:{port}/metrics"), name, **labels)


def grpc_serving(address: str, service: str = "", timeout: float = 1) -> bool:
    """Whether the gRPC server on ``address`` answers its health check (for ``service``) as SERVING."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        try:
            request = health_pb2.HealthCheckRequest(service=service)
            answer = health_pb2_grpc.HealthStub(channel).Check(request, timeout=timeout)
        except grpc.RpcError:
            return False
    return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def wait_for_grpc(address: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until a gRPC server answers health checks as SERVING (fail if its process exits)."""
    wait_while_running(process, lambda: grpc_serving(address, timeout=2), f"gRPC health SERVING on {address}", seconds)


def wait_while_running(
    process: subprocess.Popen[bytes], ready: Callable[[], bool], what: str, seconds: float = 60
) -> None:
    """Poll ``ready()`` until true; fail naming ``what`` if the process exits or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(f"no {what}: the process exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {what} after {seconds}s")
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


class MatchmakerProcess(RoutingProcess):
    """A real matchmaker: ``python -m services.matchmaking`` with the short waits of
    :data:`MATCHMAKER_TEST_ENV` (keyword settings: ``CHAIWALA_MATCHMAKING_<NAME>``)."""

    module = "services.matchmaking"

    def own_settings(self, **settings: str) -> dict[str, str]:
        """The test policy, then these settings."""
        return {**MATCHMAKER_TEST_ENV, **prefixed("CHAIWALA_MATCHMAKING_", settings)}
