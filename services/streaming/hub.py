"""The rules service's live-event fan-out: one follow per watched game, any number of watchers.

Before, every ``WatchEvents`` call held a pooled Redis connection in a blocking ``XREAD`` of its
own; then each watched game had a reader (and a connection) of its own.  Now:

* **One follow per live game** in each process (:class:`_Feed`).  The first watcher of a game
  starts it: it notes the last entry already logged, then asks the process's
  :class:`~services.streaming.mux.StreamMux` to follow the game's stream from there, and offers
  each new entry to every watcher's :class:`~services.streaming.mailbox.Mailbox`.  The mux reads
  many games' streams with one ``XREAD BLOCK`` per reader, so live games cost no Redis connection
  each: at most ``CHAIWALA_STREAM_CONNECTIONS`` readers per process on one server (one per attention
  shard's slot, at most 16, on a cluster), on a client of their own
  (:meth:`~services.games.store.GameStore.blocking_client`) so they never take the connections
  calls need.  At most ``CHAIWALA_STREAM_GAMES`` games are followed per process: one more is
  refused with RESOURCE_EXHAUSTED ``too_many_watched_games`` (the gateway answers 503 with
  ``Retry-After``).
* **Bounded buffers.**  A watcher more than ``buffer`` entries behind is dropped with
  :class:`~services.streaming.mailbox.SlowConsumer`; ``WatchEvents`` ends with RESOURCE_EXHAUSTED
  ``slow_consumer`` after what it had sent, so the client resumes from its last event id.  The
  mux only offers (never waits), so one slow watcher never holds up another game or watcher.
* **Nothing lingers.**  A feed stops when the game is over and everything up to its final
  version was offered (checked when an entry says the game ended, and for every feed every
  ``sweep_seconds`` in one pipelined read, which also notices an abort: an abort logs no entry),
  when Redis fails (watchers get UNAVAILABLE ``store_unavailable``), or when its last watcher
  leaves (the mux stops following it).  :meth:`EventHub.close` (SIGTERM) stops every feed and ends
  every watch with UNAVAILABLE ``shutting_down``.

A watcher must subscribe *before* reading the log's history (``XRANGE``): the feed offers every
entry after the last one logged when it started, or after the last one it read, and the history
read afterwards covers at least that far, so history + live, deduplicated by version, misses
nothing and repeats nothing (see :mod:`services.streaming.watch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

from prometheus_client import Counter, Gauge
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from services.common.logs import get_logger
from services.filing.store import is_ended
from services.games.records import LogEntry
from services.games.store import GameStore, events_key, last_logged_version, log_entries, progresses
from services.streaming.mailbox import Broadcast, Mailbox
from services.streaming.mux import Entry, Follow, ShuttingDown, StreamMux

log = get_logger("streaming")

GAMES = Gauge("chaiwala_stream_games", "Games followed live (one follow each, read by the mux)", ["game_type"])
WATCHERS = Gauge("chaiwala_stream_subscribers", "WatchEvents calls subscribed to a reader", ["game_type"])
DROPPED = Counter(
    "chaiwala_stream_dropped_slow_consumers", "Watchers dropped for falling a whole buffer behind", ["game_type"]
)
REFUSED = Counter("chaiwala_stream_refused", "Watches refused because every game slot was taken", ["game_type"])


CLOSE_SECONDS = 1.0  # how long close() waits for feeds and connections to go
READER_NAME = "chaiwala-streams"  # the mux readers' connections in CLIENT LIST: <this>:<mux owner>
SWEEP_BATCH = 500  # games whose progress one pipelined read asks for


class TooManyWatchedGames(Exception):
    """Every game slot of this process is taken."""


@dataclass(frozen=True)
class HubLimits:
    """How many games one process follows, how far a watcher may fall behind, how long a read
    blocks, how many Redis readers the mux may use, how often ended games are looked for."""

    games: int = 20000
    buffer: int = 1024
    block_ms: int = 2000
    connections: int = 8
    sweep_seconds: float = 5.0


class _Feed(Broadcast[LogEntry]):
    """One game's follow and the mailboxes of its watchers."""

    def __init__(self, game_id: str) -> None:
        super().__init__()
        self.game_id = game_id
        self.last_version = -1
        self.follow: Follow | None = None


def stream_mux(store: GameStore, connections: int, block_ms: int) -> StreamMux:
    """The process's mux: readers on a client of their own beside ``store`` (a connection per group;
    on a cluster a group is a slot, so a node may need as many as it has slots in use)."""
    calls = store.redis
    size = 16384 if isinstance(calls, RedisCluster) else connections
    owner = uuid.uuid4().hex[:12]
    reader = store.blocking_client(size, name=f"{READER_NAME}:{owner}")
    return StreamMux(reader, calls, connections, block_ms, owner=owner)


class EventHub:
    """Every live game followed by one rules-service process (one game type)."""

    def __init__(self, mux: StreamMux, calls: aioredis.Redis | RedisCluster, game_type: str,
                 limits: HubLimits | None = None) -> None:  # fmt: skip
        self.mux = mux
        self.calls = calls  # the calls' client: where a game's last entry and progress are read
        self.game_type = game_type
        self.limits = limits or HubLimits()
        self.feeds: dict[str, _Feed] = {}
        self.closing = False
        self.owns_mux = False
        self._sweeper: asyncio.Task[None] | None = None
        self._checks: set[asyncio.Task[None]] = set()

    @classmethod
    def for_store(cls, store: GameStore, game_type: str, limits: HubLimits | None = None) -> EventHub:
        """A hub with a mux of its own beside ``store`` (closed with the hub)."""
        limits = limits or HubLimits()
        hub = cls(stream_mux(store, limits.connections, limits.block_ms), store.redis, game_type, limits)
        hub.owns_mux = True
        return hub

    @contextlib.asynccontextmanager
    async def subscribe(self, game_id: str) -> AsyncIterator[Mailbox[LogEntry]]:
        """A mailbox of the game's entries logged from now on; the feed is started if needed.

        Raises :class:`TooManyWatchedGames`, :class:`ShuttingDown`, or the store's error when the
        feed cannot start.  Leaving the block unsubscribes (the last watcher stops the feed).
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
            if not feed.mailboxes and self.feeds.get(game_id) is feed:
                # Nobody listens: stop following now; a watcher arriving meanwhile starts a fresh
                # feed rather than join a stopping one.
                self._stop(feed)

    def _start(self, game_id: str) -> _Feed:
        if len(self.feeds) >= self.limits.games:
            REFUSED.labels(self.game_type).inc()
            raise TooManyWatchedGames(f"this service follows {self.limits.games} games already")
        feed = _Feed(game_id)
        self.feeds[game_id] = feed
        GAMES.labels(self.game_type).inc()
        feed.task = asyncio.create_task(self._open(feed), name=f"events:{game_id}")
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name=f"events-sweep:{self.game_type}")
        return feed

    def _stop(self, feed: _Feed, error: BaseException | None = None) -> None:
        """Stop following ``feed``'s game and close its watchers' mailboxes (``error``: why)."""
        if self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]
            GAMES.labels(self.game_type).dec()
        if feed.follow is not None:
            self.mux.unfollow(feed.follow)
            feed.follow = None
        if feed.task is not None and not feed.task.done():
            feed.task.cancel()
        feed.fail_opening(error or ShuttingDown("the feed stopped before it started"))
        feed.end(error)

    async def _open(self, feed: _Feed) -> None:
        """Note the game's last logged entry and follow its stream from there."""
        try:
            feed.last_version = await last_logged_version(self.calls, feed.game_id)
        except Exception as error:  # the store failed: every watcher learns why, and may resume
            log.warning("event_reader_failed", game_type=self.game_type, game_id=feed.game_id,
                        error=type(error).__name__)  # fmt: skip
            self._stop(feed, error)
            return
        if self.feeds.get(feed.game_id) is not feed:
            return  # left (or closed) while the last entry was read
        cursor = f"{feed.last_version}-1" if feed.last_version >= 0 else "0-0"
        try:
            feed.follow = self.mux.follow(
                events_key(feed.game_id), cursor, lambda entries: self._offer(feed, entries),
                lambda error: self._failed(feed, error),
            )  # fmt: skip
        except ShuttingDown as stopping:  # the mux closed while the last entry was read
            self._stop(feed, stopping)
            return
        if not feed.opened.done():
            feed.opened.set_result(None)
        # A game that ended before anyone watched logs nothing more: ask now, not at the next sweep
        # (a watch of a finished game would otherwise stay open up to sweep_seconds).
        self._check_soon([feed])

    def _offer(self, feed: _Feed, items: list[Entry]) -> None:
        """New entries of the game (in the mux's reader): to every watcher; an end is checked."""
        entries = log_entries(feed.game_id, items)
        for entry in entries:
            feed.last_version = entry.version
            DROPPED.labels(self.game_type).inc(feed.offer(entry))
        # "" is an entry stored before entries said their status: ask the game itself.
        if entries and (is_ended(entries[-1].status) or entries[-1].status == ""):
            self._check_soon([feed])

    def _failed(self, feed: _Feed, error: BaseException) -> None:
        log.warning("event_reader_failed", game_type=self.game_type, game_id=feed.game_id,
                    error=type(error).__name__)  # fmt: skip
        feed.follow = None  # the mux dropped it
        self._stop(feed, error)

    def _check_soon(self, feeds: list[_Feed]) -> None:
        task = asyncio.create_task(self._end_finished(feeds))
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    async def _end_finished(self, feeds: list[_Feed]) -> None:
        """End the feeds whose game can change no more and got every entry up to its final version."""
        try:
            answers = await progresses(self.calls, [feed.game_id for feed in feeds])
        except Exception as error:
            log.warning("event_progress_failed", game_type=self.game_type, error=type(error).__name__)
            return  # asked again at the next sweep
        for feed, (status, version) in zip(feeds, answers, strict=True):
            if is_ended(status) and feed.last_version >= version and self.feeds.get(feed.game_id) is feed:
                self._stop(feed)

    async def _sweep(self) -> None:
        """Every ``sweep_seconds`` while games are followed: end the ones that ended (an abort logs
        no entry), a pipelined read per :data:`SWEEP_BATCH` games."""
        while self.feeds and not self.closing:
            await asyncio.sleep(self.limits.sweep_seconds)
            opened = [feed for feed in self.feeds.values() if feed.follow is not None]
            for first in range(0, len(opened), SWEEP_BATCH):
                await self._end_finished(opened[first : first + SWEEP_BATCH])

    async def close(self) -> None:
        """Stop every feed; watchers end with :class:`ShuttingDown` (SIGTERM), and so do the other
        users of the mux when the hub owns it (the players' feeds)."""
        self.closing = True
        for feed in list(self.feeds.values()):
            self._stop(feed, ShuttingDown("the service is stopping"))
        for task in [self._sweeper, *self._checks]:
            if task is not None:
                task.cancel()
        if self.owns_mux:
            await self.mux.close()
