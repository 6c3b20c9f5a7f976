"""One delivery attempt: the signed request (Standard Webhooks), the outcome, the next try.

The body is ``{"type", "timestamp", "sequence", "data"}`` (the event's own time, RFC 3339; the
event's place among its game's events, only on a game's events), the same bytes on every attempt;
the headers are ``webhook-id`` (the delivery id, stable per event and subscription),
``webhook-timestamp`` (the attempt's Unix time) and ``webhook-signature`` (``v1,<base64
HMAC-SHA256>``), signed with the ``standardwebhooks`` package.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import aiohttp
import orjson
from standardwebhooks.webhooks import Webhook

from services.clock import clock as clocks
from services.webhook.store import Delivery
from services.webhook.targets import TargetPolicy, TargetRefused, check_target

USER_AGENT = "chaiwala-webhooks/1"
MAX_ERROR_CHARS = 200
MAX_ANSWER_BYTES = 64 * 1024  # what is read of a receiver's answer (its body is never used)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter, within a retry window."""

    base_s: float
    cap_s: float
    window_s: float

    def next_due(self, delivery: Delivery, now_ms: int, rng: random.Random) -> int | None:
        """When to try again after ``delivery.attempts`` failures; ``None`` once the window is spent."""
        delay_s = min(self.cap_s, self.base_s * 2 ** max(0, delivery.attempts - 1))
        due = now_ms + int(delay_s * rng.uniform(0.5, 1.0) * 1000)  # jitter spreads retry storms
        if due - delivery.window_ms > self.window_s * 1000:
            return None
        return due


def body_of(event: dict[str, object]) -> bytes:
    """The request body of an outbox event (as :class:`services.outbox.OutboxEvent` fields)."""
    ts_ms = int(str(event["ts_ms"]))
    body: dict[str, object] = {"type": event["type"], "timestamp": clocks.rfc3339(ts_ms)}
    if "sequence" in event:
        body["sequence"] = event["sequence"]
    body["data"] = event["data"]
    return orjson.dumps(body)


def signed_headers(secret: str, delivery_id: str, body: bytes, now_s: float) -> dict[str, str]:
    """The Standard Webhooks headers for ``body``."""
    at = datetime.fromtimestamp(int(now_s), tz=UTC)
    signature = Webhook(secret).sign(delivery_id, at, body.decode())
    return {
        "webhook-id": delivery_id,
        "webhook-timestamp": str(int(now_s)),
        "webhook-signature": signature,
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }


@dataclass(frozen=True)
class Attempt:
    """How one attempt went."""

    outcome: str  # delivered, failed, refused
    status_code: int
    error: str
    duration_ms: int

    def as_dict(self, at_ms: int) -> dict[str, object]:
        """The attempt as stored in the delivery record."""
        return {
            "at_ms": at_ms,
            "outcome": self.outcome,
            "status_code": self.status_code,
            "error": self.error,
            "duration_ms": self.duration_ms,
        }


def new_session(timeout_s: float, concurrency: int) -> aiohttp.ClientSession:
    """The dispatcher's HTTP client (inside its event loop): aiohttp, about half httpx's CPU per request
    (issue 47); connections kept alive per endpoint; no DNS cache, so every attempt resolves as the
    target check before it did; no proxy from the environment and no redirects followed."""
    connector = aiohttp.TCPConnector(limit=max(1, concurrency), use_dns_cache=False)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout_s),
                                 auto_decompress=False, trust_env=False)  # fmt: skip


async def attempt(
    http: aiohttp.ClientSession, url: str, secret: str, delivery: Delivery, policy: TargetPolicy
) -> Attempt:
    """POST the delivery once; any 2xx is delivered, anything else (or no answer) failed."""
    started = time.perf_counter()
    try:
        await check_target(url, policy)
    except TargetRefused as refused:
        return Attempt("refused", 0, refused.message[:MAX_ERROR_CHARS], 0)
    body = body_of(delivery.event)
    headers = signed_headers(secret, delivery.delivery_id, body, time.time())
    try:
        async with http.post(url, data=body, headers=headers, allow_redirects=False) as response:
            status = response.status
            await response.content.read(MAX_ANSWER_BYTES)  # read (so the connection is kept), never kept
    except (aiohttp.ClientError, TimeoutError, ValueError) as error:
        elapsed = int((time.perf_counter() - started) * 1000)
        return Attempt("failed", 0, f"{type(error).__name__}: {error}"[:MAX_ERROR_CHARS], elapsed)
    elapsed = int((time.perf_counter() - started) * 1000)
    if 200 <= status < 300:
        return Attempt("delivered", status, "", elapsed)
    return Attempt("failed", status, f"HTTP {status}", elapsed)
