"""A private stack for the notification tests: its own Redis, a rules service, a conductor, the
webhook dispatcher, the notification sender (``python -m services.notify``), a matchmaker (quick
play, with the short waits of tests) and a gateway.

Turn reminders are set short (:data:`REMINDER_ENV`) for every process that schedules attention,
so a reminder comes seconds before a short clock runs out; the sender gathers for a moment only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from services.common.embedded_redis import start_redis
from services.common.processes import stop_process
from tests.support import secrets
from tests.support.ops_stack import RulesProcess, start_rules
from tests.support.stack import (
    ROOT,
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    Gateway,
    MatchmakerProcess,
    WebhookProcess,
    free_port,
    wait_for_grpc,
)

GAME = "darjeeling"
# A reminder 4 s before a deadline, for clocks of at least 1 s.
REMINDER_ENV = {"CHAIWALA_TURN_REMINDERS_S": "4", "CHAIWALA_TURN_REMINDER_MIN_CLOCK_S": "1"}


class NotifyProcess:
    """The real sender in its own process; loopback push endpoints allowed (the service is local)."""

    def __init__(self, redis_url: str, log_path: Path, **settings: str) -> None:
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
            "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": "true",
            "CHAIWALA_NOTIFY_GATHER_MS": "1500",
            "CHAIWALA_NOTIFY_RETRY_BASE_S": "0.2",
            "CHAIWALA_NOTIFY_LEASE_MS": "3000",
            "CHAIWALA_NOTIFY_POLL_S": "0.1",
            **{f"CHAIWALA_NOTIFY_{name.upper()}": value for name, value in settings.items()},
        }
        self.start()

    @property
    def address(self) -> str:
        """host:port of its NotifyService."""
        return f"127.0.0.1:{self.grpc_port}"

    def start(self) -> None:
        """Start (or restart) on the same ports."""
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen([sys.executable, "-m", "services.notify"], env=self.env, cwd=ROOT,
                                        stdout=self.log, stderr=self.log)  # fmt: skip
        wait_for_grpc(self.address, self.process)

    def kill(self) -> None:
        """SIGKILL: no goodbye."""
        self.process.kill()
        self.process.wait(timeout=10)
        self.log.close()

    def stop(self) -> None:
        """Stop it (if running)."""
        if self.process.poll() is None:
            stop_process(self.process)
        self.log.close()


@dataclass
class NotifyStack:
    """The running stack."""

    redis_url: str
    rules: RulesProcess
    conductor: ConductorProcess
    webhook: WebhookProcess
    notify: NotifyProcess
    matchmaker: MatchmakerProcess
    gateway: Gateway

    @property
    def url(self) -> str:
        """The gateway's base URL."""
        return self.gateway.url


@contextmanager
def notify_stack(tmp: Path) -> Iterator[NotifyStack]:
    """Start the stack under ``tmp`` (logs there); stop it all afterwards."""
    secrets.remember(WEBHOOK_OPERATOR_KEY)
    server = start_redis(tmp / "redis", appendonly=False)
    saved = {name: os.environ.get(name) for name in (*REMINDER_ENV, "CHAIWALA_API_KEYS")}
    os.environ.update({**REMINDER_ENV, "CHAIWALA_API_KEYS": WEBHOOK_OPERATOR_KEY})
    started: list[object] = []
    try:
        rules = start_rules(server.url, tmp / "rules.log")
        started.append(rules)
        conductor = ConductorProcess(server.url, tmp / "conductor.log", extra_env=REMINDER_ENV)
        started.append(conductor)
        webhook = WebhookProcess(server.url, tmp / "webhook.log", WEBHOOK_OPERATOR_KEY)
        started.append(webhook)
        notify = NotifyProcess(server.url, tmp / "notify.log")
        started.append(notify)
        matchmaker = MatchmakerProcess(server.url, {GAME: rules.address}, tmp / "matchmaker.log")
        started.append(matchmaker)
        gateway = Gateway({GAME: rules.address}, redis_url=server.url, service_webhook=webhook.address,
                          service_notify=notify.address, service_matchmaking=matchmaker.address,
                          api_keys=WEBHOOK_OPERATOR_KEY, session_limit="500/second;1000000/hour")  # fmt: skip
        started.append(gateway)
        yield NotifyStack(server.url, rules, conductor, webhook, notify, matchmaker, gateway)
    finally:
        for item in reversed(started):
            if isinstance(item, RulesProcess):
                stop_process(item.process)
            else:
                item.stop()  # type: ignore[attr-defined]
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
