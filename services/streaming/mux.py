"""Many Redis streams followed by a few connections: one blocking ``XREAD`` over many keys per reader.

A process follows every live game it serves and every connected player's feed.  Following each
with a ``XREAD BLOCK`` of its own cost one Redis connection per stream (2,000 live games, 2,000
connections per process).  A :class:`StreamMux` instead partitions the keys it follows into a
bounded number of groups, and each group has one reader: a task that loops one ``XREAD BLOCK``
over all of its group's keys, each from its own cursor, and hands what came to each key's
:class:`Follow` (a plain callback: the caller's fan-out offers it to bounded mailboxes, so one slow
listener never holds the reader up; :mod:`services.streaming.mailbox`).

* **Groups.**  On a single server a key's group is ``crc32(key) % connections``
  (``CHAIWALA_STREAM_CONNECTIONS``): at most that many connections, whatever the number of keys.
  A Redis Cluster refuses one command over keys of several slots, so there a group is a hash slot:
  games live in the 16 attention-shard slots (:mod:`services.common.attention`), so at most 16
  readers follow every game of a process; players' feeds are spread over every slot, so on a
  cluster the player streams cost one reader per slot in use (documented in the operator guide).
* **Joining a blocked read.**  A read that is blocked cannot take a new key.  Each reader also
  reads a *wake stream* of its own (``chaiwala:wake:{<tag of its group>}:<uuid>``, one entry kept,
  expiring); a follow that joins while the reader is blocked appends to it, which ends the block
  at once, and the next read includes the new key.  The reader keeps its own cursor on the wake
  stream, so a wake appended between two reads is seen by the next one, never lost.
* **Cursors.**  Each follow reads after its own last id; entries a reader got for a key followed
  again meanwhile (a new follow, a later cursor) are filtered by id, so nothing is handed twice.
* **Bounded blocks.**  Every ``BLOCK`` is asked through :func:`services.common.store.bounded_block_ms`
  on the readers' own client (whose reply timeout is longer than any block).
* **Why partitions, not one read for everything.**  One ``XREAD`` over ``N`` keys costs Redis and
  the client ``O(N)`` per call, and a busy reader calls again after every batch; ``K`` partitions
  divide that work by ``K`` for ``K`` connections.  A reader per game (the design before) made
  ``N`` connections; one per process would make every move's read walk every followed key.
* **Failures.**  When a read fails (Redis gone), every follow of that group is told
  (:attr:`Follow.fail`) and dropped; callers end their listeners with the error, and listeners
  resume from their last event.  A group with no key left stops its reader after its block.
  :meth:`StreamMux.close` (SIGTERM) tells every follow :class:`ShuttingDown`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import Counter, Gauge
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from services.common.logs import get_logger
from services.common.store import bounded_block_ms

log = get_logger("streaming")

READERS = Gauge("chaiwala_stream_mux_readers", "Redis readers (connections) following streams")
FOLLOWED = Gauge("chaiwala_stream_mux_keys", "Redis streams followed by the readers")
READS = Counter("chaiwala_stream_mux_reads", "XREAD calls of the readers")
WAKES = Counter("chaiwala_stream_mux_wakes", "Blocked reads woken to take a new stream")

Entry = tuple[str, dict[bytes, bytes]]  # a stream entry: its id and its fields
WAKE_TTL_MS = 600_000  # a wake stream left by a killed process goes away by itself
CLOSE_SECONDS = 1.0
_TAG = re.compile(r"\{([^{}]+)\}")


class ShuttingDown(Exception):
    """The process is stopping; listeners should reconnect (to another instance)."""


def as_text(value: bytes | str) -> str:
    """A Redis reply's bytes as text."""
    return value.decode() if isinstance(value, bytes) else value


def id_after(entry_id: str, cursor: str) -> bool:
    """Whether stream id ``entry_id`` comes after ``cursor`` (both ``<ms>-<seq>``)."""
    ms, _, seq = entry_id.partition("-")
    at_ms, _, at_seq = cursor.partition("-")
    return (int(ms), int(seq or 0)) > (int(at_ms), int(at_seq or 0))


def hash_tag(key: str) -> str:
    """The part of ``key`` Redis Cluster hashes (its first ``{...}``, else the whole key)."""
    found = _TAG.search(key)
    return found.group(1) if found else key


@dataclass(eq=False)
class Follow:
    """One followed stream: where it stands, and who gets its entries (called in the reader's task,
    so they must not wait: offer to a mailbox and return)."""

    key: str
    cursor: str
    deliver: Callable[[list[Entry]], None]
    fail: Callable[[BaseException], None]


@dataclass(eq=False)
class _Reader:
    """One group's keys, its wake stream and the task reading them."""

    group: int
    wake_key: str
    follows: dict[str, Follow] = field(default_factory=dict)
    wake_cursor: str = "0-0"
    task: asyncio.Task[None] | None = None
    blocked: bool = False  # an XREAD is on its way: a new key needs a wake
    woken: bool = False  # a wake was sent for the read now blocked
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class StreamMux:
    """Follows any number of Redis streams with a bounded number of blocking reads (see the module)."""

    def __init__(self, reader: aioredis.Redis | RedisCluster, writer: aioredis.Redis | RedisCluster,
                 connections: int = 8, block_ms: int = 2000, count: int = 100, owner: str = "") -> None:  # fmt: skip
        self.reader = reader  # the readers' own client (blocking reads, a long reply timeout)
        self.writer = writer  # the calls' client: wakes
        self.connections = max(1, connections)
        self.block_ms = block_ms
        self.count = count
        self.cluster = isinstance(reader, RedisCluster)
        self.readers: dict[int, _Reader] = {}
        self.owner = owner or uuid.uuid4().hex[:12]  # names this process's wake streams (and connections)
        self.closing = False

    def group_of(self, key: str) -> int:
        """The reader a key belongs to (its hash slot on a cluster)."""
        if self.cluster:
            return int(key_slot(key.encode()))
        return zlib.crc32(key.encode()) % self.connections

    def follow(self, key: str, cursor: str, deliver: Callable[[list[Entry]], None],
               fail: Callable[[BaseException], None]) -> Follow:  # fmt: skip
        """Hand every entry of ``key`` after ``cursor`` to ``deliver`` (one follow per key at a time)."""
        if self.closing:
            raise ShuttingDown("the service is stopping")
        group = self.group_of(key)
        reader = self.readers.get(group)
        if reader is None:
            wake = f"chaiwala:wake:{{{hash_tag(key)}}}:{self.owner}:{group}"
            reader = self.readers[group] = _Reader(group, wake)
        if key in reader.follows:
            raise ValueError(f"{key} is followed already")
        followed = Follow(key, cursor, deliver, fail)
        reader.follows[key] = followed
        FOLLOWED.inc()
        reader.changed.set()
        if reader.task is None or reader.task.done():
            reader.task = asyncio.create_task(self._read(reader), name=f"mux:{group}")
        elif reader.blocked and not reader.woken:
            reader.woken = True
            asyncio.create_task(self._wake(reader))  # noqa: RUF006 - best effort, the block ends anyway
        return followed

    def unfollow(self, followed: Follow) -> None:
        """Stop following (its entries still in flight are dropped)."""
        reader = self.readers.get(self.group_of(followed.key))
        if reader is not None and reader.follows.get(followed.key) is followed:
            del reader.follows[followed.key]
            FOLLOWED.dec()

    def followed(self) -> int:
        """How many streams are followed now."""
        return sum(len(reader.follows) for reader in self.readers.values())

    async def _wake(self, reader: _Reader) -> None:
        WAKES.inc()
        try:
            async with self.writer.pipeline(transaction=False) as pipe:
                pipe.xadd(reader.wake_key, {"w": "1"}, maxlen=1, approximate=False)
                pipe.pexpire(reader.wake_key, WAKE_TTL_MS)
                await pipe.execute()
        except Exception as error:  # the block ends by itself within block_ms
            log.warning("stream_wake_failed", error=type(error).__name__)

    async def _read(self, reader: _Reader) -> None:
        """One group's reader: read while it has keys (see the module docstring)."""
        READERS.inc()
        try:
            while not self.closing:
                if not reader.follows:
                    reader.changed.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(reader.changed.wait(), self.block_ms / 1000)
                    if not reader.follows:
                        return
                await self._read_once(reader)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.warning("stream_reader_failed", group=reader.group, keys=len(reader.follows),
                        error=type(error).__name__)  # fmt: skip
            follows, reader.follows = list(reader.follows.values()), {}
            FOLLOWED.dec(len(follows))
            for followed in follows:
                followed.fail(error)
        finally:
            READERS.dec()
            if self.readers.get(reader.group) is reader and not reader.follows:
                del self.readers[reader.group]

    async def _read_once(self, reader: _Reader) -> None:
        streams: dict[Any, Any] = {key: followed.cursor for key, followed in reader.follows.items()}
        streams[reader.wake_key] = reader.wake_cursor
        block = bounded_block_ms(self.reader, self.block_ms / 1000)
        reader.blocked, reader.woken = True, False
        READS.inc()
        try:
            answer: Any = await self.reader.xread(streams, block=block, count=self.count)
        finally:
            reader.blocked = False
        for raw_key, items in answer or []:
            key = as_text(raw_key)
            if key == reader.wake_key:
                reader.wake_cursor = as_text(items[-1][0])
                continue
            followed = reader.follows.get(key)
            if followed is None:
                continue  # left while the read was on its way
            entries = [(as_text(entry_id), fields) for entry_id, fields in items]
            entries = [entry for entry in entries if id_after(entry[0], followed.cursor)]
            if entries:
                followed.cursor = entries[-1][0]
                followed.deliver(entries)

    async def close(self) -> None:
        """Stop every reader (their blocked reads' connections are dropped) and delete the wake streams."""
        self.closing = True
        for reader in self.readers.values():
            follows, reader.follows = list(reader.follows.values()), {}
            FOLLOWED.dec(len(follows))
            for followed in follows:
                followed.fail(ShuttingDown("the service is stopping"))
        tasks = [reader.task for reader in self.readers.values() if reader.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:  # bounded: a reader stuck on a dead connection must not hold a shutdown up
            await asyncio.wait(tasks, timeout=CLOSE_SECONDS)
        wakes = [reader.wake_key for reader in self.readers.values()]
        self.readers.clear()
        with contextlib.suppress(Exception):
            for key in wakes:
                await asyncio.wait_for(self.writer.delete(key), CLOSE_SECONDS)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader.aclose(), CLOSE_SECONDS)
