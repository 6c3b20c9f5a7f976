"""A private stack for the operator tests: its own Redis, every process real, metrics behind a token.

The session's shared stack serves many test modules at once: its counters and its dead-letter
list move under other tests' games.  The operator tests count exactly (one game ended this way:
one more in the count), so they get their own Redis and their own processes: a rules service
(``python -m services.rules.server``), a conductor, a webhook dispatcher and a tournament
director as subprocesses, and a gateway under uvicorn.  Every metrics endpoint wants
:data:`METRICS_TOKEN` (``CHAIWALA_METRICS_TOKEN``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from services.common.embedded_redis import start_redis
from services.common.processes import stop_process
from tests.support import secrets
from tests.support.stack import (
    ROOT,
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    DirectorProcess,
    Gateway,
    WebhookProcess,
    free_port,
    wait_for_grpc,
)

GAME = "darjeeling"
METRICS_TOKEN = "test-metrics-token-7f3a9c0e5b1d"
TOKEN_ENV = {"CHAIWALA_METRICS_TOKEN": METRICS_TOKEN}


@dataclass
class RulesProcess:
    """A real rules service: ``python -m services.rules.server <game>`` (one process)."""

    process: subprocess.Popen[bytes]
    port: int
    metrics_port: int

    @property
    def address(self) -> str:
        """host:port for gRPC clients."""
        return f"127.0.0.1:{self.port}"


def start_rules(redis_url: str, log: Path, game: str = GAME) -> RulesProcess:
    """Start one rules service process and wait until it serves."""
    port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        **TOKEN_ENV,
        "REDIS_URL": redis_url,
        "CHAIWALA_GRPC_HOST": "127.0.0.1",
        "CHAIWALA_GRPC_PORT": str(port),
        "CHAIWALA_GRPC_PROCESSES": "1",
        "CHAIWALA_METRICS_PORT": str(metrics_port),
        "CHAIWALA_LOG_FORMAT": "console",
        "CHAIWALA_LOG_LEVEL": "warning",
    }
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "services.rules.server", game], env=env, cwd=ROOT, stdout=out, stderr=out
        )
    running = RulesProcess(process, port, metrics_port)
    wait_for_grpc(running.address, process)
    return running


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
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the process of metrics port {port} exited with {process.returncode}")
        try:
            if scrape(port, "", path="/healthz").status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"no metrics on port {port} after {seconds}s")
        time.sleep(0.05)


@dataclass
class OpsStack:
    """The running private stack."""

    redis_url: str
    rules: RulesProcess
    conductor: ConductorProcess
    webhook: WebhookProcess
    director: DirectorProcess
    gateway: Gateway

    @property
    def url(self) -> str:
        """The gateway's base URL."""
        return self.gateway.url


@contextmanager
def ops_stack(tmp: Path) -> Iterator[OpsStack]:
    """Start the private stack under ``tmp`` (logs there) and stop it all afterwards."""
    secrets.remember(METRICS_TOKEN)
    secrets.remember(WEBHOOK_OPERATOR_KEY)
    server = start_redis(tmp / "redis", appendonly=False)
    started: list[object] = []
    try:
        rules = start_rules(server.url, tmp / "rules.log")
        started.append(rules)
        conductor = ConductorProcess(server.url, tmp / "conductor.log", extra_env=TOKEN_ENV)
        started.append(conductor)
        webhook = WebhookProcess(server.url, tmp / "webhook.log", WEBHOOK_OPERATOR_KEY, extra_env=TOKEN_ENV)
        started.append(webhook)
        director = DirectorProcess(server.url, {GAME: rules.address}, tmp / "director.log", extra_env=TOKEN_ENV)
        started.append(director)
        gateway = Gateway(
            {GAME: rules.address},
            redis_url=server.url,
            service_webhook=webhook.address,
            service_tournament=director.address,
            metrics_token=METRICS_TOKEN,
        )
        started.append(gateway)
        for port, process in [(rules.metrics_port, rules.process), (conductor.metrics_port, conductor.process),
                              (webhook.metrics_port, webhook.process), (director.metrics_port, director.process)]:
            wait_for_metrics(port, process)
        yield OpsStack(server.url, rules, conductor, webhook, director, gateway)
    finally:
        for item in reversed(started):
            if isinstance(item, RulesProcess):
                stop_process(item.process)
            else:
                item.stop()  # type: ignore[attr-defined]
        server.stop()
