"""A game's end is filed by the commit itself: listing, active set and retention clock.

The rules service used to move a finished game in the listing and out of the active set after
its commit, so a crash between the two left a finished game listed as active.  These tests make
exactly the commit a rules service makes, and nothing after it (what a service killed right
after its commit leaves), and find the game filed right.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from redis import Redis

from services.common.attention import shard_of
from services.filing.store import LEGACY_ENDED_INDEX, active_key, ended_key, ended_key_for, index_key, legacy_index_key
from services.games.legacy import shard_legacy_indexes
from services.games.records import Step
from services.games.store import GameStore
from services.outbox import events as outbox_events
from tests.support.client import two_humans

GAME = "darjeeling"


def _filed(redis: Redis, game_id: str) -> dict[str, bool]:
    shard = shard_of(game_id)
    found = {s: redis.zscore(index_key(GAME, "public", s, shard), game_id) is not None
             for s in ("waiting", "active", "finished", "aborted")}  # fmt: skip
    found["in_active_set"] = bool(redis.sismember(active_key(GAME, shard), game_id))
    found["retention_clock"] = redis.zscore(ended_key_for(game_id), game_id) is not None
    return found


async def _commit_only(redis_url: str, game_id: str, status: str) -> None:
    """The rules service's commit of a game's end, with nothing after it."""
    store = GameStore.from_url(redis_url)
    try:
        meta, snapshot = await store.load(game_id)
        result = {"scores": [1, 0], "ranking": [0, 1], "winners": [0]} if status == "finished" else None
        # With the end's outbox event, as a rules service writes it: every ended game has one.
        outbox = outbox_events.for_commit(meta, status, result, [], meta.lifecycle, int(time.time() * 1000))
        await store.commit(Step(game_id, meta.version, snapshot, status, result, [], lifecycle=meta.lifecycle,
                                previous_head=meta.log_head, visibility=meta.visibility, outbox=outbox))  # fmt: skip
    finally:
        await store.close()


def test_a_game_is_listed_active_from_its_creation_on(client: httpx.Client, redis_url: str) -> None:
    game_id, _ = two_humans(client, GAME)
    filed = _filed(Redis.from_url(redis_url), game_id)
    assert filed == {"waiting": False, "active": True, "finished": False, "aborted": False,
                     "in_active_set": True, "retention_clock": False}  # fmt: skip


@pytest.mark.parametrize("status", ["finished", "aborted"])
def test_the_commit_that_ends_a_game_files_it_with_nothing_after_it(
    client: httpx.Client, redis_url: str, status: str
) -> None:
    game_id, _ = two_humans(client, GAME)
    asyncio.run(_commit_only(redis_url, game_id, status))
    filed = _filed(Redis.from_url(redis_url), game_id)
    assert filed == {"waiting": False, "active": False, "finished": status == "finished",
                     "aborted": status == "aborted", "in_active_set": False, "retention_clock": True}  # fmt: skip
    listed = client.get("/v1/games", params={"game_type": GAME, "status": "active"}).json()["games"]
    assert game_id not in [game["game_id"] for game in listed]


def test_an_abort_files_the_game_in_the_same_step(client: httpx.Client, redis_url: str) -> None:
    game_id, _ = two_humans(client, GAME)
    assert client.post(f"/v1/games/{game_id}/abort", json={"reason": "test"}).status_code == 200
    filed = _filed(Redis.from_url(redis_url), game_id)
    assert filed["aborted"] and not filed["active"] and not filed["in_active_set"] and filed["retention_clock"]


def test_the_unsharded_indexes_of_earlier_releases_move_into_their_shards(redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    old_ids = [f"{GAME}-{n:024x}" for n in range(1, 40)]
    redis.zadd(legacy_index_key(GAME, "private", "finished"), {game_id: 1000 + n for n, game_id in enumerate(old_ids)})
    redis.sadd(f"chaiwala:active:{GAME}", *old_ids[:5])
    redis.zadd(LEGACY_ENDED_INDEX, {old_ids[0]: 5})
    moved = asyncio.run(_migrate(redis_url))
    assert moved == len(old_ids) + 5 + 1
    for n, game_id in enumerate(old_ids):
        assert redis.zscore(index_key(GAME, "private", "finished", shard_of(game_id)), game_id) == 1000 + n
    assert all(redis.sismember(active_key(GAME, shard_of(g)), g) for g in old_ids[:5])
    assert redis.zscore(ended_key(shard_of(old_ids[0])), old_ids[0]) == 5
    legacy = [legacy_index_key(GAME, "private", "finished"), f"chaiwala:active:{GAME}", LEGACY_ENDED_INDEX]
    assert not redis.exists(*legacy)
    assert asyncio.run(_migrate(redis_url)) == 0  # idempotent: nothing left to move


async def _migrate(redis_url: str) -> int:
    store = GameStore.from_url(redis_url)
    try:
        return await shard_legacy_indexes(store.redis)
    finally:
        await store.close()
