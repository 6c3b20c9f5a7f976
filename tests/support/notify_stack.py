"""A private stack for the notification tests: its own Redis, a rules service, a conductor, the
webhook dispatcher, the notification sender (``python -m services.notify``) and a gateway.

Turn reminders are set short (:data:`REMINDER_ENV`) for every process that schedules attention,
so a reminder comes seconds before a short clock runs out; the sender gathers for a moment only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from services.common.embedded_redis import start_redis
from tests.support import secrets
from tests.support.ops_stack import PrivateStack, start_rules
from tests.support.stack import (
    WEBHOOK_OPERATOR_KEY,
    ConductorProcess,
    Gateway,
    MatchmakerProcess,
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

    def __init__(self, redis_url: str, log_path: Path, wait: bool = True, **settings: str) -> None:
        quick = {
            "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK": "true",
            "CHAIWALA_NOTIFY_GATHER_MS": "1500",
            "CHAIWALA_NOTIFY_RETRY_BASE_S": "0.2",
            "CHAIWALA_NOTIFY_LEASE_MS": "3000",
            "CHAIWALA_NOTIFY_POLL_S": "0.1",
        }
        super().__init__(redis_url, log_path, {**quick, **prefixed("CHAIWALA_NOTIFY_", settings)}, wait=wait)


@dataclass
class NotifyStack(PrivateStack):
    """The running stack: the notification sender too."""

    notify: NotifyProcess
    matchmaker: MatchmakerProcess


@contextmanager
def notify_stack(tmp: Path) -> Iterator[NotifyStack]:
    """Start the stack under ``tmp`` (logs there); stop it all afterwards."""
    secrets.remember(WEBHOOK_OPERATOR_KEY)
    with ExitStack() as running:  # what it started stops in reverse order, Redis last
        saved = {name: os.environ.get(name) for name in (*REMINDER_ENV, "CHAIWALA_API_KEYS")}
        os.environ.update({**REMINDER_ENV, "CHAIWALA_API_KEYS": WEBHOOK_OPERATOR_KEY})
        running.callback(_restore, saved)
        server = start_redis(tmp / "redis", appendonly=False)
        running.callback(server.stop)
        rules = running.enter_context(start_rules(server.url, tmp / "rules.log"))
        conductor = running.enter_context(ConductorProcess(server.url, tmp / "conductor.log", extra_env=REMINDER_ENV))
        webhook = running.enter_context(
            WebhookProcess(server.url, tmp / "webhook.log", WEBHOOK_OPERATOR_KEY, wait=False)
        )
        notify = running.enter_context(NotifyProcess(server.url, tmp / "notify.log", wait=False))
        matchmaker = running.enter_context(
            MatchmakerProcess(server.url, {GAME: rules.address}, tmp / "matchmaker.log", wait=False)
        )
        webhook.ready()  # the three started at once
        notify.ready()
        matchmaker.ready()
        routing = {"service_webhook": webhook.address, "service_notify": notify.address,
                   "service_matchmaking": matchmaker.address}  # fmt: skip
        # Guests by the dozen in one module: the session quota is not what these tests are about.
        limit = {"session_limit": "500/second;1000000/hour"}
        gateway = running.enter_context(
            Gateway({GAME: rules.address}, redis_url=server.url, api_keys=WEBHOOK_OPERATOR_KEY, **limit, **routing)
        )
        yield NotifyStack(server.url, rules, conductor, webhook, gateway, notify=notify, matchmaker=matchmaker)


def _restore(saved: dict[str, str | None]) -> None:
    """Put the environment's variables back as they were."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
