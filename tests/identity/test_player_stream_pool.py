"""A burst of player streams opening at once leaves a quarter of the rules process's Redis pool to
the other calls (``POOL_SHARE`` in :mod:`services.identity.feed_rpcs`).

A rules service with a pool of :data:`POOL` connections on a Redis of its own (so every unnamed
connection ``CLIENT LIST`` shows is one of its calls' pool: the stream mux's readers are named),
:data:`BURST` ``WatchMyEvents`` opened together while Redis holds every command a moment (so the
openings let in pile up on their connections): every one opens, and the pool never opened more than
three quarters of its connections. The pool opens a connection only when none is free and keeps it,
so the connections it holds after the burst are the most it ever used at once (with the whole pool
for the openings, all eight).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from redis import Redis

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from services.common.embedded_redis import EmbeddedRedis, start_redis
from services.identity.settings import IdentitySettings
from tests.support import secrets
from tests.support.stack import RunningService, Services

GAME = "darjeeling"
POOL = 8
OPENINGS_SHARE = POOL * 3 // 4  # written out here, not read from the module under test
BURST = 300  # far more openings than the pool has connections
PROBE = "pool-share-probe"  # this test's own connection, left out of the count
# Redis holds every command this long while the burst comes (CLIENT PAUSE): the openings let in
# pile up on their connections, as on a busy Redis. Under the calls' reply timeout (2 s).
PAUSE_MS = 1200
# How long a call waits for a free connection of the pool before it fails (store_unavailable):
# shorter than the pause, so an opening that queued for the pool instead of outside it would fail.
POOL_WAIT_SECONDS = 0.3


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[EmbeddedRedis]:
    server = start_redis(tmp_path / "redis", appendonly=False)
    secrets.remember(server.password)
    try:
        yield server
    finally:
        server.stop()


def _calls_pool_connections(redis_url: str) -> int:
    """Connections of the rules service's calls' pool: the unnamed ones (the mux's readers have names)."""
    with Redis.from_url(redis_url, client_name=PROBE) as probe:
        return sum(1 for client in probe.client_list() if not client.get("name"))


async def _burst(address: str, redis_url: str) -> list[str]:
    """Open :data:`BURST` watches of one guest at once while Redis holds every command for
    :data:`PAUSE_MS`: how each watch's opening ended."""
    async with grpc.aio.insecure_channel(address) as channel:
        identity = identity_pb2_grpc.IdentityServiceStub(channel)
        token = (await identity.CreateSession(identity_pb2.CreateSessionRequest(name="Asha"), timeout=30)).token
        secrets.remember(token)
        bearer = (("authorization", f"Bearer {token}"),)
        with Redis.from_url(redis_url, client_name=PROBE) as probe:
            probe.client_pause(PAUSE_MS, all=True)
        calls = [identity.WatchMyEvents(identity_pb2.WatchMyEventsRequest(), metadata=bearer) for _ in range(BURST)]

        async def opened(call: grpc.aio.UnaryStreamCall) -> str:
            try:
                await call.read()  # the first message: the stream is open
                return "open"
            except grpc.aio.AioRpcError as error:
                return f"{error.code().name} {error.details()}"

        try:
            return list(await asyncio.gather(*(opened(call) for call in calls)))
        finally:
            for call in calls:
                call.cancel()


def test_a_burst_of_player_streams_leaves_a_quarter_of_the_pool_to_other_calls(own_redis: EmbeddedRedis) -> None:
    services = Services(own_redis.url, identity=IdentitySettings(session_limit="100000/minute"))
    service: RunningService = services.start(GAME, max_connections=POOL, pool_timeout=POOL_WAIT_SECONDS)
    try:
        outcomes = asyncio.run(_burst(service.address, own_redis.url))
        # Those not let in waited their turn outside the pool: none failed on its bounded wait.
        assert outcomes == ["open"] * BURST, sorted(set(outcomes))
        used = _calls_pool_connections(own_redis.url)
        assert used <= OPENINGS_SHARE, f"{used} of {POOL} connections taken by a burst of {BURST} openings"
    finally:
        services.stop(service)
        services.close()
