"""The gateway's limits: request rates, game creation, slow bodies and live streams.

Rates use the ``limits`` package with its sliding-window counter, stored in Redis (shared
by every gateway instance) or, without a Redis URL, in this process's memory:

* every ``/v1`` request counts against its **client address** and, when it carries one,
  its **bearer credential** (seat token or API key, keyed by its SHA-256, never in clear);
* ``POST /v1/games`` also counts against a **creation quota** per credential (or per
  address without one), so an open server cannot be filled with games;
* ``POST /v1/sessions`` (a new guest player each) counts against a **session quota** per
  client address, whatever the request carries: the identity domain's count, which gRPC
  ``CreateSession`` draws on too (:mod:`services.identity.quota`; without Redis, this process's);
* **failed authentications** (a 401, or a 403 ``api_key_required``: a wrong operator key) count
  against their client address and their credential in a stricter bucket of their own
  (``auth_failure_limit``): past it the failures are answered 429, and a credential past its own
  bucket is refused before it reaches a service; a valid credential is never refused for other
  clients' failures from its address (:mod:`gateway.auth_failures`);
* a request body must arrive within ``body_timeout_seconds`` (408 otherwise);
* SSE streams are capped per credential and per address across every gateway (leases in Redis,
  :mod:`gateway.stream_caps`), and per process (503).

On a Redis Cluster (``CHAIWALA_REDIS_CLUSTER``) the two keys of one window share a slot (the
library's hash tags) but the windows of one request do not: they are charged one script call per
slot, in order, as the one call is on a single Redis (the first refusal ends the check), through
:class:`services.common.cluster_client.FailoverCluster` (the store's 2 s reply bound, one retry).

A refusal is problem+json: 429 ``rate_limited`` with ``Retry-After`` and ``RateLimit-Limit``,
``RateLimit-Remaining``, ``RateLimit-Reset``; 503 ``too_many_streams`` with ``Retry-After``;
408 ``body_timeout``.  When the limit store fails (``limit_store_failed``, counted), guest sessions,
creations and failed authentications get 503 ``store_unavailable`` (:data:`FAIL_CLOSED`: load must
not lift them); request rates let requests through, as the services behind answer 503 themselves.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast
from urllib.parse import urlsplit, urlunsplit

import limits
from limits.aio.storage import MemoryStorage, RedisClusterStorage, RedisStorage, Storage
from limits.aio.storage.redis.redispy import RedispyBridge
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.crc import key_slot
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.auth_failures import AuthFailures, AuthFailureWatch
from gateway.limit_call import WindowsCommand
from gateway.limit_parts import LimitMetrics as LimitMetrics  # the app's and the tests' import
from gateway.limit_parts import Refusal
from gateway.problems import Problem, problem_response
from gateway.settings import GatewaySettings
from gateway.stream_caps import STREAM_RETRY_AFTER as STREAM_RETRY_AFTER  # fanout's, said once
from gateway.stream_caps import StreamCaps
from services.common.cluster_client import CALL_REPLY_TIMEOUT_SECONDS, FailoverCluster, cluster_options
from services.common.logs import get_logger
from services.common.scriptcall import HeldConnections, LeanScript
from services.common.store import redis_client
from services.identity.quota import SessionQuota

log = get_logger("gateway")
Window = tuple[str, str, limits.RateLimitItem]  # limit name, key, one of its rate items


@dataclass(frozen=True)
class Rider:
    """A read another layer wants in the limits' round trip (run inside their script when nothing
    refused): its answer is left in the request's scope under ``scope_key``, beside ``tag`` (what
    was read)."""

    source: str  # the Lua script, run inside the limits' own script (gateway.limits.windows_script)
    keys: list[str]
    args: list[str]
    scope_key: str
    tag: object


RiderFor = Callable[[Scope], "Rider | None"]


LIMIT_REPLY_TIMEOUT_SECONDS = CALL_REPLY_TIMEOUT_SECONDS  # the store's own bound (1 s failed under load)
# The gateway's own Redis client: a call per SSE stream opened or closed and per guest session, and
# one pipeline per lease renewal (gateway.stream_caps); a call waits this long for a free connection.
REDIS_CONNECTIONS = 20
REDIS_POOL_TIMEOUT_SECONDS = 2.0
# Limits refused (503 store_unavailable) rather than skipped when their store fails.
FAIL_CLOSED = frozenset({"auth_failures", "session_quota", "create_quota"})


def _storage(settings: GatewaySettings) -> Storage:
    """Redis (or Redis Cluster) when configured (shared by every gateway), else this process's memory."""
    if not settings.redis_url:
        return MemoryStorage()
    if settings.redis_cluster:
        return _cluster_storage(settings.redis_url)
    return RedisStorage(
        "async+" + settings.redis_url,
        implementation="redispy",
        key_prefix="chaiwala:limits",
        socket_connect_timeout=1.0,
        socket_timeout=LIMIT_REPLY_TIMEOUT_SECONDS,
        retry=Retry(NoBackoff(), 1),  # type: ignore[arg-type]  # passed on to redis-py
    )


def _cluster_storage(url: str) -> RedisClusterStorage:
    """The limits on a Redis Cluster, through the store's failover-aware cluster client."""
    options = {**cluster_options(), "socket_timeout": LIMIT_REPLY_TIMEOUT_SECONDS, "retry": Retry(NoBackoff(), 1)}
    parts = urlsplit(url)  # one node: host:port with the password, and TLS (rediss://, its query) if any
    storage = RedisClusterStorage(f"async+redis+cluster://{parts.netloc}", implementation="redispy",
                                  key_prefix="chaiwala:limits", **options)  # fmt: skip
    # The library makes a plain RedisCluster (not connected until first used); the bridge gets the
    # failover-aware one instead, with the URL's scheme and TLS options, and its scripts are
    # registered again on it.
    bridge = cast(RedispyBridge, storage.bridge)
    node = urlunsplit((parts.scheme, parts.netloc, "", parts.query, ""))
    bridge.storage = FailoverCluster.from_url(node, **options)  # type: ignore[assignment]
    bridge.register_scripts()
    return storage


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
        # The request's one script call on a single Redis, by the lean script call (services.common.scriptcall)
        # on connections held for it, packed from pieces kept per window (gateway.limit_call); its
        # scripts by rider source ("": none).
        self.lean = _held_connections(self.storage)
        self.command = WindowsCommand(functools.partial(_window_keys, cast(RedisStorage, self.storage)))
        self.scripts: dict[str, LeanScript] = {}
        self.rates = {name: limits.parse_many(text) for name, text in settings.rate_limits().items()}
        # The gateway's own Redis client (leases of SSE streams, the guest-session quota); the rate
        # windows run on the limits package's.
        self.redis = (
            redis_client(settings.redis_url, settings.redis_cluster, REDIS_CONNECTIONS, REDIS_POOL_TIMEOUT_SECONDS)
            if settings.redis_url
            else None
        )
        self.streams = StreamCaps(settings, metrics, self._store_failed, self.redis)
        # Guest sessions count where gRPC CreateSession counts them (one quota however asked for).
        self.sessions = SessionQuota(self.redis, settings.session_limit) if self.redis is not None else None
        self.auth_failures = AuthFailures(self.strategy, self.rates["auth_failures"], self._refused,
                                          lambda error: self._store_failed(error, ["auth_failures"]))  # fmt: skip

    def auth_blocked(self, scope: Scope) -> Refusal | None:
        """The refusal of a request whose credential failed too often (its own bucket, never its
        address's: see :mod:`gateway.auth_failures`)."""
        if not self.auth_failures.blocks:
            return None  # the common case: no credential blocked, no hashing on the hot path
        refusal = self.auth_failures.blocked(_credential(scope))
        if refusal is not None:
            self.metrics.refused.labels("auth_failures").inc()
        return refusal

    async def auth_failed(self, scope: Scope) -> Refusal | None:
        """Charge one failed authentication to the request's address and credential; the refusal once
        a bucket is full, and 503 when the limit store fails (never an uncounted 401)."""
        return await self.auth_failures.failed(_client_address(scope), _credential(scope))

    def _store_failed(self, error: Exception, names: list[str]) -> Refusal | None:
        """Count and log a failed check; the 503 refusal when one of ``names`` fails closed."""
        self.metrics.errors.inc()
        log.warning("limit_store_failed", error=type(error).__name__)
        for name in (name for name in names if name in FAIL_CLOSED):
            self.metrics.refused.labels(name).inc()
            return Refusal(name, None, time.time() + 1)  # Retry-After: 1, as the store's own 503
        return None

    def watch_failures(self, scope: Scope, receive: Receive, send: Send) -> Send:
        """``send`` that charges a failed authentication of this request (:mod:`gateway.auth_failures`)."""
        return AuthFailureWatch(self.auth_failed, scope, receive, send)

    async def check(self, scope: Scope) -> Refusal | None:
        """The first limit this request exceeds, if any (each limit it passes is charged)."""
        address, credential = _client_address(scope), _credential(scope)
        checks = [("rate_per_address", f"addr:{address}")]
        if credential:
            checks.append(("rate_per_token", f"cred:{credential}"))
        if scope["method"] == "POST" and scope["path"] == "/v1/games":
            checks.append(("create_quota", f"cred:{credential}" if credential else f"addr:{address}"))
        session = scope["method"] == "POST" and scope["path"] == "/v1/sessions"
        if session and self.sessions is None:  # no Redis: this process's own window
            checks.append(("session_quota", f"addr:{address}"))
        windows = [(name, key, item) for name, key in checks for item in self.rates[name]]
        try:
            if isinstance(self.storage, RedisStorage):
                refusal = await self._hit_batch(windows, self.rider(scope) if self.rider else None, scope)
            else:
                refusal = await self._hit_each(windows)
            if refusal is None and session and self.sessions is not None:
                refusal = await self._session(address)
        except Exception as error:  # the limit store failed: quotas refuse (503), rates let through
            return self._store_failed(error, [name for name, _ in checks] + (["session_quota"] if session else []))
        return refusal

    async def _hit_each(self, windows: list[Window]) -> Refusal | None:
        for name, key, item in windows:
            if not await self.strategy.hit(item, name, key):
                return await self._refused(name, key, item)
        return None

    async def _session(self, address: str) -> Refusal | None:
        """Count a guest session on the identity domain's quota (:mod:`services.identity.quota`)."""
        assert self.sessions is not None
        exceeded = await self.sessions.take(address)
        if exceeded is None:
            return None
        self.metrics.refused.labels("session_quota").inc()
        return Refusal("session_quota", exceeded.item, exceeded.reset_at)

    async def close(self) -> None:
        """Stop renewing stream leases and close the gateway's Redis client (the gateway is stopping)."""
        await self.streams.stop()
        if self.lean is not None:
            await self.lean.close()
        if self.redis is not None:
            await self.redis.aclose()

    async def _refused(self, name: str, key: str, item: limits.RateLimitItem) -> Refusal:
        stats = await self.strategy.get_window_stats(item, name, key)
        self.metrics.refused.labels(name).inc()
        return Refusal(name, item, stats.reset_time)

    async def _hit_batch(self, windows: list[Window], rider: Rider | None, scope: Scope) -> Refusal | None:
        """Every window of the request charged in one script call, exactly as ``strategy.hit`` in turn.

        The library's own sliding-window script (the same keys and arithmetic as
        ``SlidingWindowCounterRateLimiter.hit``), wrapped as a Lua function and run for each window
        in turn inside **one** script (:func:`windows_script`): the first refusal ends the check and
        later windows are not charged, as checking them one by one would.  One command instead of
        a pipeline of one per window (redis-py's pipeline machinery was a tenth of the gateway's
        samples).  On a Redis Cluster, one such call per run of windows in the same slot, in order
        (a script's keys must share a slot).  A ``rider``'s read runs in the same call when nothing
        refused, on a single Redis only (:meth:`_hit_single`), and its answer goes into ``scope``.
        """
        assert isinstance(self.storage, RedisStorage)
        bridge = cast(RedispyBridge, self.storage.bridge)  # implementation="redispy" (see _storage)
        connection = cast(aioredis.Redis, bridge.get_connection())
        if self.lean is not None:
            return await self._hit_single(windows, rider, scope, connection)
        # Otherwise a cluster (a single Redis always takes the lean call): one call per run of windows
        # in one slot, in order, and no rider (the app gives none on a cluster: its keys are a game's).
        keyed = [(_window_keys(self.storage, name, key, item), item) for name, key, item in windows]
        first = 0
        for count in _slot_runs([keys for keys, _ in keyed]):
            keys: list[str] = []
            args: list[object] = [count]
            for (previous, current), item in keyed[first : first + count]:
                keys += [previous, current]
                args += [item.amount, item.get_expiry(), 1]
            refused = int((await self._script("", connection)(keys, args))[0])
            if refused >= 0:
                return await self._refused(*windows[first + refused])
            first += count
        return None

    async def _hit_single(
        self, windows: list[Window], rider: Rider | None, scope: Scope, connection: aioredis.Redis
    ) -> Refusal | None:
        """:meth:`_hit_batch` on a single Redis: one call, through the lean script call
        (:mod:`services.common.scriptcall`, which loads the script again when Redis lost it)."""
        assert self.lean is not None
        script = self._script(rider.source if rider is not None else "", connection)
        command = self.command(script.sha, windows, rider.keys if rider else [], rider.args if rider else [])
        answer = await script.send(command)
        refused = int(answer[0])
        if refused >= 0:
            return await self._refused(*windows[refused])
        if rider is not None:
            scope[rider.scope_key] = (rider.tag, answer[1])
        return None

    def _script(self, rider_source: str, connection: aioredis.Redis) -> LeanScript:
        """The request's script with ``rider_source``'s read in it ("": none), made once per source: the
        lean script call on a single Redis, redis-py's ``Script`` on a cluster (both load it again when
        Redis lost it)."""
        script = self.scripts.get(rider_source)
        if script is None:
            source = windows_script(_window_source(cast(RedisStorage, self.storage)), rider_source)
            script = self.scripts[rider_source] = LeanScript(connection, source, self.lean)
        return script

    def stream_keys(self, scope: Scope) -> dict[str, str]:
        """The keys an SSE stream is capped by beside its process: its address and its credential."""
        keys = {"sse_streams_per_address": f"addr:{_client_address(scope)}"}
        credential = _credential(scope)
        if credential:
            keys["sse_streams_per_token"] = f"cred:{credential}"
        return keys


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
        refusal = self.limiter.auth_blocked(scope) or await self.limiter.check(scope)
        if refusal is not None:
            await problem_response(refusal.problem(), scope["path"], scope)(scope, receive, send)
            return
        send = self.limiter.watch_failures(scope, receive, send)
        bounded = _deadline_receive(receive, self.limiter.settings.body_timeout_seconds)
        if not _is_stream(scope):
            await self.app(scope, bounded, send)
            return
        try:
            taken = await self.limiter.streams.open(self.limiter.stream_keys(scope))
        except Problem as problem:
            await problem_response(problem, scope["path"], scope)(scope, receive, send)
            return
        try:
            await self.app(scope, bounded, send)
        finally:
            await self.limiter.streams.close(taken)


@functools.cache
def windows_script(window_source: str, rider_source: str) -> str:
    """The one script of a request's limits (and its rider's read).

    KEYS: two per window (previous, current), then the rider's.  ARGV: the window count, three per
    window (limit, expiry, amount), then the rider's.  Answers ``{refused, ridden}``: the index of
    the first window that refused (-1: none) and, when none did, the rider's answer.
    """
    rider = f"local function rider(KEYS, ARGV)\n{rider_source}\nend\n" if rider_source else ""
    source = f"""local function window(KEYS, ARGV)
{window_source}
end
{rider}local count = tonumber(ARGV[1])
for i = 0, count - 1 do
  if not window({{KEYS[2 * i + 1], KEYS[2 * i + 2]}}, {{ARGV[2 + 3 * i], ARGV[3 + 3 * i], ARGV[4 + 3 * i]}}) then
    return {{i, false}}
  end
end
"""
    if rider_source:
        source += """local rest_keys, rest_args = {}, {}
for i = 2 * count + 1, #KEYS do rest_keys[#rest_keys + 1] = KEYS[i] end
for i = 3 * count + 2, #ARGV do rest_args[#rest_args + 1] = ARGV[i] end
return {-1, rider(rest_keys, rest_args)}
"""
    else:
        source += "return {-1, false}\n"
    return source


def _window_source(storage: RedisStorage) -> str:
    """The library's sliding-window script (redis-py keeps it as str or bytes)."""
    source = cast(RedispyBridge, storage.bridge).lua_acquire_sliding_window.script
    return source.decode() if isinstance(source, bytes) else str(source)


def _held_connections(storage: Storage) -> HeldConnections | None:
    """The connections of the limits' lean call on a single Redis, made by the limits client's pool
    (its URL, password, TLS and timeouts); none on a cluster or in memory."""
    if not isinstance(storage, RedisStorage) or isinstance(storage, RedisClusterStorage):
        return None
    client = cast(aioredis.Redis, cast(RedispyBridge, storage.bridge).get_connection())
    return HeldConnections(client.connection_pool)


def _window_keys(storage: RedisStorage, name: str, key: str, item: limits.RateLimitItem) -> tuple[str, str]:
    """The previous and current keys of one window, as the library names them (one hash tag)."""
    window_key = item.key_for(name, key)
    bridge = storage.bridge
    return bridge.prefixed_key(storage._previous_window_key(window_key)), bridge.prefixed_key(
        storage._current_window_key(window_key)
    )


def _slot_runs(keys: list[tuple[str, str]]) -> list[int]:
    """The lengths of the runs of consecutive windows whose keys are in one cluster slot."""
    runs: list[int] = []
    slot = -1
    for _previous, current in keys:
        here = key_slot(current.encode())
        if runs and here == slot:
            runs[-1] += 1
        else:
            runs.append(1)
        slot = here
    return runs


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
