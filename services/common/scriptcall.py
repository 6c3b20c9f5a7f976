"""A Lua script called by digest with a fraction of redis-py's per-call work (issue #47: the move's CPU).

The one owner of that lean call: the store's scripts (:mod:`services.games.store`) and the gateway's
limits (:mod:`gateway.limits`, which packs its own command from pieces kept per window and sends it
with :meth:`LeanScript.send`) both take it, so its connection, timeout, cancel, retry, ``NOSCRIPT``
and error rules are written here only (the ``NOSCRIPT`` rule, :func:`reload_and_repeat`, serves the
gateway's stream-lease pipelines too).

redis-py's ``Script`` goes through ``Redis.execute_command`` for every call: the retry wrapper, its
observability hooks, ``pack_command`` (each argument through the ``Encoder``, ~23 µs for the
commit's ~45), a task for the write's timeout, a timeout and a callback lookup for the reply.  On
the rules service's two calls per move that was ~80 µs of client CPU each.  :class:`LeanScript`
keeps what matters and drops the rest:

* the command is packed in C, in one piece (``hiredis.pack_command``; what redis-py's own
  ``HiredisRespSerializer`` calls, byte for byte the same command);
* the connection comes from the client's pool and goes back to it (the pool's bound, its wait for a
  free connection and its "no connection available" after ``pool_timeout`` stay as they are), or
  from :class:`HeldConnections` (below);
* write and reply share one timeout, the connection's reply timeout (``socket_timeout``); the write
  is handed to the stream at once and its drain waited for only when the kernel did not take it all;
* failures mean what they meant: a timeout is redis-py's ``TimeoutError``, a broken connection its
  ``ConnectionError`` (the connection is dropped either way, and on anything else that interrupts
  the exchange, a cancellation included, so no half-read reply is left on it), both retried as the
  connection's ``retry`` says (:func:`services.common.store.redis_client`: once, at once, on a fresh
  connection), so :func:`services.common.store.is_unavailable` maps them to 503/UNAVAILABLE as before;
  a script the server has lost (``NOSCRIPT``: a restart, ``SCRIPT FLUSH``) is loaded again and the
  call repeated, as redis-py's ``Script`` does; an error the script raises is raised as redis-py raises it.

A Redis Cluster client, a single-connection client, RESP3 and connections with a health-check
interval take redis-py's path (``Script``) unchanged: the cluster routes by slot and follows
redirections, which this path does not do.

Where the connections come from is the caller's choice, the rules above are the same either way:
the client's pool (the store's :class:`services.common.store.QuickPool`: bounded, waits for a free
connection), or :class:`HeldConnections`, connections made by the client's pool and held in a free
list without a bound (the gateway's limits, one call per request, whose client never bounded them).

The exchange uses three of redis-py's connection internals (``_writer``, ``_parser``,
``_host_error``), the ones its own ``send_packed_command`` and ``read_response`` use; redis is
pinned in constraints.txt, and tests/common/test_scriptcall.py exercises each (a new redis-py
that moved them fails there, not in production).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

import hiredis
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

T = TypeVar("T")
MAX_IDLE = 512  # idle connections HeldConnections keeps; a burst's extra ones are closed after use


class Connections(Protocol):
    """Where a lean call takes a connection and gives it back: a redis-py pool, or :class:`HeldConnections`."""

    async def get_connection(self) -> Any:
        """A connection (connected or not: the call connects it)."""

    async def release(self, connection: Any) -> None:
        """Give ``connection`` back (dropped, disconnected, after a failure: see :func:`_exchange`)."""


class HeldConnections:
    """Connections made by ``pool`` (its URL, password, database, TLS) and held here in a free list.

    No bound and no wait, one connection per call in flight, as a redis-py ``ConnectionPool`` without
    ``max_connections`` has it, but without its lock and its observability records per call; up to
    :data:`MAX_IDLE` are kept idle, the others closed after use.  A connection a call dropped (it
    failed, timed out or was cancelled half-way) is not kept.
    """

    def __init__(self, pool: aioredis.ConnectionPool, max_idle: int = MAX_IDLE) -> None:
        self.pool = pool
        self.max_idle = max_idle
        self.idle: list[Any] = []

    async def get_connection(self) -> Any:
        """An idle connection, or a new one (not connected yet)."""
        return self.idle.pop() if self.idle else self.pool.make_connection()

    async def release(self, connection: Any) -> None:
        """Keep ``connection`` for the next call if it is still connected and there is room."""
        if connection.is_connected and len(self.idle) < self.max_idle:
            self.idle.append(connection)
        else:
            await connection.disconnect(nowait=True)

    async def close(self) -> None:
        """Close the idle connections (the process is stopping)."""
        idle, self.idle = self.idle, []
        for connection in idle:
            await connection.disconnect(nowait=True)


class LeanScript:
    """One Lua script of ``client``, called as ``await script(keys, args)`` (redis-py's ``Script`` on a cluster).

    ``connections``: where its calls take their connections (default: the client's pool).
    """

    def __init__(self, client: Any, source: str, connections: Connections | None = None) -> None:
        self._script = client.register_script(source)
        self._client = client
        pool = _lean_pool(client)
        self._connections: Connections | None = None if pool is None else connections or pool
        self.sha: str = self._script.sha
        self._head = (b"EVALSHA", self.sha.encode())

    @property
    def lean(self) -> bool:
        """Whether calls take the lean path (a single server's pooled client) rather than redis-py's."""
        return self._connections is not None

    async def __call__(self, keys: Sequence[str] = (), args: Sequence[Any] = ()) -> Any:
        """The script's reply for ``keys`` and ``args`` (str, bytes, int or float each, as redis-py takes them)."""
        if self._connections is None:
            return await self._script(keys=keys, args=args)
        return await self.send(self.command(keys, args))

    def command(self, keys: Sequence[str], args: Sequence[Any]) -> bytes:
        """The EVALSHA command as it goes on the wire."""
        try:
            return hiredis.pack_command((*self._head, len(keys), *keys, *args))
        except TypeError as error:  # redis-py says DataError for a value it cannot send
            raise DataError(str(error)) from error

    async def send(self, packed: bytes) -> Any:
        """The reply to this script's EVALSHA packed by the caller (:meth:`command`'s bytes, or the same
        bytes packed another way); lean path only (:attr:`lean`)."""
        connections = self._connections
        assert connections is not None, "a cluster client takes redis-py's path: call the script"
        try:
            return await _call(connections, packed)
        except NoScriptError:
            return await reload_and_repeat(self._client, (self._script.script,), lambda: _call(connections, packed))


async def reload_and_repeat(client: Any, sources: Iterable[str], repeat: Callable[[], Awaitable[T]]) -> T:
    """After ``NOSCRIPT`` (the server lost the scripts: a restart, ``SCRIPT FLUSH``): load ``sources``
    on ``client`` (each once) and make the refused calls once more, ``repeat()``.

    The one rule for every caller of scripts by digest: this module's calls, and the gateway's
    stream-lease pipelines (:mod:`gateway.stream_caps`), which find ``NOSCRIPT`` among their answers.
    Once: a script lost again at once is an error to report, not to loop on.
    """
    for source in dict.fromkeys(sources):
        await client.script_load(source)
    return await repeat()


async def _call(connections: Connections, packed: bytes) -> Any:
    connection = await connections.get_connection()
    try:
        return await connection.retry.call_with_retry(
            lambda: _exchange(connection, packed), lambda _error: connection.disconnect()
        )
    finally:
        await connections.release(connection)


def _lean_pool(client: Any) -> aioredis.ConnectionPool | None:
    """The pool a lean call takes its connections from, or None when the client needs redis-py's path."""
    if not isinstance(client, aioredis.Redis) or client.single_connection_client:
        return None
    pool = client.connection_pool
    options = pool.connection_kwargs
    if options.get("protocol") not in (None, 2, "2") or options.get("health_check_interval"):
        return None
    return pool


async def _exchange(connection: Any, packed: bytes) -> Any:
    """Send one packed command on ``connection`` and read its reply, failing as redis-py's connection fails."""
    if not connection.is_connected:
        await connection.connect()
    try:
        async with asyncio.timeout(connection.socket_timeout):
            writer = connection._writer
            writer.write(packed)
            if writer.transport.get_write_buffer_size():  # the kernel did not take it all: wait for it
                await writer.drain()
            reply = await connection._parser.read_response(disable_decoding=False)
    except TimeoutError:  # asyncio's timeout (builtin TimeoutError, an OSError: caught first)
        await connection.disconnect(nowait=True)
        raise RedisTimeoutError(f"Timeout reading from {connection._host_error()}") from None
    except OSError as error:
        await connection.disconnect(nowait=True)
        raise RedisConnectionError(f"Error talking to {connection._host_error()}: {error.args}") from error
    except BaseException:  # the server closed it, a protocol error, a cancellation: never reuse it half-read
        await connection.disconnect(nowait=True)
        raise
    if isinstance(reply, ResponseError):
        raise reply
    return reply
