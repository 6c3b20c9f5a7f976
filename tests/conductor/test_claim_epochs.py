"""Claims across a Redis restart (services.common.attention): a lease holds while the Redis that
took it runs, and is void once Redis restarted (AOF keeps the claim, the epoch tells it apart)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import redis.asyncio as aioredis

from services.common.attention import AttentionQueue, Claim, claims_key, new_game_id, queue_key, shard_of
from services.common.embedded_redis import EmbeddedRedis, start_redis


def _now_ms() -> int:
    return int(time.time() * 1000)


def _queues(client: aioredis.Redis) -> tuple[AttentionQueue, AttentionQueue]:
    """The conductor that held a claim when Redis went away, and another one."""
    return (AttentionQueue(client, "conductor-that-lost-redis", lease_ms=30_000),
            AttentionQueue(client, "conductor-b", lease_ms=30_000))  # fmt: skip


async def _hold(url: str, game_id: str) -> tuple[list[Claim], list[Claim]]:
    """The game due now, claimed by the first conductor; what the second one gets meanwhile."""
    client = aioredis.Redis.from_url(url)
    try:
        lost, other = _queues(client)
        shard = shard_of(game_id)
        await client.zadd(queue_key(shard), {game_id: _now_ms()})
        return await lost.claim(shard, _now_ms(), 10), await other.claim(shard, _now_ms(), 10)
    finally:
        await client.aclose()


async def _take_over(url: str, held: Claim) -> tuple[list[Claim], bool, bool, int]:
    """After the restart: the second conductor claims; both release; claims left."""
    client = aioredis.Redis.from_url(url)
    try:
        lost, other = _queues(client)
        taken = await other.claim(shard_of(held.game_id), _now_ms(), 10)
        stale = await lost.release(held, None)
        released = bool(taken) and await other.release(taken[0], None)
        return taken, stale, released, int(await client.hlen(claims_key(shard_of(held.game_id))))
    finally:
        await client.aclose()


# Every write in the AOF before its reply: with the default `everysec` a busy disk lets Redis put
# the write off for up to 2 s, and a kill -9 then loses the claim this test is about (seen under load).
DURABLE = ["--appendfsync", "always"]


def _restart(server: EmbeddedRedis) -> EmbeddedRedis:
    server.process.kill()  # kill -9: the claim is in the AOF, as after any crash
    server.process.wait(timeout=10)
    return start_redis(server.data_dir, port=server.port, extra=DURABLE)


def test_a_claim_holds_until_redis_restarts_and_is_void_after(tmp_path: Path) -> None:
    game_id = new_game_id("darjeeling")
    server = start_redis(tmp_path / "redis", appendonly=True, extra=DURABLE)
    try:
        held, while_held = asyncio.run(_hold(server.url, game_id))
        assert [claim.game_id for claim in held] == [game_id]
        assert while_held == [], "a lease keeps other conductors off while Redis runs"
        server = _restart(server)
        taken, stale, released, left = asyncio.run(_take_over(server.url, held[0]))
    finally:
        server.stop()
    assert [(c.game_id, c.reclaimed) for c in taken] == [(game_id, True)], "taken over at once, as a reclaim"
    assert stale is False, "the old claim's owner no longer holds it"
    assert released is True and left == 0
