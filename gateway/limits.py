"""The gateway's limits: request rates, game creation, slow bodies and live streams.

Rates use the ``limits`` package with its sliding-window counter, stored in Redis (shared
by every gateway instance) or, without a Redis URL, in this process's memory:

* every ``/v1`` request counts against its **client address** and, when it carries one,
  its **bearer credential** (seat token or API key, keyed by its SHA-256, never in clear);
* ``POST /v1/games`` also counts against a **creation quota** per credential (or per
  address without one), so an open server cannot be filled with games;
* a request body must arrive within ``body_timeout_seconds`` (408 otherwise);
* SSE streams are capped per credential, per address and per process (503).

A refusal is problem+json: 429 ``rate_limited`` with ``Retry-After`` and ``RateLimit-Limit``,
``RateLimit-Remaining``, ``RateLimit-Reset``; 503 ``too_many_streams`` with ``Retry-After``;
408 ``body_timeout``.  When the limit store does not answer, requests are let through
(counted in ``chaiwala_gateway_limit_errors_total``): the rules services answer 503 on their
own if Redis is really gone, and a limiter must not become the outage.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections import Counter as Tally
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import limits
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.storage.redis.redispy import RedispyBridge
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from prometheus_client import CollectorRegistry, Counter, Gauge
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.problems import Problem, problem_response
from gateway.settings import GatewaySettings
from services.common.logs import get_logger

log = get_logger("gateway")
STREAM_RETRY_AFTER = 5  # seconds a client over a stream cap should wait
Window = tuple[str, str, limits.RateLimitItem]  # limit name, key, one of its rate items
ScriptCall = tuple[list[str], tuple[int, ...]]  # a script's keys and arguments


@dataclass(frozen=True)
class Rider:
    """A read another layer wants in the limits' round trip (one more script in their pipeline):
    its answer is left in the request's scope under ``scope_key``, beside ``tag`` (what was read)."""

    source: str  # the Lua script (loaded again on NOSCRIPT, as the limits' own)
    sha: str
    keys: list[str]
    args: list[str]
    scope_key: str
    tag: object


RiderFor = Callable[[Scope], "Rider | None"]


@dataclass(frozen=True)
class Refusal:
    """Which limit refused a request, and when to come back."""

    name: str
    item: limits.RateLimitItem
    reset_at: float

    def problem(self) -> Problem:
        """The 429 problem with ``Retry-After`` and ``RateLimit-*`` headers."""
        wait = max(1, math.ceil(self.reset_at - time.time()))
        headers = {
            "Retry-After": str(wait),
            "RateLimit-Limit": str(self.item.amount),
            "RateLimit-Remaining": "0",
            "RateLimit-Reset": str(wait),
        }
        detail = f"{self.name} limit of {self.item} reached; retry in {wait}s"
        return Problem(429, "rate_limited", detail, headers=headers)


class LimitMetrics:
    """The configured limits as gauges, and how often each refused or failed."""

    def __init__(self, registry: CollectorRegistry, settings: GatewaySettings) -> None:
        self.configured = Gauge(
            "chaiwala_gateway_limit",
            "Configured gateway limits (requests per window, seconds, or streams)",
            ["limit", "window"],
            registry=registry,
            multiprocess_mode="max",  # the same configuration in every worker
        )
        self.refused = Counter(
            "chaiwala_gateway_limited", "Requests refused by a gateway limit", ["limit"], registry=registry
        )
        self.errors = Counter(
            "chaiwala_gateway_limit_errors", "Limit checks skipped because the limit store failed", registry=registry
        )
        self.streams = Gauge(
            "chaiwala_gateway_sse_streams", "Open SSE streams (summed over workers)", registry=registry,
            multiprocess_mode="livesum",
        )
        for name, text in settings.rate_limits().items():
            for item in limits.parse_many(text):
                self.configured.labels(name, f"{item.multiples} {item.GRANULARITY.name}").set(item.amount)
        for name, value in settings.fixed_limits().items():
            self.configured.labels(name, "").set(value)


def _storage(settings: GatewaySettings) -> Storage:
    """Redis when configured (shared by every gateway), else this process's memory."""
    if not settings.redis_url:
        return MemoryStorage()
    return RedisStorage(
        "async+" + settings.redis_url,
        implementation="redispy",
        key_prefix="chaiwala:limits",
        socket_connect_timeout=1.0,
        socket_timeout=1.0,
        retry=Retry(NoBackoff(), 1),  # type: ignore[arg-type]  # passed on to redis-py
    )


def _client_address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def _credential(scope: Scope) -> str:
    """A stable, non-secret id of the request's bearer ("" without one)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return hashlib.sha256(value[7:].strip()).hexdigest()[:32]
    return ""


def _is_stream(scope: Scope) -> bool:
    if scope["method"] != "GET" or not scope["path"].endswith("/events"):
        return False
    return any(name == b"accept" and b"text/event-stream" in value for name, value in scope.get("headers", ()))


class Limiter:
    """Rate limits and stream caps for one gateway process."""

    def __init__(self, settings: GatewaySettings, metrics: LimitMetrics, rider: RiderFor | None = None) -> None:
        self.settings = settings
        self.metrics = metrics
        self.rider = rider
        self.storage = _storage(settings)
        self.strategy = SlidingWindowCounterRateLimiter(self.storage)
        self.rates = {name: limits.parse_many(text) for name, text in settings.rate_limits().items()}
        self.streams: Tally[str] = Tally()

    async def check(self, scope: Scope) -> Refusal | None:
        """The first limit this request exceeds, if any (each limit it passes is charged)."""
        address, credential = _client_address(scope), _credential(scope)
        checks = [("rate_per_address", f"addr:{address}")]
        if credential:
            checks.append(("rate_per_token", f"cred:{credential}"))
        if scope["method"] == "POST" and scope["path"] == "/v1/games":
            checks.append(("create_quota", f"cred:{credential}" if credential else f"addr:{address}"))
        windows = [(name, key, item) for name, key in checks for item in self.rates[name]]
        try:
            if isinstance(self.storage, RedisStorage):
                return await self._hit_batch(windows, self.rider(scope) if self.rider else None, scope)
            for name, key, item in windows:
                if not await self.strategy.hit(item, name, key):
                    return await self._refused(name, key, item)
        except Exception as error:  # the limit store is down: let the request through
            self.metrics.errors.inc()
            log.warning("limit_store_failed", error=type(error).__name__)
        return None

    async def _refused(self, name: str, key: str, item: limits.RateLimitItem) -> Refusal:
        stats = await self.strategy.get_window_stats(item, name, key)
        self.metrics.refused.labels(name).inc()
        return Refusal(name, item, stats.reset_time)

    async def _hit_batch(self, windows: list[Window], rider: Rider | None, scope: Scope) -> Refusal | None:
        """Every window of the request charged in one Redis round trip, as ``strategy.hit`` would in turn.

        One pipeline of the library's own sliding-window script (the same keys and arithmetic as
        ``SlidingWindowCounterRateLimiter.hit``) instead of one round trip per window: the limits
        were a fifth of the gateway's CPU per move.  Checked in turn, the first refusal ends the
        check and later windows are not charged; here they were charged in the same round trip,
        so the ones after the first refusal that took a hit get it back (only when refusing).
        A ``rider``'s script runs in the same pipeline and its answer goes into ``scope``.
        """
        assert isinstance(self.storage, RedisStorage)
        bridge = cast(RedispyBridge, self.storage.bridge)  # implementation="redispy" (see _storage)
        connection = cast(aioredis.Redis, bridge.get_connection())
        script = bridge.lua_acquire_sliding_window
        calls: list[ScriptCall] = []
        for name, key, item in windows:
            window_key = item.key_for(name, key)
            keys = [bridge.prefixed_key(self.storage._previous_window_key(window_key)),
                    bridge.prefixed_key(self.storage._current_window_key(window_key))]  # fmt: skip
            calls.append((keys, (item.amount, item.get_expiry(), 1)))
        try:
            taken = await _evalsha_all(connection, script.sha, calls, rider, scope)
        except NoScriptError:  # a Redis that restarted or was flushed: load the scripts once, again
            for source in [script.script, *([rider.source] if rider else [])]:
                await connection.script_load(source)
            taken = await _evalsha_all(connection, script.sha, calls, rider, scope)
        if all(taken):
            return None
        first = taken.index(False)
        refunds = [calls[index][0][1] for index in range(first + 1, len(windows)) if taken[index]]
        if refunds:
            async with connection.pipeline(transaction=False) as refund:
                for window in refunds:
                    refund.decrby(window, 1)
                await refund.execute()
        return await self._refused(*windows[first])

    def open_stream(self, scope: Scope) -> list[str]:
        """Take one SSE slot per cap (process, address, credential); 503 past any of them."""
        keys = {"sse_streams_per_process": "process", "sse_streams_per_address": f"addr:{_client_address(scope)}"}
        credential = _credential(scope)
        if credential:
            keys["sse_streams_per_token"] = f"cred:{credential}"
        caps = self.settings.fixed_limits()
        for name, key in keys.items():
            if self.streams[key] >= caps[name]:
                self.metrics.refused.labels(name).inc()
                detail = f"too many open event streams ({name.replace('_', ' ')}: {caps[name]})"
                raise Problem(503, "too_many_streams", detail, headers={"Retry-After": str(STREAM_RETRY_AFTER)})
        taken = list(keys.values())
        self.streams.update(taken)
        self.metrics.streams.set(self.streams["process"])
        return taken

    def close_stream(self, taken: list[str]) -> None:
        """Give back the slots of a stream that ended."""
        self.streams.subtract(taken)
        self.streams += Tally()  # drop keys that reached zero, so the tally does not grow forever
        self.metrics.streams.set(self.streams["process"])


class LimitsMiddleware:
    """Pure ASGI: refuses over-limit requests before routing, bounds body upload time."""

    def __init__(self, app: ASGIApp, limiter: Limiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Apply the limits to one ``/v1`` request."""
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        refusal = await self.limiter.check(scope)
        if refusal is not None:
            await problem_response(refusal.problem(), scope["path"])(scope, receive, send)
            return
        bounded = _deadline_receive(receive, self.limiter.settings.body_timeout_seconds)
        if not _is_stream(scope):
            await self.app(scope, bounded, send)
            return
        try:
            taken = self.limiter.open_stream(scope)
        except Problem as problem:
            await problem_response(problem, scope["path"])(scope, receive, send)
            return
        try:
            await self.app(scope, bounded, send)
        finally:
            self.limiter.close_stream(taken)


async def _evalsha_all(
    connection: aioredis.Redis, sha: str, calls: list[ScriptCall], rider: Rider | None, scope: Scope
) -> list[bool]:
    """One script run per ``(keys, args)``, pipelined: what each answered, as booleans; the
    ``rider``'s answer, read in the same pipeline, is left in ``scope``.

    EVALSHA directly, not the script object on the pipeline: redis-py then checks that every
    script exists with a second round trip before each pipeline, which is what this saves.
    """
    async with connection.pipeline(transaction=False) as pipe:
        for keys, args in calls:
            pipe.evalsha(sha, len(keys), *keys, *args)
        if rider is not None:
            pipe.evalsha(rider.sha, len(rider.keys), *rider.keys, *rider.args)
        answers = await pipe.execute()
    if rider is not None:
        scope[rider.scope_key] = (rider.tag, answers.pop())
    return [bool(answer) for answer in answers]


def _deadline_receive(receive: Receive, seconds: float) -> Receive:
    """``receive`` whose body messages must all arrive within ``seconds`` of the request.

    Once the body is complete, later calls (an SSE route waiting for the disconnect) wait
    as long as they like.
    """
    deadline = time.monotonic() + seconds
    complete = False

    async def bounded() -> Message:
        nonlocal complete
        if complete:
            return await receive()
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                message = await receive()
        except TimeoutError:
            raise Problem(408, "body_timeout", f"the request body must arrive within {seconds:g}s") from None
        complete = message["type"] != "http.request" or not message.get("more_body", False)
        return message

    return bounded
