"""The rules service's live-event fan-out: one follow per watched game, any number of watchers.

Before, every ``WatchEvents`` call held a pooled Redis connection in a blocking ``XREAD`` of its
own; then each watched game had a reader (and a connection) of its own.  Now:

* **One follow per live game** in each process (:class:`_Feed`), kept as every stream of the
  process is (:class:`services.streaming.keyed.Followers`).  The first watcher of a game starts
  it: it notes the last entry already logged, then asks the process's
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
  version was offered: one check (:meth:`EventHub._end_finished`), run when the feed opens (a
  game over before anyone watched ends its watches at once), when an entry says the game ended,
  and for every feed every ``sweep_seconds`` in one pipelined read (which also notices an abort:
  an abort logs no entry);
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
from services.streaming.keyed import Followers, Topic
from services.streaming.mailbox import Mailbox
from services.streaming.mux import Entry, ShuttingDown, StreamMux

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
    connections: int = 128  # CHAIWALA_STREAM_CONNECTIONS (services.common.settings says why 128)
    sweep_seconds: float = 5.0


class _Feed(Topic[LogEntry]):
    """One game's follow and the mailboxes of its watchers."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id, events_key(game_id))
        self.last_version = -1


def stream_mux(store: GameStore, connections: int, block_ms: int) -> StreamMux:
    """The process's mux: readers on a client of their own beside ``store`` (a connection per group;
    on a cluster a group is a slot, so a node may need as many as it has slots in use)."""
    calls = store.redis
    size = 16384 if isinstance(calls, RedisCluster) else connections
    owner = uuid.uuid4().hex[:12]
    reader = store.blocking_client(size, name=f"{READER_NAME}:{owner}")
    return StreamMux(reader, calls, connections, block_ms, owner=owner)


class EventHub(Followers[LogEntry, _Feed]):
    """Every live game followed by one rules-service process (one game type): a
    :class:`~services.streaming.keyed.Followers` whose follows start at the game's last logged
    version, hand on log entries, and end once the game is over."""

    def __init__(self, mux: StreamMux, calls: aioredis.Redis | RedisCluster, game_type: str,
                 limits: HubLimits | None = None) -> None:  # fmt: skip
        self.limits = limits or HubLimits()
        super().__init__(mux, calls, self.limits.buffer)  # calls: where a game's last entry and progress are read
        self.game_type = game_type
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

    @property
    def feeds(self) -> dict[str, _Feed]:
        """The games followed now, by id."""
        return self.topics

    @contextlib.asynccontextmanager
    async def subscribe(self, name: str) -> AsyncIterator[Mailbox[LogEntry]]:
        """A mailbox of game ``name``'s entries logged from now on; the feed is started if needed.

        Raises :class:`TooManyWatchedGames`, :class:`ShuttingDown`, or the store's error when the
        feed cannot start.  Leaving the block unsubscribes (the last watcher stops the feed).
        """
        WATCHERS.labels(self.game_type).inc()
        try:
            async with super().subscribe(name) as mailbox:
                yield mailbox
        finally:
            WATCHERS.labels(self.game_type).dec()

    def _topic(self, name: str) -> _Feed:
        if len(self.topics) >= self.limits.games:
            REFUSED.labels(self.game_type).inc()
            raise TooManyWatchedGames(f"this service follows {self.limits.games} games already")
        GAMES.labels(self.game_type).inc()
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.create_task(self._sweep(), name=f"events-sweep:{self.game_type}")
        return _Feed(name)

    def _dropped(self, topic: _Feed) -> None:
        GAMES.labels(self.game_type).dec()

    async def _cursor(self, topic: _Feed) -> str:
        """The game's last logged version: the follow hands on every entry after it."""
        topic.last_version = await last_logged_version(self.calls, topic.name)
        return f"{topic.last_version}-1" if topic.last_version >= 0 else "0-0"

    def _opened(self, topic: _Feed) -> None:
        # A game that ended before anyone watched logs nothing more: ask now, not at the next sweep
        # (a watch of a finished game would otherwise stay open up to sweep_seconds).
        self._check_soon([topic])

    def _deliver(self, topic: _Feed, entries: list[Entry]) -> None:
        """New entries of the game (in the mux's reader): to every watcher; an end is checked."""
        logged = log_entries(topic.name, entries)
        for entry in logged:
            topic.last_version = entry.version
            DROPPED.labels(self.game_type).inc(topic.offer(entry))
        # "" is an entry stored before entries said their status: ask the game itself.
        if logged and (is_ended(logged[-1].status) or logged[-1].status == ""):
            self._check_soon([topic])

    def _broken(self, topic: _Feed, error: BaseException) -> None:
        log.warning("event_reader_failed", game_type=self.game_type, game_id=topic.name,
                    error=type(error).__name__)  # fmt: skip
        super()._broken(topic, error)

    def _check_soon(self, feeds: list[_Feed]) -> None:
        """:meth:`_end_finished` for ``feeds`` in a task of its own (the mux's reader must not wait)."""
        task = asyncio.create_task(self._end_finished(feeds))
        self._checks.add(task)
        task.add_done_callback(self._checks.discard)

    async def _end_finished(self, feeds: list[_Feed]) -> None:
        """The one end check: end the feeds whose game can change no more and got every entry up to
        its final version.  Run when a feed opens (a game over before anyone watched logs nothing
        more), when an entry says the game ended, and by the sweep (an abort logs no entry); a
        pipelined read per :data:`SWEEP_BATCH` games."""
        followed = [feed for feed in feeds if feed.follow is not None and self.topics.get(feed.name) is feed]
        for first in range(0, len(followed), SWEEP_BATCH):
            batch = followed[first : first + SWEEP_BATCH]
            try:
                answers = await progresses(self.calls, [feed.name for feed in batch])
            except Exception as error:
                log.warning("event_progress_failed", game_type=self.game_type, error=type(error).__name__)
                return  # asked again at the next sweep
            for feed, (status, version) in zip(batch, answers, strict=True):
                if is_ended(status) and feed.last_version >= version and self.topics.get(feed.name) is feed:
                    self._stop(feed)

    async def _sweep(self) -> None:
        """Every ``sweep_seconds`` while games are followed: :meth:`_end_finished` over every feed."""
        while self.topics and not self.closing:
            await asyncio.sleep(self.limits.sweep_seconds)
            await self._end_finished(list(self.topics.values()))

    async def close(self) -> None:
        """Stop every feed; watchers end with :class:`ShuttingDown` (SIGTERM), and so do the other
        users of the mux when the hub owns it (the players' feeds)."""
        self.stop_all(ShuttingDown("the service is stopping"))
        for task in [self._sweeper, *self._checks]:
            if task is not None:
                task.cancel()
        if self.owns_mux:
            await self.mux.close()
