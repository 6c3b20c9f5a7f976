"""The limits' one script call per request (gateway.limits on a single Redis, its command packed by
gateway.limit_call) against a real Redis: the whole command from kept pieces, refusals on time, and
a script flush outlived.

How the call itself behaves (its connections, timeout, cancel, retry, NOSCRIPT and errors) is the
lean script call's, tested once for both of its sources of connections in tests/common/test_scriptcall.py.
"""

from __future__ import annotations

import asyncio
from secrets import token_hex

import limits
from prometheus_client import CollectorRegistry
from redis.asyncio.connection import Connection

from gateway.limit_call import WindowsCommand
from gateway.limits import Limiter, LimitMetrics
from gateway.settings import GatewaySettings
from services.common.scriptcall import HeldConnections


def test_the_limits_refuse_on_time_through_it_and_outlive_a_script_flush(redis_url: str) -> None:
    settings = GatewaySettings(redis_url=redis_url, rate_limit_per_token="3/minute", rate_limit_per_address="50/minute")
    scope = {"type": "http", "method": "GET", "path": "/v1/games/g/legal-moves", "client": ("10.9.8.7", 1),
             "headers": [(b"authorization", b"Bearer " + token_hex(16).encode())]}  # fmt: skip

    async def main() -> None:
        limiter = Limiter(settings, LimitMetrics(CollectorRegistry(), settings))
        try:
            assert isinstance(limiter.lean, HeldConnections)  # a single Redis: the lean call is the one used
            assert await limiter.check(scope) is None
            assert [script.lean for script in limiter.scripts.values()] == [True]
            await limiter.redis.script_flush()  # type: ignore[union-attr]  # as a restarted Redis forgets scripts
            assert await limiter.check(scope) is None
            assert await limiter.check(scope) is None
            refusal = await limiter.check(scope)
            assert refusal is not None and refusal.name == "rate_per_token"
            assert len(limiter.lean.idle) == 1  # one connection, kept between calls
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
    for rider_keys, rider_args in (([], []), (["g:{1}:moves", "g:{1}:meta"], ["field-é", "x\r\n"])):
        for _ in range(2):  # packed afresh, then from what was kept
            keys = [key for name, key_, item in windows for key in keys_of(name, key_, item)] + rider_keys
            args = [len(windows)] + [n for _, _, item in windows for n in (item.amount, item.get_expiry(), 1)]
            whole = b"".join(Connection().pack_command("EVALSHA", "f" * 40, len(keys), *keys, *args, *rider_args))
            assert command("f" * 40, windows, rider_keys, rider_args) == whole
    assert len(command.kept) == 3
