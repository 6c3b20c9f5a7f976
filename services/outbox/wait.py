"""An idle outbox consumer's wait: one blocking read instead of a poll of every shard.

:func:`services.outbox.stream.read_outbox` never blocks (one call per shard, so it works on Redis
Cluster), so a consumer that found nothing used to sleep a fraction of a second and read all
shards again: dozens of Redis commands a second per consumer while nothing happens.  On a single
Redis every shard's stream lives on the one server, so :func:`wait_outbox` asks for the group's new
entries of every shard in one ``XREADGROUP ... BLOCK``: Redis answers the moment an event is
appended (events are delivered as soon as before, or sooner) and the consumer costs one command
per :data:`BLOCK_SECONDS` while idle.  A cluster cannot read streams of several slots in one command,
so there the wait stays the consumer's poll interval.  The periodic full read (every
:data:`IDLE_SECONDS` at most) still takes over entries other consumers left unacknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from services.common.store import bounded_block_ms
from services.outbox.stream import DEFAULT_BATCH, OutboxEvent, outbox_keys, parse_entry

_SHARD_OF_KEY = {key: shard for shard, key in enumerate(outbox_keys())}
# One blocking read lasts at most this long (and never more than half its client's reply timeout:
# services.common.store.bounded_block_ms); an idle consumer goes back to its full read (which also
# takes over entries other consumers abandoned, unacknowledged for a minute) after IDLE_SECONDS
# without an event.
BLOCK_SECONDS = 2.0
IDLE_SECONDS = 20.0


async def _until_stopped(stop: asyncio.Event, work: asyncio.Future[Any], seconds: float) -> bool:
    """Wait for ``work``, ``stop`` or ``seconds``; cancel ``work`` unless it finished (whether it did)."""
    stopped = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({work, stopped}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopped.cancel()
    if work in done:
        return True
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
    return False


async def wait_outbox(
    redis: Any,
    group: str,
    consumer: str,
    stop: asyncio.Event,
    poll_seconds: float,
    seconds: float = IDLE_SECONDS,
    count: int = DEFAULT_BATCH,
) -> list[OutboxEvent]:
    """New events of ``group`` for ``consumer`` as soon as there are any (acknowledge them with
    :func:`services.outbox.stream.ack`), or ``[]`` after ``seconds`` or once ``stop`` is set.

    On Redis Cluster this only waits ``poll_seconds`` (or until ``stop``) and returns ``[]``: the
    caller reads every shard again, as it always did.
    """
    if isinstance(redis, RedisCluster):
        await _until_stopped(stop, asyncio.ensure_future(asyncio.sleep(poll_seconds)), poll_seconds + 1)
        return []
    deadline = time.monotonic() + seconds
    while not stop.is_set():
        block = min(BLOCK_SECONDS, deadline - time.monotonic())
        if block < 0.001:  # BLOCK 0 would wait for ever
            break
        events = await read_new(redis, group, consumer, stop, block, count)
        if events is None:  # the group is gone: the caller's full read recreates it
            return []
        if events:
            return events
    return []


async def read_new(
    redis: Any, group: str, consumer: str, stop: asyncio.Event, block: float | None, count: int = DEFAULT_BATCH
) -> list[OutboxEvent] | None:
    """One ``XREADGROUP`` of the group's new entries over every shard (a single Redis only): at once
    with ``block`` ``None``, else waiting up to ``block`` seconds (or until ``stop``) for the first;
    ``None`` when a shard's stream or group is gone (e.g. flushed)."""
    streams = dict.fromkeys(_SHARD_OF_KEY, ">")
    try:
        if block is None:
            answer = await redis.xreadgroup(group, consumer, streams, count=count)
        else:
            wait_ms = bounded_block_ms(redis, block)
            read = asyncio.ensure_future(redis.xreadgroup(group, consumer, streams, count=count, block=wait_ms))
            if not await _until_stopped(stop, read, wait_ms / 1000 + 5):
                return []
            answer = read.result()
    except redis_errors.ResponseError as error:
        if "NOGROUP" not in str(error):
            raise
        return None
    events: list[OutboxEvent] = []
    for key, items in answer or []:
        shard = _SHARD_OF_KEY[key.decode() if isinstance(key, bytes) else key]
        events += [event for entry_id, raw in items if (event := parse_entry(shard, entry_id, raw)) is not None]
    return events
