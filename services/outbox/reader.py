"""One outbox consumer's reads: a single command per batch on a single Redis, the full read now and then.

:func:`services.outbox.stream.read_outbox` costs two commands per shard (a claim and a read; 32 in
all), and the processes that follow the outbox used to call it before every batch: at a few dozen
moves a second, each process spent more CPU asking Redis than handling what came back (issue 47).
An :class:`OutboxReader` asks for new entries of every shard in one ``XREADGROUP`` (waiting in it
when told to, :func:`services.outbox.wait.read_new`) and takes the full read — which also claims
entries another consumer left unacknowledged for ``claim_idle_ms`` and, the first time, recovers
this consumer's own — only on its first call and then every :data:`FULL_READ_SECONDS`.  Nothing is
lost by looking less often: an abandoned entry waits at most that much longer to be taken over.
On Redis Cluster, where one command cannot read several slots, every read is the per-shard one
(without the claim, which stays periodic).

``linger_seconds`` lets entries gather after a read that found some: a consumer for whom a fact
may wait a moment (the notification sender gathers notices for seconds anyway) then reads a busy
outbox a few times a second, however many facts it holds, instead of once per fact.  An idle
outbox is not lingered on: the first fact after a quiet spell is read at once.

``types`` names the event types the consumer handles: entries of other types are never handed to
it, and are acknowledged with its next batch (or at once, when nothing in a batch was wanted), so
a process with nothing to do for a move's facts costs one read and one acknowledgement per batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Collection
from typing import Any

from redis.asyncio.cluster import RedisCluster

from services.outbox.stream import DEFAULT_BATCH, DEFAULT_CLAIM_IDLE_MS, OutboxEvent, ack, read_outbox
from services.outbox.wait import BLOCK_SECONDS, read_new, wait_outbox

# How often the full read (claim of abandoned entries, every shard) runs at most.
FULL_READ_SECONDS = 15.0


class OutboxReader:
    """The reads and acknowledgements of one consumer of one group (see the module docstring)."""

    def __init__(
        self,
        redis: Any,
        group: str,
        consumer: str,
        types: Collection[str] | None = None,
        poll_seconds: float = 0.25,
        claim_idle_ms: int = DEFAULT_CLAIM_IDLE_MS,
        count: int = DEFAULT_BATCH,
        linger_seconds: float = 0.0,
    ) -> None:
        self.redis, self.group, self.consumer = redis, group, consumer
        self.types = None if types is None else frozenset(types)
        self.poll_seconds, self.claim_idle_ms, self.count = poll_seconds, claim_idle_ms, count
        self.linger_seconds = linger_seconds
        self._read_at = 0.0  # monotonic time before which the next read lingers
        self._cluster = isinstance(redis, RedisCluster)
        self._recover = True
        self._full_at = 0.0  # monotonic time of the next full read (0: the next read)
        self._skipped: list[OutboxEvent] = []

    async def read(self, stop: asyncio.Event, wait_seconds: float = 0.0) -> list[OutboxEvent]:
        """The next wanted events (oldest first per shard), waiting up to ``wait_seconds`` (or until
        ``stop``) for the first when there are none; acknowledge them with :meth:`ack`."""
        deadline = time.monotonic() + wait_seconds
        while True:
            await self._linger(stop, deadline)  # also after a batch of skipped types only
            if self._cluster or time.monotonic() >= self._full_at:
                found = await self._full_read()
            else:
                left = deadline - time.monotonic()
                block = None if left < 0.001 else min(BLOCK_SECONDS, left, self._full_at - time.monotonic())
                new = await read_new(self.redis, self.group, self.consumer, stop, block, self.count)
                if new is None:  # the group is gone (a flushed Redis): the full read recreates it
                    self._full_at = 0.0
                    continue
                found = new
            if found:
                self._read_at = time.monotonic() + self.linger_seconds
            wanted = await self._keep(found)
            if wanted or stop.is_set() or deadline - time.monotonic() < 0.001:
                return wanted
            if self._cluster and not found:  # nothing in any shard: wait the poll interval
                await wait_outbox(self.redis, self.group, self.consumer, stop, self.poll_seconds)
                return []

    async def _linger(self, stop: asyncio.Event, deadline: float) -> None:
        """After a read that found entries, let more gather for ``linger_seconds`` (never past
        ``deadline``): while facts keep coming, one read and one acknowledgement serve many."""
        pause = min(self._read_at, deadline) - time.monotonic()
        if pause > 0 and not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)

    async def ack(self, events: list[OutboxEvent]) -> None:
        """Acknowledge handled events, with the entries of other types read alongside them."""
        done, self._skipped = [*events, *self._skipped], []
        if done:
            await ack(self.redis, self.group, done)

    async def _full_read(self) -> list[OutboxEvent]:
        claim = None
        if time.monotonic() >= self._full_at:
            claim, self._full_at = self.claim_idle_ms, time.monotonic() + FULL_READ_SECONDS
        events = await read_outbox(self.redis, self.group, self.consumer, self.count, claim, self._recover)
        self._recover = False
        return events

    async def _keep(self, found: list[OutboxEvent]) -> list[OutboxEvent]:
        """The wanted events of ``found``; the others wait for the next :meth:`ack`, which comes at
        once when none was wanted."""
        if self.types is None:
            return found
        wanted = [event for event in found if event.type in self.types]
        self._skipped += [event for event in found if event.type not in self.types]
        if not wanted and self._skipped:
            await self.ack([])
        return wanted
