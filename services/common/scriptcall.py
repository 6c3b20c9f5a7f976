"""A Lua script called by digest with a fraction of redis-py's per-call work (issue #47: the move's CPU).

redis-py's ``Script`` goes through ``Redis.execute_command`` for every call: the retry wrapper, its
observability hooks, ``pack_command`` (each argument through the ``Encoder``, ~23 µs for the
commit's ~45), a task for the write's timeout, a timeout and a callback lookup for the reply.  On
the rules service's two calls per move that was ~80 µs of client CPU each.  :class:`LeanScript`
keeps what matters and drops the rest:

* the command is packed in C, in one piece (``hiredis.pack_command``; what redis-py's own
  ``HiredisRespSerializer`` calls, byte for byte the same command);
* the connection comes from the client's pool and goes back to it (the pool's bound, its wait for a
  free connection and its "no connection available" after ``pool_timeout`` stay as they are);
* write and reply share one timeout, the connection's reply timeout (``socket_timeout``);
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

The exchange uses three of redis-py's connection internals (``_writer``, ``_parser``,
``_host_error``), the ones its own ``send_packed_command`` and ``read_response`` use; redis is
pinned in constraints.txt, and tests/common/test_scriptcall.py exercises each (a new redis-py
that moved them fails there, not in production).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
from redis import asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError


class LeanScript:
    """One Lua script of ``client``, called as ``await script(keys, args)`` (redis-py's ``Script`` on a cluster)."""

    def __init__(self, client: Any, source: str) -> None:
        self._script = client.register_script(source)
        self._client = client
        self._pool = _lean_pool(client)
        self._head = (b"EVALSHA", self._script.sha.encode())

    @property
    def lean(self) -> bool:
        """Whether calls take the lean path (a single server's pooled client) rather than redis-py's."""
        return self._pool is not None

    async def __call__(self, keys: Sequence[str] = (), args: Sequence[Any] = ()) -> Any:
        """The script's reply for ``keys`` and ``args`` (str, bytes, int or float each, as redis-py takes them)."""
        if self._pool is None:
            return await self._script(keys=keys, args=args)
        packed = self.command(keys, args)
        try:
            return await self._call(self._pool, packed)
        except NoScriptError:
            await self._client.script_load(self._script.script)
            return await self._call(self._pool, packed)

    def command(self, keys: Sequence[str], args: Sequence[Any]) -> bytes:
        """The EVALSHA command as it goes on the wire."""
        try:
            return hiredis.pack_command((*self._head, len(keys), *keys, *args))
        except TypeError as error:  # redis-py says DataError for a value it cannot send
            raise DataError(str(error)) from error

    @staticmethod
    async def _call(pool: aioredis.ConnectionPool, packed: bytes) -> Any:
        connection = await pool.get_connection()
        try:
            return await connection.retry.call_with_retry(
                lambda: _exchange(connection, packed), lambda _error: connection.disconnect()
            )
        finally:
            await pool.release(connection)


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
            connection._writer.write(packed)
            await connection._writer.drain()
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
