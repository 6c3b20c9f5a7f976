"""A private stack for the operator tests: its own Redis, every process real, metrics behind a token.

The session's shared stack serves many test modules at once: its counters and its dead-letter
list move under other tests' games.  The operator tests count exactly (one game ended this way:
one more in the count), so they get their own Redis and their own processes: a rules service
(``python -m services.rules.server``), a conductor, a webhook dispatcher and a tournament
director as subprocesses, and a gateway under uvicorn.  Every metrics endpoint wants
:data:`METRICS_TOKEN` (``CHAIWALA_METRICS_TOKEN``).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from services.common.embedded_redis import start_redis
from tests.support import secrets
from tests.support.stack import (
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    DirectorProcess,
    Gateway,
    ServiceProcess,
    WebhookProcess,
    wait_while_running,
)

GAME = "darjeeling"
METRICS_TOKEN = "test-metrics-token-7f3a9c0e5b1d"
TOKEN_ENV = {"CHAIWALA_METRICS_TOKEN": METRICS_TOKEN}


class RulesProcess(ServiceProcess):
    """A real rules service: ``python -m services.rules.server <game>`` (one process), its metrics
    behind :data:`METRICS_TOKEN`."""

    module = "services.rules.server"
    log_level = "warning"

    def __init__(self, redis_url: str, log_path: Path, game: str = GAME) -> None:
        settings = {**TOKEN_ENV, "CHAIWALA_GRPC_PROCESSES": "1"}
        super().__init__(redis_url, log_path, settings, args=(game,))


def start_rules(redis_url: str, log: Path, game: str = GAME) -> RulesProcess:
    """Start one rules service process and wait until it serves."""
    return RulesProcess(redis_url, log, game)


def scrape(port: int, token: str = METRICS_TOKEN, path: str = "/metrics") -> httpx.Response:
    """GET a metrics endpoint on 127.0.0.1 (with the bearer token unless ``token`` is empty)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"http://127.0.0.1:{port}{path}", headers=headers, timeout=10)


def families(text: str) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    """Family name -> its samples (name, labels, value), from an exposition."""
    return {
        family.name: [(sample.name, dict(sample.labels), sample.value) for sample in family.samples]
        for family in text_string_to_metric_families(text)
    }


def value(text: str, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` with these labels (0 if none)."""
    return sum(
        sample_value
        for samples in families(text).values()
        for sample_name, sample_labels, sample_value in samples
        if sample_name == name and all(sample_labels.get(k) == v for k, v in labels.items())
    )


def wait_for_metrics(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Wait until a process's metrics endpoint answers ``/healthz`` (fail if the process exits)."""

    def healthy() -> bool:
        try:
            return scrape(port, "", path="/healthz").status_code == 200
        except httpx.HTTPError:
            return False

    wait_while_running(process, healthy, f"metrics on port {port}", seconds)


@dataclass
class PrivateStack:
    """A private stack's Redis and the processes every private stack runs."""

    redis_url: str
    rules: RulesProcess
    conductor: ConductorProcess
    webhook: WebhookProcess
    gateway: Gateway

    @property
    def url(self) -> str:
        """The gateway's base URL."""
        return self.gateway.url


def module_fixture(start: Callable[[Path], AbstractContextManager[Any]], folder: str) -> Any:
    """A module-scoped fixture: the stack ``start`` runs under a new temporary ``folder``."""

    @pytest.fixture(scope="module")
    def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
        with start(tmp_path_factory.mktemp(folder)) as stack:
            yield stack

    return running


def client_fixture(stack_fixture: str) -> Any:
    """A module-scoped fixture: an HTTP client of the gateway of the stack fixture named ``stack_fixture``."""

    @pytest.fixture(scope="module")
    def http(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
        with httpx.Client(base_url=request.getfixturevalue(stack_fixture).url, timeout=60) as client:
            yield client

    return http


@dataclass
class OpsStack(PrivateStack):
    """The running private stack of the operator tests: a tournament director too."""

    director: DirectorProcess


@contextmanager
def ops_stack(tmp: Path) -> Iterator[OpsStack]:
    """Start the private stack under ``tmp`` (logs there) and stop it all afterwards."""
    secrets.remember(METRICS_TOKEN)
    secrets.remember(WEBHOOK_OPERATOR_KEY)
    with ExitStack() as running:  # what it started stops in reverse order, Redis last
        server = start_redis(tmp / "redis", appendonly=False)
        running.callback(server.stop)
        rules = running.enter_context(start_rules(server.url, tmp / "rules.log"))
        conductor = running.enter_context(ConductorProcess(server.url, tmp / "conductor.log", extra_env=TOKEN_ENV))
        webhook = running.enter_context(
            WebhookProcess(server.url, tmp / "webhook.log", WEBHOOK_OPERATOR_KEY, extra_env=TOKEN_ENV, wait=False)
        )
        director = running.enter_context(
            DirectorProcess(server.url, {GAME: rules.address}, tmp / "director.log", extra_env=TOKEN_ENV, wait=False)
        )
        webhook.ready()  # the two started at once
        director.ready()
        routing = {"service_webhook": webhook.address, "service_tournament": director.address}
        gateway = running.enter_context(
            Gateway({GAME: rules.address}, redis_url=server.url, metrics_token=METRICS_TOKEN, **routing)
        )
        for process in (rules, conductor, webhook, director):
            wait_for_metrics(process.metrics_port, process.process)
        yield OpsStack(server.url, rules, conductor, webhook, gateway, director=director)
