"""A real local HTTP receiver for webhook tests: verifies every delivery with ``standardwebhooks``.

It runs ``http.server`` on 127.0.0.1 in a thread of the test process.  Tests steer it:
``fail_next(n, path)`` answers 500 to the next ``n`` deliveries on ``path``, ``stop()``/``start()`` take it down
and bring it back on the same port, ``hold(seconds)`` keeps requests waiting before the
answer (so a dispatcher can be killed mid-delivery).  Every request is recorded with whether
its signature verified; :meth:`unique` deduplicates by ``webhook-id`` as a receiver should.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.support import secrets
from tests.support.local_http import answer, serve, shut
from tests.support.stack import WEBHOOK_OPERATOR_KEY
from tests.support.stoppable import Stoppable


@dataclass(frozen=True)
class Arrived:
    """One request as it arrived at a test's HTTP server, and how it was answered."""

    path: str
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass(frozen=True)
class Received(Arrived):
    """One webhook request: whether its signature verified, too."""

    verified: bool


class Receiver(Stoppable):
    """The receiver; one signing secret per path (a path per subscription)."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}
        self.received: list[Received] = []
        self.in_flight = 0
        # webhook-ids of the requests being held or answered right now.
        self.in_flight_ids: list[tuple[str, str]] = []  # (path, webhook-id)
        self.lock = threading.Lock()
        self._fail: dict[str, int] = {}
        self._hold_s = 0.0
        self._always_fail: set[str] = set()
        self.server: ThreadingHTTPServer | None = None
        self.port = 0
        self.start()

    def url(self, path: str) -> str:
        """The URL of one path."""
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> None:
        """Listen (again, on the same port once it had one)."""
        self.server = serve({"POST": self._handle}, self.port)
        self.port = self.server.server_address[1]

    def stop(self) -> None:
        """Go down: connections are refused until :meth:`start`."""
        if self.server is not None:
            shut(self.server)
            self.server = None

    def subscribe(self, http: httpx.Client, path: str, events: list[str], secret: str = "") -> dict[str, Any]:
        """Subscribe ``path`` here to ``events`` through the gateway ``http`` talks to (with the test
        operator key); the webhook's secret is remembered (it must never reach a log) and kept here
        to verify what arrives.  The created webhook."""
        body: dict[str, Any] = {"url": self.url(path), "events": events, **({"secret": secret} if secret else {})}
        response = http.post("/v1/webhooks", json=body, headers={"Authorization": f"Bearer {WEBHOOK_OPERATOR_KEY}"})
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        secrets.remember(created["secret"])
        self.secrets[path] = created["secret"]
        return created

    def fail_next(self, count: int, path: str) -> None:
        """Answer 500 to the next ``count`` requests on ``path``.

        Counted per path: deliveries still arriving for other tests' subscriptions must not use them up.
        """
        with self.lock:
            self._fail[path] = count

    def always_fail(self, path: str, failing: bool = True) -> None:
        """Answer 500 to every request on ``path`` (or stop doing so)."""
        with self.lock:
            (self._always_fail.add if failing else self._always_fail.discard)(path)

    def hold(self, seconds: float) -> None:
        """Keep each request this long before answering (0: answer at once)."""
        self._hold_s = seconds

    def _status(self, path: str) -> int:
        with self.lock:
            if path in self._always_fail:
                return 500
            if self._fail.get(path, 0) > 0:
                self._fail[path] -= 1
                return 500
        return 200

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("content-length", "0")))
        headers = {k.lower(): v for k, v in request.headers.items()}
        with self.lock:
            self.in_flight += 1
            self.in_flight_ids.append((request.path, headers.get("webhook-id", "")))
        try:
            if self._hold_s:
                time.sleep(self._hold_s)
            status = self._status(request.path)
            record = Received(request.path, headers, body, status, self._verify(request.path, body, headers))
            with self.lock:
                self.received.append(record)
            answer(request, status)
        finally:
            with self.lock:
                self.in_flight -= 1
                self.in_flight_ids.remove((request.path, headers.get("webhook-id", "")))

    def _verify(self, path: str, body: bytes, headers: dict[str, str]) -> bool:
        secret = self.secrets.get(path)
        if secret is None:
            return False
        try:
            Webhook(secret).verify(body, headers)
        except WebhookVerificationError:
            return False
        return True

    def unique(self, path: str) -> dict[str, dict[str, Any]]:
        """Successfully answered, verified deliveries on ``path``, deduplicated by ``webhook-id``."""
        with self.lock:
            items = list(self.received)
        return {r.headers["webhook-id"]: json.loads(r.body) for r in items if r.path == path and r.answered == 200}

    def seen(self, path: str) -> list[Received]:
        """Every request on ``path``, in arrival order."""
        with self.lock:
            return [r for r in self.received if r.path == path]
