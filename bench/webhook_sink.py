"""The ``capacity`` suite's webhook receiver: a real HTTP server in a process of its own.

``python -m bench.webhook_sink``: listens on 127.0.0.1 (a free port, printed as the first line of
its output) and accepts every ``POST`` as a platform's endpoint would: it verifies the Standard
Webhooks signature with the secret of the path the subscription points at, deduplicates by
``webhook-id`` and answers 204.  Unlike ``tests/support/webhook_receiver.py`` (which keeps every
request for a test to read) it keeps only counts and, per ``turn.started``, the game, version and
arrival time (``time.perf_counter``: ``CLOCK_MONOTONIC``, shared with the driver's process), so a
ten-minute run stays small.  It runs apart from the driver so that the driver's event loop is not
slowed by the receiver's threads (they would share one GIL).

Control (loopback only, not a webhook path): ``POST /_secret/<path>`` with the secret as the body;
``GET /_stats?after=N`` answers the counts and the turn arrivals from the ``N``-th on.  Secrets are
never printed.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.support.local_http import answer, serve


class Sink:
    """What arrived: verified and refused deliveries, by type, and every turn's arrival."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.secrets: dict[str, Webhook] = {}
        self.seen: set[str] = set()
        self.counts: Counter[str] = Counter()
        self.turns: list[tuple[str, int, float]] = []  # (game_id, version, arrived at)

    def post(self, request: BaseHTTPRequestHandler) -> None:
        """A delivery (or a secret from the driver)."""
        body = request.rfile.read(int(request.headers.get("content-length", "0")))
        if request.path.startswith("/_secret/"):
            with self.lock:
                self.secrets[request.path.removeprefix("/_secret")] = Webhook(body.decode())
            answer(request, 204)
            return
        arrived = time.perf_counter()
        headers = {name.lower(): value for name, value in request.headers.items()}
        self._record(request.path, body, headers, arrived)
        answer(request, 204)

    def _record(self, path: str, body: bytes, headers: dict[str, str], arrived: float) -> None:
        signer = self.secrets.get(path)
        try:
            if signer is None:
                raise WebhookVerificationError("no secret for this path")
            signer.verify(body, headers)
        except WebhookVerificationError:
            with self.lock:
                self.counts["unverified"] += 1
            return
        event = orjson.loads(body)
        with self.lock:
            key = f"{path} {headers.get('webhook-id', '')}"
            if key in self.seen:
                self.counts["duplicates"] += 1
                return
            self.seen.add(key)
            self.counts["verified"] += 1
            self.counts[f"type:{event.get('type', '')}"] += 1
            if event.get("type") == "turn.started":
                data = event.get("data", {})
                self.turns.append((str(data.get("game_id", "")), int(data.get("version", -1)), arrived))

    def get(self, request: BaseHTTPRequestHandler) -> None:
        """``/_stats?after=N``: counts and the turn arrivals from the ``N``-th on."""
        after = int(request.path.partition("after=")[2] or 0)
        with self.lock:
            body: dict[str, Any] = {"counts": dict(self.counts), "turns": self.turns[after:], "next": len(self.turns)}
        answer(request, 200, orjson.dumps(body), "application/json")


def main() -> None:
    """Serve until stdin closes (the driver's end) or the process is stopped."""
    sink = Sink()
    server: ThreadingHTTPServer = serve({"POST": sink.post, "GET": sink.get})
    print(server.server_address[1], flush=True)
    sys.stdin.read()  # returns when the driver closes our stdin (or dies)
    server.shutdown()


if __name__ == "__main__":
    main()
