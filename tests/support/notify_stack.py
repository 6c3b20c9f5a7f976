"""A private stack for the notification tests: its own Redis, a rules service, a conductor, the
webhook dispatcher, the notification sender (``python -m services.notify``) and a gateway.

Turn reminders are set short (:data:`REMINDER_ENV`) for every process that schedules attention,
so a reminder comes seconds before a short clock runs out; the sender gathers for a moment only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from services.common.embedded_redis import start_redis
from tests.support import secrets
from tests.support.ops_stack import RulesProcess, start_rules
from tests.support.stack import (
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    Gateway,
    ServiceProcess,
    WebhookProcess,
    prefixed,
)

GAME = "darjeeling"
# A reminder 4 s before a deadline, for clocks of at least 1 s.
REMINDER_ENV = {"CHAIWALA_TURN_REMINDERS_S": "4", "CHAIWALA_TURN_REMINDER_MIN_CLOCK_S": "1"}


class NotifyProcess(ServiceProcess):
    """The real sender, ``python -m services.notify``; loopback push endpoints allowed (the service
    is local), a short gathering window and fast retries."""

    module = "services.notify"

    def __init__(self, redis_url: str, log_path: Path, **settings: str) -> None:
        quick = {
            "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": "true",
            "CHAIWALA_NOTIFY_GATHER_MS": "1500",
            "CHAIWALA_NOTIFY_RETRY_BASE_S": "0.2",
            "CHAIWALA_NOTIFY_LEASE_MS": "3000",
            "CHAIWALA_NOTIFY_POLL_S": "0.1",
        }
        super().__init__(redis_url, log_path, {**quick, **prefixed("CHAIWALA_NOTIFY_", settings)})


@dataclass
class NotifyStack:
    """The running stack."""

    redis_url: str
    rules: RulesProcess
    conductor: ConductorProcess
    webhook: WebhookProcess
    notify: NotifyProcess
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
    started: list[ServiceProcess | Gateway] = []
    try:
        rules = start_rules(server.url, tmp / "rules.log")
        started.append(rules)
        conductor = ConductorProcess(server.url, tmp / "conductor.log", extra_env=REMINDER_ENV)
        started.append(conductor)
        webhook = WebhookProcess(server.url, tmp / "webhook.log", WEBHOOK_OPERATOR_KEY)
        started.append(webhook)
        notify = NotifyProcess(server.url, tmp / "notify.log")
        started.append(notify)
        gateway = Gateway({GAME: rules.address}, redis_url=server.url, service_webhook=webhook.address,
                          service_notify=notify.address, api_keys=WEBHOOK_OPERATOR_KEY)  # fmt: skip
        started.append(gateway)
        yield NotifyStack(server.url, rules, conductor, webhook, notify, gateway)
    finally:
        for item in reversed(started):
            item.stop()
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
