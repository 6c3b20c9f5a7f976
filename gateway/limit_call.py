"""The limits' one Redis command per request, sent on connections of their own without redis-py's command path.

Every ``/v1`` request costs the gateway one ``EVALSHA`` (:meth:`gateway.limits.Limiter.check`).  Through
``redis.asyncio.Redis.execute_command`` that call paid, besides its two syscalls: the pool's lock and
its observability records on taking and returning a connection, a retry wrapper, redis-py's
``pack_command`` (about five ``isinstance`` tests per argument, 17 arguments for a move's request),
and an ``asyncio.wait_for`` around the write, which makes a task per call.  Measured in process
against a real Redis: 52-55 µs per request, of which this module's path takes away about a third
(docs/lab/move-path.md, "The gateway's layers").

:class:`LeanCall` keeps what counts of that path and drops the rest:

* connections are redis-py's own (made by the limits client's pool, so the URL's password, database
  and TLS are honoured by the same code), held in a free list here, one per call in flight;
* the command is packed here (:func:`packed`): the limits' arguments are ``str`` and ``int`` only;
* the write goes to the connection's stream at once; only when the kernel did not take it all is
  the drain waited for, bounded by the connection's reply timeout;
* the reply is read by redis-py (``read_response``: its parser, its reply timeout, its error
  replies raised as exceptions, ``NOSCRIPT`` as ``NoScriptError``);
* a connection or timeout error is retried once on a fresh connection, as the limits' client did
  (``Retry(NoBackoff(), 1)``), and a connection that failed, timed out or was cancelled in the middle
  of a call is closed, never reused.
"""

from __future__ import annotations

import asyncio
from typing import Any

from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRIES = 1  # as the limits' client (gateway.limits._storage: Retry(NoBackoff(), 1))
MAX_IDLE = 64  # idle connections kept beyond that are closed (a burst's extra ones)


def packed(*args: str | int | bytes) -> bytes:
    """One command in the Redis protocol (RESP): an array of bulk strings."""
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class LeanCall:
    """One-command calls on connections made by ``pool`` and held here (see the module's words)."""

    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool
        self.idle: list[AbstractConnection] = []

    async def __call__(self, command: bytes) -> Any:
        """The reply to ``command`` (packed: :func:`packed`); an error reply raised as redis-py raises it."""
        connection = self.idle.pop() if self.idle else self.pool.make_connection()
        keep = False
        try:
            reply = await _retrying(connection, command)
            keep = True
            return reply
        except ResponseError:  # an error reply (NOSCRIPT, say), read whole: the connection is fine
            keep = connection.is_connected
            raise
        finally:
            if keep and len(self.idle) < MAX_IDLE:
                self.idle.append(connection)
            else:  # failed, timed out or cancelled half-way: never reused
                await connection.disconnect(nowait=True)

    async def close(self) -> None:
        """Close the idle connections (the gateway is stopping)."""
        idle, self.idle = self.idle, []
        for connection in idle:
            await connection.disconnect(nowait=True)


async def _retrying(connection: AbstractConnection, command: bytes) -> Any:
    for attempt in range(RETRIES + 1):
        try:
            return await _exchange(connection, command)
        except (RedisConnectionError, RedisTimeoutError):
            await connection.disconnect(nowait=True)
            if attempt == RETRIES:
                raise
    raise AssertionError("unreachable")  # the last attempt returns or raises


async def _exchange(connection: AbstractConnection, command: bytes) -> Any:
    if not connection.is_connected:
        await connection.connect()
    writer = connection._writer
    assert writer is not None
    try:
        writer.write(command)
        if writer.transport.get_write_buffer_size():  # the kernel did not take it all: wait, bounded
            async with asyncio.timeout(connection.socket_timeout):
                await writer.drain()
    except TimeoutError:
        raise RedisTimeoutError("Timeout writing to socket") from None
    except OSError as error:
        raise RedisConnectionError(f"Error while writing to socket: {error}") from error
    return await connection.read_response()
