"""The rules service's live-event fan-out: one Redis reader per watched game, any number of watchers.

Before, every ``WatchEvents`` call held a pooled Redis connection in a blocking ``XREAD`` of its
own: about a hundred watchers exhausted the pool, and every RPC of that game type failed.  Now:

* **One reader per live game** in each process (:class:`_Feed`).  The first watcher of a game
  starts it; it notes the last entry already logged, then loops ``XREAD BLOCK`` on the game's
  stream and offers each new entry to every watcher's :class:`~services.streaming.mailbox.Mailbox`.
  Watchers hold no Redis connection; readers use a client of their own
  (:meth:`~services.games.store.GameStore.blocking_client`), so they never take the connections
  calls need, and at most ``readers`` of them run (``CHAIWALA_STREAM_READERS``): one more watched
  game is refused with RESOURCE_EXHAUSTED ``too_many_watched_games`` (the gateway answers 503 with
  ``Retry-After``).
* **Per game, not per shard.**  All games live in 16 Redis slots, so one ``XREAD`` could follow
  every game of a shard, but a blocked ``XREAD`` cannot take a new stream without being woken
  (``CLIENT UNBLOCK`` on the right node) and a shard reader would couple unrelated games' failures.
  A reader per game is simple, costs one connection per *watched* game (not per watcher), and the
  gateway's own fan-out (:mod:`gateway.fanout`) keeps watchers per game down to one per viewer.
* **Bounded buffers.**  A watcher more than ``buffer`` entries behind is dropped with
  :class:`~services.streaming.mailbox.SlowConsumer`; ``WatchEvents`` ends with RESOURCE_EXHAUSTED
  ``slow_consumer`` after what it had sent, so the client resumes from its last event id.
* **Nothing lingers.**  The reader stops when the game is over and everything up to its final
  version was offered (checked after every batch, and every ``block_ms`` when idle, which also
  notices an abort), when Redis fails (watchers get UNAVAILABLE ``store_unavailable``), or when its
  last watcher leaves (the blocked read is cancelled, which drops its connection).  :meth:`EventHub.close`
  (SIGTERM) stops every reader and ends every watch with UNAVAILABLE ``shutting_down``.

A watcher must subscribe *before* reading the log's history (``XRANGE``): the reader offers
every entry after the last one logged when it started, or after the last one it read, and the
history read afterwards covers at least that far, so history + live, deduplicated by version,
misses nothing and repeats nothing (see :mod:`services.streaming.watch`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from prometheus_client import Counter, Gauge
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from services.common.logs import get_logger
from services.filing.store import is_ended
from services.games.records import LogEntry
from services.games.store import GameStore, last_logged_version, progress, read_log
from services.streaming.mailbox import Broadcast, Mailbox

log = get_logger("streaming")

READERS = Gauge("chaiwala_stream_readers", "Live-event readers running (one per watched game)", ["game_type"])
WATCHERS = Gauge("chaiwala_stream_subscribers", "WatchEvents calls subscribed to a reader", ["game_type"])
DROPPED = Counter(
    "chaiwala_stream_dropped_slow_consumers", "Watchers dropped for falling a whole buffer behind", ["game_type"]
)
REFUSED = Counter("chaiwala_stream_refused", "Watches refused because every reader slot was taken", ["game_type"])


CLOSE_SECONDS = 1.0  # how long close() waits for readers and connections to go


class TooManyWatchedGames(Exception):
    """Every reader slot of this process is taken."""


class ShuttingDown(Exception):
    """The process is stopping; watchers should reconnect (to another instance)."""


@dataclass(frozen=True)
class HubLimits:
    """How many games one process follows, how far a watcher may fall behind, how long a read blocks."""

    readers: int = 1000
    buffer: int = 1024
    block_ms: int = 2000


class _Feed(Broadcast[LogEntry]):
    """One game's reader and the mailboxes of its watchers."""

    def __init__(self, game_id: str) -> None:
        super().__init__()
        self.game_id = game_id
        self.last_version = -1


class EventHub:
    """Every live-event reader of one rules-service process (one game type)."""

    def __init__(self, client: aioredis.Redis | RedisCluster, game_type: str, limits: HubLimits | None = None) -> None:
        self.client = client
        self.game_type = game_type
        self.limits = limits or HubLimits()
        self.feeds: dict[str, _Feed] = {}
        self.closing = False
        self.owns_client = False

    @classmethod
    def for_store(cls, store: GameStore, game_type: str, limits: HubLimits | None = None) -> EventHub:
        """A hub whose readers use a client of their own, next to ``store`` (one connection per reader)."""
        limits = limits or HubLimits()
        client = store.blocking_client(limits.readers)
        hub = cls(client, game_type, limits)
        hub.owns_client = client is not store.redis
        return hub

    @contextlib.asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[Mailbox[LogEntry]]:
        """A mailbox of the game's entries logged from now on; the reader is started if needed.

        Raises :class:`TooManyWatchedGames`, :class:`ShuttingDown`, or the store's error when the
        reader cannot start.  Leaving the block unsubscribes (the last watcher stops the reader).
        """
        if self.closing:
            raise ShuttingDown("the service is stopping")
        feed = self.feeds.get(game_id) or self._start(game_id)
        mailbox: Mailbox[LogEntry] = Mailbox(self.limits.buffer)
        feed.mailboxes.add(mailbox)
        WATCHERS.labels(self.game_type).inc()
        try:
            await asyncio.shield(feed.opened)
            yield mailbox
        finally:
            WATCHERS.labels(self.game_type).dec()
            feed.mailboxes.discard(mailbox)
            mailbox.close()
            if not feed.mailboxes and feed.task is not None and self.feeds.get(game_id) is feed:
                # Nobody listens: stop reading now (the blocked XREAD's connection is dropped); a
                # watcher arriving meanwhile starts a fresh reader rather than join a stopping one.
                del self.feeds[game_id]
                feed.task.cancel()

    def _start(self, game_id: str) -> _Feed:
        if len(self.feeds) >= self.limits.readers:
            REFUSED.labels(self.game_type).inc()
            raise TooManyWatchedGames(f"this service follows {self.limits.readers} games already")
        feed = _Feed(game_id)
        self.feeds[game_id] = feed
        feed.task = asyncio.create_task(self._read(feed), name=f"events:{game_id}")
        return feed

    async def _read(self, feed: _Feed) -> None:
        """The reader loop of one game (see the module docstring for when it stops)."""
        READERS.labels(self.game_type).inc()
        try:
            feed.last_version = await last_logged_version(self.client, feed.game_id)
            feed.opened.set_result(None)
            while feed.mailboxes and not await self._finished(feed):
                for entry in await read_log(self.client, feed.game_id, feed.last_version, self.limits.block_ms):
                    feed.last_version = entry.version
                    DROPPED.labels(self.game_type).inc(feed.offer(entry))
            feed.end()
        except asyncio.CancelledError:
            feed.end(ShuttingDown("the service is stopping") if self.closing else None)
            raise
        except Exception as error:  # the store failed: every watcher learns why, and may resume
            log.warning("event_reader_failed", game_type=self.game_type, game_id=feed.game_id,
                        error=type(error).__name__)
            feed.fail_opening(error)
            feed.end(error)
        finally:
            READERS.labels(self.game_type).dec()
            if self.feeds.get(feed.game_id) is feed:
                del self.feeds[feed.game_id]
            feed.fail_opening(ShuttingDown("the reader stopped before it started"))

    async def _finished(self, feed: _Feed) -> bool:
        """Whether the game can change no more and every entry up to its final version was offered."""
        status, version = await progress(self.client, feed.game_id)
        return is_ended(status) and feed.last_version >= version

    async def close(self) -> None:
        """Stop every reader; watchers end with :class:`ShuttingDown` (SIGTERM)."""
        self.closing = True
        tasks = [feed.task for feed in self.feeds.values() if feed.task is not None]
        for task in tasks:
            task.cancel()
        if tasks:  # bounded: a reader stuck on a dead connection must not hold a shutdown up
            await asyncio.wait(tasks, timeout=CLOSE_SECONDS)
        if self.owns_client:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.aclose(), CLOSE_SECONDS)
