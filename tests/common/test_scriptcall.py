"""The lean script call (services.common.scriptcall) against a real Redis: the same answers and the same
failures as redis-py's ``Script``, on either source of connections (the client's pool, or connections
held in a free list: ``HeldConnections``, the gateway limits'), and a pool
(services.common.store.QuickPool) that still bounds and waits.

Each test gets a Redis of its own (restarted, flushed or held busy by the test).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import exceptions as redis_errors

from services.common.embedded_redis import EmbeddedRedis, free_port, start_redis
from services.common.scriptcall import HeldConnections, LeanScript
from services.common.store import QuickPool, is_unavailable, redis_client

ECHO = "return {#KEYS, KEYS[1] or false, ARGV[1] or false, ARGV[#ARGV] or false}"
FAIL = "return redis.error_reply('REFUSED by the script')"
# Busy for ~ARGV[1] ms (a script cannot sleep; it spins on the server's clock).
BUSY = """
local start = redis.call('TIME')
local wanted = tonumber(ARGV[1]) * 1000
repeat
  local now = redis.call('TIME')
until (now[1] - start[1]) * 1000000 + (now[2] - start[2]) >= wanted
return ARGV[2]
"""


# Where the calls take their connections: the client's pool (the store's) or a free list (the limits').
SOURCES = pytest.mark.parametrize("held", [False, True], ids=["pool", "held"])


def _source(client: Any, held: bool, max_idle: int = 512) -> HeldConnections | None:
    return HeldConnections(client.connection_pool, max_idle) if held else None


def _kept(client: Any, connections: HeldConnections | None) -> int:
    """How many connections the calls left for the next one (none in use)."""
    if connections is not None:
        return len(connections.idle)
    assert len(client.connection_pool._in_use_connections) == 0
    return sum(c.is_connected for c in client.connection_pool._available_connections)


@pytest.fixture()
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = start_redis(tmp_path / "redis", port=free_port(), appendonly=False)
    try:
        yield server
    finally:
        server.stop()


@SOURCES
def test_answers_as_redis_pys_script_does(own_redis: EmbeddedRedis, held: bool) -> None:
    async def scenario() -> None:
        client: Any = redis_client(own_redis.url, False, 4, 2.0)
        connections = _source(client, held)
        try:
            lean, plain = LeanScript(client, ECHO, connections), client.register_script(ECHO)
            assert lean.lean
            keys = ["k:{a}:1", "k:{a}:2"]
            args = ["text", b"\x00\xffbytes", 7, -1.5, "é", b""]
            assert await lean(keys, args) == await plain(keys=keys, args=args) == [2, b"k:{a}:1", b"text", b""]
            assert await lean() == await plain() == [0, None, None, None]
            assert await lean.send(lean.command(keys, ["sent"])) == [2, b"k:{a}:1", b"sent", b"sent"]
            with pytest.raises(redis_errors.ResponseError, match="REFUSED by the script"):
                await LeanScript(client, FAIL, connections)()
            with pytest.raises(redis_errors.DataError):
                await lean(keys, [True])
            # An error reply is read whole: its connection is kept, and the next call answered on it.
            assert _kept(client, connections) == 1
            assert await lean(keys, ["again"]) == [2, b"k:{a}:1", b"again", b"again"]
            assert _kept(client, connections) == 1
        finally:
            if connections is not None:
                await connections.close()
            await client.aclose()

    asyncio.run(scenario())


def test_the_command_sent_is_redis_pys_byte_for_byte() -> None:
    """What LeanScript packs (hiredis, in one piece) is what redis-py's Script would have sent."""
    client: Any = redis_client("redis://127.0.0.1:1", False, 1, 1.0)
    lean, connection = LeanScript(client, ECHO), client.connection_pool.make_connection()
    keys = [f"game:{{g}}:{index}" for index in range(14)]
    args = ["1", 5, 86400, -2, 0.25, "é", b"\x00\r\n" * 3000, b"", "x" * 70, *range(20)]
    sha = hashlib.sha1(ECHO.encode()).hexdigest()
    assert lean.command(keys, args) == b"".join(connection.pack_command("EVALSHA", sha, len(keys), *keys, *args))


@SOURCES
def test_a_script_the_server_lost_is_loaded_again(own_redis: EmbeddedRedis, held: bool) -> None:
    async def scenario() -> None:
        client: Any = redis_client(own_redis.url, False, 4, 2.0)
        try:
            lean = LeanScript(client, ECHO, _source(client, held))
            assert (await lean(["k"], ["one"]))[2] == b"one"
            await client.script_flush()
            assert (await lean(["k"], ["two"]))[2] == b"two"
        finally:
            await client.aclose()

    asyncio.run(scenario())


@SOURCES
def test_a_restart_costs_no_call_and_an_outage_is_unavailable(
    own_redis: EmbeddedRedis, tmp_path: Path, held: bool
) -> None:
    port = int(own_redis.url.rsplit(":", 1)[1].split("/")[0])
    url = own_redis.url

    async def call(lean: LeanScript, value: str) -> Any:
        return (await lean(["k"], [value]))[2]

    client: Any = redis_client(url, False, 4, 2.0)
    loop = asyncio.new_event_loop()
    try:
        lean = LeanScript(client, ECHO, _source(client, held))
        assert loop.run_until_complete(call(lean, "before")) == b"before"
        own_redis.stop()
        with pytest.raises(redis_errors.ConnectionError) as down:
            loop.run_until_complete(call(lean, "while down"))
        assert is_unavailable(down.value)
        restarted = start_redis(tmp_path / "redis", port=port, appendonly=False)
        try:
            # The pooled connection died with the server: the call retries on a fresh one (and
            # loads the script the new server does not know) instead of failing.
            assert loop.run_until_complete(call(lean, "after")) == b"after"
        finally:
            loop.run_until_complete(client.aclose())
            restarted.stop()
    finally:
        loop.close()


@SOURCES
def test_a_slow_reply_times_out_as_unavailable_and_a_cancelled_call_leaves_no_reply_behind(
    own_redis: EmbeddedRedis, held: bool
) -> None:
    async def scenario() -> None:
        client: Any = redis_client(own_redis.url, False, 1, 2.0)  # one connection: every call reuses it
        client.connection_pool.connection_kwargs["socket_timeout"] = 0.2
        connections = _source(client, held)
        try:
            busy = LeanScript(client, BUSY, connections)
            with pytest.raises((redis_errors.TimeoutError, redis_errors.ConnectionError)) as late:
                await busy([], [400, "late"])  # timed out, then once more on a fresh connection
            assert is_unavailable(late.value)
            await asyncio.sleep(1.0)  # the busy scripts end
            slow = asyncio.ensure_future(busy([], [100, "stale"]))
            await asyncio.sleep(0.03)
            slow.cancel()
            with pytest.raises(asyncio.CancelledError):
                await slow
            assert _kept(client, connections) == 0  # its reply may still come: that connection is closed
            assert await busy([], [0, "fresh"]) == b"fresh"  # not the cancelled call's "stale"
        finally:
            await client.aclose()

    asyncio.run(scenario())


def test_the_pool_still_bounds_and_waits(own_redis: EmbeddedRedis) -> None:
    async def scenario() -> None:
        client: Any = redis_client(own_redis.url, False, 1, 0.2)
        pool = client.connection_pool
        assert isinstance(pool, QuickPool)
        try:
            lean = LeanScript(client, ECHO)
            held = await pool.get_connection()
            with pytest.raises(redis_errors.ConnectionError, match="No connection available") as none:
                await lean(["k"], ["no room"])
            assert is_unavailable(none.value)
            # A call that waits gets the connection when it comes back (within the pool timeout).
            waiting = asyncio.ensure_future(lean(["k"], ["waited"]))
            await asyncio.sleep(0.05)
            await pool.release(held)
            assert (await waiting)[2] == b"waited"
            assert len(pool._in_use_connections) == 0
        finally:
            await client.aclose()

    asyncio.run(scenario())


@SOURCES
def test_concurrent_calls_on_few_connections_each_get_their_own_reply(own_redis: EmbeddedRedis, held: bool) -> None:
    async def scenario() -> None:
        client: Any = redis_client(own_redis.url, False, 3, 2.0)  # the pool's bound; held: none, 3 kept idle
        connections = _source(client, held, max_idle=3)
        try:
            lean, busy = LeanScript(client, ECHO, connections), LeanScript(client, BUSY, connections)
            slow = range(0, 60, 7)  # every seventh call holds its connection ~2 ms
            calls = [busy([], [2, f"call {n}"]) if n in slow else lean(["k"], [f"call {n}"]) for n in range(60)]
            replies = await asyncio.gather(*calls)
            expected = [f"call {n}".encode() if n in slow else [1, b"k", f"call {n}".encode()] for n in range(60)]
            assert [reply if n in slow else reply[:3] for n, reply in enumerate(replies)] == expected
            assert _kept(client, connections) == 3  # held: a burst's extra connections closed after use
        finally:
            await client.aclose()

    asyncio.run(scenario())


def test_a_cluster_client_takes_redis_pys_path() -> None:
    client: Any = redis_client("redis://127.0.0.1:1", True, 2, 2.0)
    assert not LeanScript(client, ECHO).lean
    single: Any = redis_client("redis://127.0.0.1:1", False, 1, 1.0)
    assert not LeanScript(client, ECHO, HeldConnections(single.connection_pool)).lean


@SOURCES
def test_a_call_cancelled_while_connecting_leaves_no_half_made_connection(held: bool) -> None:
    """A server that takes the connection but never answers its handshake: the cancelled call's
    connection is closed, not kept half-made for the next call (redis-py's handshake drops it; the
    lean path relies on that and gives back what it got)."""

    async def scenario() -> None:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read()  # reads the handshake, answers nothing, until the client closes

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        client: Any = redis_client(f"redis://127.0.0.1:{port}/0", False, 2, 2.0)
        connections = _source(client, held)
        try:
            call = asyncio.ensure_future(LeanScript(client, ECHO, connections)(["k"], ["never"]))
            await asyncio.sleep(0.2)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            assert _kept(client, connections) == 0
        finally:
            await client.aclose()
            server.close()
            await server.wait_closed()

    asyncio.run(scenario())
