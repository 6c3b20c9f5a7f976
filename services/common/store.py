"""Store primitives every process shares: the Redis client, the store's refusals, token hashing.

What a game is in Redis (metadata, snapshot, log, the atomic commit) is the games domain's
(:mod:`services.games.store`); this module knows only how to reach Redis and what its
failures mean.
"""

from __future__ import annotations

import hashlib
import inspect
import secrets
from typing import Any

from redis import asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from services.common.cluster_client import BLOCKING_REPLY_TIMEOUT_SECONDS, FailoverCluster, cluster_options

# Redis unreachable: fail fast and try once more on a fresh connection (a pooled one may be
# stale after a Redis restart), with no back-off, so the first request after Redis is back
# succeeds instead of sleeping through a retry schedule.
CONNECT_TIMEOUT_SECONDS = 2.0
STORE_RETRIES = 1
# How long a call on a single server waits for its reply, stated rather than left to redis-py (whose
# default changed: none before 8.0, 5 s since).  A blocking reader's client waits longer than any
# block (cluster_client.BLOCKING_REPLY_TIMEOUT_SECONDS), and every blocking read bounds its block
# by its client's timeout (bounded_block_ms), so a quiet XREAD BLOCK never ends in a timeout.
CALL_REPLY_TIMEOUT_SECONDS = 5.0
# What a connection of the pinned redis-py waits when nobody said (a client built without our options).
_LIBRARY_REPLY_TIMEOUT: float | None = (
    inspect.signature(aioredis.connection.AbstractConnection.__init__).parameters["socket_timeout"].default
)
# Connections per store client (per node on a cluster), and how long a call waits for a free one.
DEFAULT_MAX_CONNECTIONS = 100
DEFAULT_POOL_TIMEOUT_SECONDS = 2.0
# Errors that mean "the store is not answering now", as opposed to a refusal or a bug.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.ReadOnlyError,
    redis_errors.SlotNotCoveredError,
    redis_errors.ClusterError,  # "TTL exhausted": redirected too often, as during a failover
)
# What redis-py's cluster client raises when its slot-map refresh found no node that answers with
# a map covering every slot: the cluster is unavailable, not misused (other RedisClusterExceptions
# are a caller's mistake, e.g. keys of one call in different slots, and stay errors).
_REFRESH_FAILURES = ("Redis Cluster cannot be connected", "All slots are not covered")


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` means "the store is not answering now" (503), as opposed to a refusal or a bug."""
    if isinstance(error, UNAVAILABLE_ERRORS):
        return True
    return isinstance(error, redis_errors.RedisClusterException) and str(error).startswith(_REFRESH_FAILURES)


class StoreError(Exception):
    """Base of the store's refusals."""


class GameNotFound(StoreError):
    """No game with that id."""


class VersionConflict(StoreError):
    """The game moved on since the caller's version."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class GameNotActive(StoreError):
    """The game is finished or aborted."""

    def __init__(self, status: str) -> None:
        super().__init__(f"the game is {status}")
        self.status = status


def hash_token(token: str) -> str:
    """Seat tokens are long random strings, so a plain SHA-256 is enough to store them."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh seat token."""
    return secrets.token_urlsafe(32)


class QuickPool(aioredis.BlockingConnectionPool):
    """redis-py's blocking pool, which hands out a free connection at once when no call is queued.

    redis-py's ``get_connection`` takes a condition, a timeout and an observability hook on every
    call, ~13 µs of a move's two Redis calls each.  While a connection is free (or may be opened)
    and no call waits, waiting is pointless: this takes it as redis-py's would (connected and
    checked, ``ensure_connection``).  Otherwise, or during a maintenance notification, the call
    queues through redis-py's own path (its wait, bounded by ``timeout``, its "No connection
    available"), and so do the calls that come while one is queued: a waiting call competes with
    them as redis-py's pool has it compete, not with calls that skipped the queue.  It reads one
    attribute of redis-py's pool (``_in_maintenance``; redis is pinned in constraints.txt, and
    tests/common/test_scriptcall.py runs this pool).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queued = 0

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        """A connected connection: at once when one is free and nobody waits, else by redis-py's wait."""
        if not self._queued and not self._in_maintenance and self.can_get_connection():
            connection = self.get_available_connection()
            try:
                await self.ensure_connection(connection)
            except BaseException:
                await self.release(connection)
                raise
            return connection
        self._queued += 1
        try:
            return await super().get_connection(*args, **kwargs)
        finally:
            self._queued -= 1


def redis_client(
    url: str, cluster: bool, max_connections: int, pool_timeout: float | None, blocking: bool = False, name: str = ""
) -> aioredis.Redis | RedisCluster:
    """A Redis (or Redis Cluster) client with a bounded pool; ``pool_timeout=None`` waits as long as needed.

    A cluster client bounds its calls (:mod:`services.common.cluster_client`); ``blocking`` marks a
    client of blocking reads, whose replies may take as long as their block (its reply timeout is
    :data:`~services.common.cluster_client.BLOCKING_REPLY_TIMEOUT_SECONDS`, on a cluster or not).
    ``name`` is the connections' ``CLIENT SETNAME`` (what ``CLIENT LIST`` shows an operator).
    """
    named = {"client_name": name} if name else {}
    if cluster:
        return FailoverCluster.from_url(url, max_connections=max_connections, **cluster_options(blocking), **named)
    retry = Retry(NoBackoff(), STORE_RETRIES)
    pool = QuickPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_timeout,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        socket_timeout=BLOCKING_REPLY_TIMEOUT_SECONDS if blocking else CALL_REPLY_TIMEOUT_SECONDS,
        retry=retry,
        retry_on_error=[redis_errors.ConnectionError, redis_errors.TimeoutError],
        **named,
    )
    return aioredis.Redis(connection_pool=pool)


def reply_timeout(client: Any) -> float | None:
    """How long ``client`` (a redis-py asyncio client, cluster or not) waits for a reply; ``None``: for ever."""
    if isinstance(client, RedisCluster):
        options = client.nodes_manager.connection_kwargs
    else:
        options = client.connection_pool.connection_kwargs
    timeout = options.get("socket_timeout", _LIBRARY_REPLY_TIMEOUT)
    return None if timeout is None else float(timeout)


def bounded_block_ms(client: Any, seconds: float) -> int:
    """The ``BLOCK`` (milliseconds, at least 1: 0 would wait for ever) of a blocking read on ``client``:
    ``seconds``, or half the client's reply timeout if that is shorter.

    A blocking read whose block reaches its client's reply timeout fails instead of answering
    "nothing yet" (redis-py 8 gave every client a 5 s timeout: the player stream's 10 s wait broke),
    so every ``XREAD``/``XREADGROUP ... BLOCK`` asks for its block through here.
    """
    timeout = reply_timeout(client)
    if timeout is not None:
        seconds = min(seconds, timeout / 2)
    return max(1, int(seconds * 1000))


def register_scripts(client: Any, *sources: str) -> tuple[Any, ...]:
    """One registered Lua script per source, in order (each sent by digest, loaded on a miss), so a
    store unpacks its scripts in one line rather than registering them one by one."""
    return tuple(client.register_script(source) for source in sources)
