"""Renewing the stream leases costs a script call per batch of leases, not one per stream (issue 47,
item 3: with 10,000 players connected, a call per credential every 15 s was 36 Redis commands a
connected player a minute); a burst of streams opening and closing takes one Redis connection.

A gateway process's stream caps (:class:`gateway.limits.Limiter`) on a Redis of this module's own, so
Redis's own command counts (``INFO commandstats``) are this process's alone: streams of distinct
credentials from one address are opened, every lease is set to run out, and one renewal must push
every one of them forward with ``ceil(leases / RENEW_BATCH)`` script calls — and bring back none of
a closed stream.  Hundreds of streams opened and closed at once must all get and give back their
leases over one connection (each with its own pipeline, 2,000 closing streams ran the gateway's
pool of 20 dry, and leases were left to run out).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from prometheus_client import CollectorRegistry

from gateway.limits import Limiter, LimitMetrics
from gateway.settings import GatewaySettings
from gateway.stream_caps import KEY_PREFIX, RENEW_BATCH, OpenStream
from services.common.embedded_redis import start_redis

ADDRESS = "10.47.3.1"
LEASE_SECONDS = 600.0  # long: the process's own renewer never runs during a test (only the one called)


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Redis server for this module alone (its command counts are this module's)."""
    server = start_redis(Path(tmp_path_factory.mktemp("lease-redis")), appendonly=False)
    try:
        yield server.url
    finally:
        server.stop()


def _script_calls(client: redis.Redis) -> int:
    """How many script calls (``EVALSHA``) Redis has run so far."""
    stats = client.info("commandstats")
    return int(stats.get("cmdstat_evalsha", {}).get("calls", 0))


def _every_lease(client: redis.Redis, keys: list[str]) -> dict[tuple[str, bytes], float]:
    """(lease set, member) -> the lease's deadline (ms), over ``keys``."""
    return {(key, member): score for key in keys for member, score in client.zrange(key, 0, -1, withscores=True)}


def _redis_ms(client: redis.Redis) -> int:
    seconds, micros = client.time()
    return int(seconds) * 1000 + int(micros) // 1000


def _renew_many(redis_url: str, streams: int) -> tuple[int, int, dict[tuple[str, bytes], float], int]:
    """Open ``streams`` streams (a credential each, one address), close the first, set every lease left
    to run out now, then renew once: the script calls of that renewal, the leases it had to renew, their
    deadlines after it, and Redis's clock (ms) just before it."""
    settings = GatewaySettings(
        redis_url=redis_url, sse_stream_lease_seconds=LEASE_SECONDS,
        sse_streams_per_address="1000000", sse_streams_per_process="1000000",
    )  # fmt: skip
    limiter = Limiter(settings, LimitMetrics(CollectorRegistry(), settings))
    stream_keys = [{"sse_streams_per_address": f"addr:{ADDRESS}", "sse_streams_per_token": f"cred:{n:08d}-{streams}"}
                   for n in range(streams)]  # fmt: skip
    sets = [KEY_PREFIX + "{" + key + "}" for keys in stream_keys for key in keys.values()]
    sets = list(dict.fromkeys(sets))

    async def scenario() -> tuple[int, dict[tuple[str, bytes], float], int]:
        opened: list[OpenStream] = []
        try:
            assert limiter.streams.leases is not None
            for keys in stream_keys:
                opened.append(await limiter.streams.open(keys))
            await limiter.streams.close(opened[0])
            await limiter.streams.leases.renew()  # the first renewal loads the script (NOSCRIPT, then again)
            with redis.Redis.from_url(redis_url) as client:
                for (key, member), _ in _every_lease(client, sets).items():
                    client.zadd(key, {member: 1}, xx=True)  # every lease about to run out
                before, now = _script_calls(client), _redis_ms(client)
                await limiter.streams.leases.renew()
                return _script_calls(client) - before, _every_lease(client, sets), now
        finally:
            for stream in opened[1:]:
                await limiter.streams.close(stream)
            await limiter.close()

    calls, deadlines, now = asyncio.run(scenario())
    return calls, 2 * (streams - 1), deadlines, now


def _assert_renewed(deadlines: dict[tuple[str, bytes], float], leases: int, now: int) -> None:
    assert len(deadlines) == leases  # the closed stream's two leases were not brought back
    late = [lease for lease, deadline in deadlines.items() if deadline < now + LEASE_SECONDS * 1000]
    assert late == [], f"{len(late)} of {leases} leases not renewed"


def test_one_script_call_renews_every_stream_of_a_process(own_redis: str) -> None:
    calls, leases, deadlines, now = _renew_many(own_redis, 301)
    assert leases == 600 <= RENEW_BATCH
    assert calls == 1  # one call per credential would be 301
    _assert_renewed(deadlines, leases, now)


def test_a_renewal_past_one_batch_splits_a_lease_set_over_calls(own_redis: str) -> None:
    """More leases than one call takes, and one address's lease set larger than a call: every lease
    is renewed, with as few calls as the batch allows."""
    streams = RENEW_BATCH + 101  # the address's set alone holds more than a call renews
    calls, leases, deadlines, now = _renew_many(own_redis, streams)
    assert calls == math.ceil(leases / RENEW_BATCH)  # 3 (one per credential: 2,100)
    _assert_renewed(deadlines, leases, now)


def _streams_of_one_address(redis_url: str, address: str, count: int) -> tuple[Limiter, list[dict[str, str]], str]:
    """A gateway process's limiter with caps too large to reach, the keys of ``count`` streams of
    distinct credentials from ``address``, and the address's lease set."""
    settings = GatewaySettings(redis_url=redis_url, sse_stream_lease_seconds=LEASE_SECONDS,
                               sse_streams_per_address="1000000", sse_streams_per_process="1000000")  # fmt: skip
    limiter = Limiter(settings, LimitMetrics(CollectorRegistry(), settings))
    stream_keys = [{"sse_streams_per_address": f"addr:{address}", "sse_streams_per_token": f"cred:{address}-{n}"}
                   for n in range(count)]  # fmt: skip
    return limiter, stream_keys, KEY_PREFIX + "{addr:" + address + "}"


def test_a_burst_of_streams_opening_and_closing_uses_one_connection(own_redis: str) -> None:
    limiter, stream_keys, address_set = _streams_of_one_address(own_redis, "10.47.3.2", 500)

    async def burst(client: redis.Redis) -> tuple[int, int]:
        try:
            opened = await asyncio.gather(*(limiter.streams.open(keys) for keys in stream_keys))
            leased = int(client.zcard(address_set))
            await asyncio.gather(*(limiter.streams.close(stream) for stream in opened))
            return leased, int(client.exists(address_set, *(KEY_PREFIX + "{" + k["sse_streams_per_token"] + "}"
                                                           for k in stream_keys)))  # fmt: skip
        finally:
            await limiter.close()

    with redis.Redis.from_url(own_redis) as client:
        before = int(client.info("stats")["total_connections_received"])
        leased, left = asyncio.run(burst(client))
        connections = int(client.info("stats")["total_connections_received"]) - before
    assert leased == len(stream_keys)  # every stream leased (none capped in memory only: the store answered)
    assert limiter.metrics.errors._value.get() == 0  # type: ignore[attr-defined]
    assert left == 0  # every lease given back
    assert connections == 1  # a pool connection per stream on its way: 20


def test_stream_leases_are_taken_and_given_back_after_redis_lost_its_scripts(own_redis: str) -> None:
    """``SCRIPT FLUSH`` (or a restart) between calls: the next pipeline's calls are refused with
    ``NOSCRIPT``, load their scripts (:func:`services.common.scriptcall.reload_and_repeat`) and go
    again; the leases are taken in Redis and given back there, not capped in memory instead."""
    limiter, stream_keys, address_set = _streams_of_one_address(own_redis, "10.47.3.3", 4)

    async def scenario(client: redis.Redis) -> tuple[int, int]:
        try:
            first = await limiter.streams.open(stream_keys[0])  # the scripts are loaded
            client.script_flush()
            opened = await asyncio.gather(*(limiter.streams.open(keys) for keys in stream_keys[1:]))
            leased = int(client.zcard(address_set))
            client.script_flush()
            await asyncio.gather(*(limiter.streams.close(stream) for stream in (first, *opened)))
            return leased, int(client.zcard(address_set))
        finally:
            await limiter.close()

    with redis.Redis.from_url(own_redis) as client:
        leased, left = asyncio.run(scenario(client))
    assert (leased, left) == (len(stream_keys), 0)
