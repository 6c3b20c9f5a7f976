"""The stream mux on a real Redis Cluster: one reader per hash slot in use, every entry delivered.

A cluster refuses one ``XREAD`` over keys of several slots, so there the mux groups keys by slot
(services/streaming/mux.py): here six streams in three slots are followed by three readers (named
connections blocked in ``XREAD``, counted with ``CLIENT LIST`` on every node), one stream joins a reader that is blocked
(its wake stream lives in the same slot), and every entry reaches its follow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from services.common.store import redis_client
from services.streaming.mux import Entry, StreamMux
from tests.support.redis_cluster import ClusterInfo, start_cluster

TAGS = ("alpha", "bravo", "charlie")  # three hash tags, three slots


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    with start_cluster() as info:
        yield info


def test_the_mux_reads_a_cluster_with_one_reader_per_slot(cluster: ClusterInfo) -> None:
    async def scenario() -> tuple[dict[str, list[str]], int]:
        reader = redis_client(cluster.url, True, 64, None, blocking=True, name="chaiwala-streams:cluster-test")
        writer = redis_client(cluster.url, True, 8, 2.0)
        mux = StreamMux(reader, writer, connections=2, block_ms=2000)
        got: dict[str, list[str]] = {}

        def follow(key: str) -> None:
            def deliver(entries: list[Entry]) -> None:
                got.setdefault(key, []).extend(entry_id for entry_id, _ in entries)

            mux.follow(key, "0-0", deliver, lambda error: got.setdefault(f"failed:{key}", [repr(error)]))

        try:
            keys = [f"test:{{{tag}}}:{n}" for tag in TAGS for n in (1, 2)]
            for key in keys[:-1]:
                follow(key)
            await asyncio.sleep(0.5)  # every reader is blocked now
            follow(keys[-1])  # joins a blocked reader: woken through its slot's wake stream
            for key in keys:
                await writer.xadd(key, {"n": "1"}, id="1-1")
            for _ in range(100):
                if all(got.get(key) for key in keys):
                    break
                await asyncio.sleep(0.05)
            named = 0
            for host, port in cluster.startup_nodes:
                node = cluster.node(host, port)
                readers = [c for c in node.client_list() if c.get("name") == "chaiwala-streams:cluster-test"]
                named += sum(1 for c in readers if "b" in c.get("flags", ""))  # blocked in their XREAD again
                node.close()
            return dict(got), named  # before close(), which tells every follow it is shutting down
        finally:
            await mux.close()
            await writer.aclose()

    got, named = asyncio.run(scenario())
    assert not [key for key in got if key.startswith("failed:")], got
    assert len(got) == 6 and all(ids == ["1-1"] for ids in got.values()), got
    assert named == len(TAGS)  # one reader per slot in use, whatever `connections` says
