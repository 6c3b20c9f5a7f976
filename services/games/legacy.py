"""Moving the unsharded indexes of earlier releases into their shards, once, at a conductor's start.

Before the listing, the active sets and the retention index were sharded (so the step that ends
a game can file it atomically), each was one key.  :func:`shard_legacy_indexes` moves every
member into its game's shard and deletes the old key; it is idempotent, and safe to run from
several conductors at once (a member moved twice lands in the same place).
"""

from __future__ import annotations

from typing import Any

from services.common.attention import shard_of
from services.common.registry import game_types
from services.filing.store import (
    LEGACY_ENDED_INDEX,
    STATUSES,
    VISIBILITIES,
    active_key,
    ended_key,
    index_key,
    legacy_index_key,
)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def _move_sorted(redis: Any, old: str, new_key_of: Any) -> int:
    members = await redis.zrange(old, 0, -1, withscores=True)
    for member, score in members:
        game_id = _text(member)
        await redis.zadd(new_key_of(shard_of(game_id)), {game_id: score}, nx=True)
    if members:
        await redis.delete(old)
    return len(members)


async def shard_legacy_indexes(redis: Any) -> int:
    """Move the members of every unsharded index into its shard; the number of members moved."""
    moved = await _move_sorted(redis, LEGACY_ENDED_INDEX, ended_key)
    for game_type in game_types():
        for visibility in VISIBILITIES:
            for status in STATUSES:
                old = legacy_index_key(game_type, visibility, status)
                moved += await _move_sorted(
                    redis, old, lambda shard, t=game_type, v=visibility, s=status: index_key(t, v, s, shard)
                )
        old_active = f"chaiwala:active:{game_type}"
        for member in await redis.smembers(old_active):
            game_id = _text(member)
            await redis.sadd(active_key(game_type, shard_of(game_id)), game_id)
            moved += 1
        await redis.delete(old_active)
    return moved
