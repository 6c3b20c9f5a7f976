"""The outbox reader on a real Redis Cluster: one read per shard there (no command reads several
slots), the skipped types acknowledged with the batch in one pipeline that spans the nodes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from services.common.attention import new_game_id
from services.common.store import redis_client
from services.outbox import emit, outbox_key_for, read_outbox
from services.outbox.reader import OutboxReader
from tests.support.redis_cluster import ClusterInfo, start_cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    with start_cluster() as info:
        yield info


def test_a_reader_on_a_cluster_hands_over_its_types_and_acknowledges_every_shard(cluster: ClusterInfo) -> None:
    async def scenario() -> tuple[list[str], list[str], int, list[str]]:
        redis = redis_client(cluster.url, True, 16, 5.0)
        stop = asyncio.Event()
        try:
            keys = [new_game_id("darjeeling") for _ in range(8)]  # spread over the shards (and nodes)
            wanted = sorted([await emit(redis, "test.wanted", {"n": n}, key) for n, key in enumerate(keys[:4])])
            skipped = [await emit(redis, "test.other", {"n": n}, key) for n, key in enumerate(keys[4:])]
            reader = OutboxReader(redis, "test-cluster", "a", types={"test.wanted"})
            batch = await reader.read(stop)
            await reader.ack(batch)
            again = await read_outbox(redis, "test-cluster", "a", recover=True, claim_idle_ms=0)
            shards = len({outbox_key_for(key) for key in keys})
            return sorted(e.id for e in batch), wanted, shards, [e.id for e in again if e.id in skipped + wanted]
        finally:
            await redis.aclose()

    got, wanted, shards, left = asyncio.run(scenario())
    assert shards > 1  # the acknowledgement spanned several shards
    assert got == wanted and left == []
