"""Blocking reads never outlast their client's reply timeout (real Redis, the pinned redis-py).

redis-py 8 gave every client a 5 s reply timeout where there had been none, and the player
stream's 10 s ``XREAD BLOCK`` then failed on every quiet feed (issue 41).  Each read below is the
project's own (the player's feed, a game's log), on a client as redis-py builds
it by default and on the store's clients: a quiet stream answers "nothing yet", never a timeout.
"""

from __future__ import annotations

import asyncio
import uuid

from redis import asyncio as aioredis

from services.common import store
from services.common.cluster_client import BLOCKING_REPLY_TIMEOUT_SECONDS
from services.games.store import read_log
from services.identity.feed_rpcs import WAIT_SECONDS
from services.lobby.feed import Feed
from services.outbox.wait import BLOCK_SECONDS
from services.streaming.hub import HubLimits


def test_the_library_default_is_a_reply_timeout_shorter_than_the_feeds_wait() -> None:
    # What made the bug: if redis-py's default ever waits longer (or for ever), this test says so
    # and the bound below is no longer what keeps the reads alive.
    default = store.reply_timeout(aioredis.Redis())
    assert default is not None and default < WAIT_SECONDS


def test_every_blocking_wait_fits_in_the_clients_built_for_it() -> None:
    blocking = store.redis_client("redis://127.0.0.1:1", False, 2, None, blocking=True)
    cluster = store.redis_client("redis://127.0.0.1:1", True, 2, None, blocking=True)
    for client in (blocking, cluster):
        assert store.reply_timeout(client) == BLOCKING_REPLY_TIMEOUT_SECONDS
        for seconds in (WAIT_SECONDS, HubLimits().block_ms / 1000, BLOCK_SECONDS):
            assert store.bounded_block_ms(client, seconds) == int(seconds * 1000)  # asked for in full
    calls = store.redis_client("redis://127.0.0.1:1", False, 2, 1.0)
    assert store.reply_timeout(calls) == store.CALL_REPLY_TIMEOUT_SECONDS
    assert store.bounded_block_ms(calls, WAIT_SECONDS) * 2 <= store.CALL_REPLY_TIMEOUT_SECONDS * 1000
    assert store.bounded_block_ms(calls, 0.0) == 1  # never BLOCK 0, which waits for ever


def test_quiet_reads_answer_nothing_on_default_and_store_clients(redis_url: str) -> None:
    async def reads() -> None:
        default = aioredis.Redis.from_url(redis_url)  # redis-py's own settings: a 5 s reply timeout
        blocking = store.redis_client(redis_url, False, 4, None, blocking=True)
        try:
            feed, nobody = Feed(default), uuid.uuid4().hex  # a player and a game nobody writes to
            quiet = await asyncio.gather(
                feed.read(default, nobody, "0", WAIT_SECONDS),
                feed.read(blocking, nobody, "0", WAIT_SECONDS),
                read_log(default, f"darjeeling-{nobody}", 0, int(WAIT_SECONDS * 1000)),
                read_log(blocking, f"darjeeling-{nobody}", 0, int(WAIT_SECONDS * 1000)),
            )
            assert quiet == [[], [], [], []]
        finally:
            await default.aclose()
            await blocking.aclose()

    asyncio.run(reads())
