"""The limits' lean Redis call (gateway.limit_call) against a real Redis: the bytes and replies redis-py
gives, a dropped connection retried once, an error reply raised, a call cut short never reused."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from secrets import token_hex
from typing import Any

import limits
import pytest
from prometheus_client import CollectorRegistry
from redis import asyncio as aioredis
from redis.asyncio.connection import Connection
from redis.exceptions import NoScriptError, ResponseError

from gateway.limit_call import LeanCall, WindowsCommand, packed
from gateway.limits import Limiter, LimitMetrics
from gateway.settings import GatewaySettings

SCRIPT = "return {tonumber(ARGV[1]) - 1, redis.call('GET', KEYS[1]), #KEYS, ARGV[2]}"


def _run(redis_url: str, body: Callable[[aioredis.Redis, LeanCall], Awaitable[None]]) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        lean = LeanCall(client.connection_pool)
        try:
            await body(client, lean)
        finally:
            await lean.close()
            await client.aclose()

    asyncio.run(main())


def test_packed_is_redis_pys_wire_form() -> None:
    args: list[Any] = ["EVALSHA", "ab" * 20, 3, "k:{x}/1", "k:{x}/1/-1", "é", 0, -1, 100, 60, b"raw\r\n"]
    wire = Connection().pack_command(*args)
    assert packed(*args) == b"".join(wire)


def test_replies_are_redis_pys(redis_url: str) -> None:
    async def body(client: aioredis.Redis, lean: LeanCall) -> None:
        sha = await client.script_load(SCRIPT)
        await client.set("lean:{t}:a", b"\x00value")
        cases: list[tuple[list[str], list[str | int]]] = [
            (["lean:{t}:a"], [5, "x"]),
            (["lean:{t}:none", "lean:{t}:b"], [0, ""]),
        ]
        for keys, args in cases:
            expected = await client.evalsha(sha, len(keys), *keys, *args)
            assert await lean(packed("EVALSHA", sha, len(keys), *keys, *args)) == expected
        assert len(lean.idle) == 1  # one connection, kept between calls

    _run(redis_url, body)


def test_an_error_reply_is_raised_and_the_connection_kept(redis_url: str) -> None:
    async def body(client: aioredis.Redis, lean: LeanCall) -> None:
        with pytest.raises(NoScriptError):
            await lean(packed("EVALSHA", "0" * 40, 0))
        with pytest.raises(ResponseError):
            await lean(packed("INCR", "lean:{t}:a", "x", "y"))  # wrong arity
        assert len(lean.idle) == 1
        assert await lean(packed("PING")) == b"PONG"

    _run(redis_url, body)


def test_a_dropped_connection_is_retried_once(redis_url: str) -> None:
    async def body(client: aioredis.Redis, lean: LeanCall) -> None:
        first = await lean(packed("CLIENT", "ID"))
        await client.client_kill_filter(_id=first)  # as a Redis restart or an idle timeout would
        second = await lean(packed("CLIENT", "ID"))  # the write or the read fails; the retry reconnects
        assert second != first
        assert await lean(packed("CLIENT", "ID")) == second  # the new connection is kept

    _run(redis_url, body)


def test_a_call_cut_short_is_never_reused(redis_url: str) -> None:
    async def body(client: aioredis.Redis, lean: LeanCall) -> None:
        first = await lean(packed("CLIENT", "ID"))
        waiting = asyncio.create_task(lean(packed("BLPOP", "lean:{t}:never", 5)))
        await asyncio.sleep(0.2)
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        assert lean.idle == []  # its reply may still come: that connection is closed, not kept
        assert await lean(packed("CLIENT", "ID")) != first
        await client.rpush("lean:{t}:never", b"late")  # no one reads the late reply in another's place
        assert await lean(packed("LPOP", "lean:{t}:never")) == b"late"

    _run(redis_url, body)


def test_the_limits_refuse_on_time_through_it_and_outlive_a_script_flush(redis_url: str) -> None:
    settings = GatewaySettings(redis_url=redis_url, rate_limit_per_token="3/minute", rate_limit_per_address="50/minute")
    scope = {"type": "http", "method": "GET", "path": "/v1/games/g/legal-moves", "client": ("10.9.8.7", 1),
             "headers": [(b"authorization", b"Bearer " + token_hex(16).encode())]}  # fmt: skip

    async def main() -> None:
        limiter = Limiter(settings, LimitMetrics(CollectorRegistry(), settings))
        try:
            assert limiter.lean is not None  # a single Redis: the lean call is the one used
            assert await limiter.check(scope) is None
            await limiter.redis.script_flush()  # type: ignore[union-attr]  # as a restarted Redis forgets scripts
            assert await limiter.check(scope) is None
            assert await limiter.check(scope) is None
            refusal = await limiter.check(scope)
            assert refusal is not None and refusal.name == "rate_per_token"
        finally:
            await limiter.close()

    asyncio.run(main())


def test_a_request_command_packed_from_kept_windows_is_the_whole_command() -> None:
    items = limits.parse_many("5/second;100/minute")
    windows = [("rate_per_address", "addr:10.0.0.1", items[0]), ("rate_per_address", "addr:10.0.0.1", items[1]),
               ("rate_per_token", "cred:ab12", items[0])]  # fmt: skip

    def keys_of(name: str, key: str, item: limits.RateLimitItem) -> tuple[str, str]:
        return f"p:{{{item.key_for(name, key)}}}/-1", f"p:{{{item.key_for(name, key)}}}"

    command = WindowsCommand(keys_of)
    for rider_keys, rider_args in (([], []), (["g:{1}:moves", "g:{1}:meta"], ["field-é"])):
        for _ in range(2):  # packed afresh, then from what was kept
            keys = [key for name, key_, item in windows for key in keys_of(name, key_, item)] + rider_keys
            args = [len(windows)] + [n for _, _, item in windows for n in (item.amount, item.get_expiry(), 1)]
            whole = packed("EVALSHA", "f" * 40, len(keys), *keys, *args, *rider_args)
            assert command("f" * 40, windows, rider_keys, rider_args) == whole
    assert len(command.kept) == 3
