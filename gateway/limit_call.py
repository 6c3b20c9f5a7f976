"""The limits' one Redis command per request, sent on connections of their own without redis-py's command path.

Every ``/v1`` request costs the gateway one ``EVALSHA`` (:meth:`gateway.limits.Limiter.check`).  Through
``redis.asyncio.Redis.execute_command`` that call paid, besides its two syscalls: the pool's lock and
its observability records on taking and returning a connection, a retry wrapper, redis-py's
``pack_command`` (about five ``isinstance`` tests per argument, 17 arguments for a move's request),
and an ``asyncio.wait_for`` around the write, which makes a task per call.  Measured in process
against a real Redis: 52-55 µs per request (a move's POST), 19-22 µs through this module
(docs/lab/move-path.md, "The gateway's layers").

:class:`LeanCall` keeps what counts of that path and drops the rest:

* connections are redis-py's own (made by the limits client's pool, so the URL's password, database
  and TLS are honoured by the same code), held in a free list here, one per call in flight;
* the command is packed here (:class:`WindowsCommand`, from pieces kept per window): the limits'
  arguments are ``str`` and ``int`` only;
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
from collections.abc import Callable
from typing import Any

from limits import RateLimitItem
from redis.asyncio.connection import AbstractConnection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRIES = 1  # as the limits' client (gateway.limits._storage: Retry(NoBackoff(), 1))
MAX_IDLE = 512  # idle connections kept; a burst's extra ones are closed after use (the old pool kept every one)
MAX_KEPT_WINDOWS = 8192  # packed windows kept (two or three per credential and address seen); then forgotten
Window = tuple[str, str, RateLimitItem]  # limit name, key, one of its rate items (gateway.limits.Window)


def packed(*args: str | int | bytes) -> bytes:
    """One command in the Redis protocol (RESP): an array of bulk strings."""
    return b"*%d\r\n%b" % (len(args), _bulks(*args))


def _bulks(*args: str | int | bytes) -> bytes:
    parts = []
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode()
        parts.append(b"$%d\r\n%b\r\n" % (len(data), data))
    return b"".join(parts)


class WindowsCommand:
    """The limits' ``EVALSHA`` of a request packed from pieces kept per window.

    A window's two keys (``keys_of``: the library's names for them, with their prefix) and its three
    arguments are the same on every request of one credential or address, so each window is packed
    once and kept (up to :data:`MAX_KEPT_WINDOWS`, then all are forgotten and packed again as they
    come).  The command is the bytes :func:`packed` gives for ``EVALSHA sha numkeys keys... count
    args...`` (gateway.limits.windows_script says what they are).
    """

    def __init__(self, keys_of: Callable[[str, str, RateLimitItem], tuple[str, str]]) -> None:
        self.keys_of = keys_of
        self.kept: dict[Window, tuple[bytes, bytes]] = {}

    def __call__(self, sha: str, windows: list[Window], rider_keys: list[str], rider_args: list[str]) -> bytes:
        """The packed command charging ``windows`` in order, then the rider's read (none: empty lists)."""
        keys, args = [], []
        for window in windows:
            pieces = self.kept.get(window)
            if pieces is None:
                pieces = self._pack(window)
            keys.append(pieces[0])
            args.append(pieces[1])
        count = len(windows)
        head = b"*%d\r\n%b" % (3 + 5 * count + len(rider_keys) + 1 + len(rider_args),
                                _bulks("EVALSHA", sha, 2 * count + len(rider_keys)))  # fmt: skip
        return b"".join((head, *keys, _bulks(*rider_keys), _bulks(count), *args, _bulks(*rider_args)))

    def _pack(self, window: Window) -> tuple[bytes, bytes]:
        if len(self.kept) >= MAX_KEPT_WINDOWS:
            self.kept.clear()
        name, key, item = window
        pieces = _bulks(*self.keys_of(name, key, item)), _bulks(item.amount, item.get_expiry(), 1)
        self.kept[window] = pieces
        return pieces


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
