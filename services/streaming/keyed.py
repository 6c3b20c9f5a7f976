"""Listeners of Redis streams by key: each key followed once per process, from its last entry.

:class:`Followers` is the one owner of following a stream through the process's
:class:`~services.streaming.mux.StreamMux`: the first watch of a key starts a follow from where the
key stands now (so nothing is read twice), every watch of the key gets each new entry in a bounded
:class:`~services.streaming.mailbox.Mailbox`, and the last watch to leave stops the follow.  A watch
subscribes *before* reading what is already there, and skips live entries it read then (by id or
version), so it misses nothing and repeats nothing.  A watch more than ``buffer`` entries behind is
dropped (:class:`~services.streaming.mailbox.SlowConsumer`); when Redis fails, every watch of the
keys its reader followed ends with the error; closing ends them all with
:class:`~services.streaming.mux.ShuttingDown`.

Two kinds of followers use it: :class:`KeyedStreams`, the players' feeds
(:mod:`services.identity.feed_rpcs`), which hand on raw entries and start from the key's last
entry; and the rules service's :class:`~services.streaming.hub.EventHub`, which follows a game's
log from its last logged version, hands on log entries and ends a feed once its game is over.
What differs is named by the hooks: :meth:`Followers._cursor` (where a follow starts),
:meth:`Followers._deliver` (what is done with new entries), :meth:`Followers._opened` (after the
follow started), :meth:`Followers._broken` (the store failed) and :meth:`Followers._dropped` (a
topic was let go).
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Generic, TypeVar

from services.streaming.mailbox import Broadcast, Mailbox
from services.streaming.mux import Entry, Follow, ShuttingDown, StreamMux, as_text

T = TypeVar("T")


class Topic(Broadcast[T]):
    """One followed key (``name``: what watches ask for; ``key``: the stream followed) and its watches."""

    def __init__(self, name: str, key: str) -> None:
        super().__init__()
        self.name = name
        self.key = key
        self.follow: Follow | None = None


TopicT = TypeVar("TopicT", bound=Topic[Any])


class Followers(abc.ABC, Generic[T, TopicT]):
    """Every followed key of one process and the mailboxes of its watches (see the module)."""

    def __init__(self, mux: StreamMux, calls: Any, buffer: int) -> None:
        self.mux = mux
        self.calls = calls  # the calls' client: where a follow's starting point is read
        self.buffer = buffer
        self.topics: dict[str, TopicT] = {}
        self.closing = False

    @contextlib.asynccontextmanager
    async def subscribe(self, name: str) -> AsyncIterator[Mailbox[T]]:
        """A mailbox of ``name``'s entries added from now on (the follow starts if needed).

        Leaving the block unsubscribes; the last watch to leave stops the follow (a watch arriving
        meanwhile starts a fresh one rather than join a stopping one).
        """
        if self.closing:
            raise ShuttingDown("the service is stopping")
        topic = self.topics.get(name) or self._start(name)
        mailbox: Mailbox[T] = Mailbox(self.buffer)
        topic.mailboxes.add(mailbox)
        try:
            await asyncio.shield(topic.opened)
            yield mailbox
        finally:
            topic.mailboxes.discard(mailbox)
            mailbox.close()
            if not topic.mailboxes and self.topics.get(name) is topic:
                self._stop(topic)

    @abc.abstractmethod
    def _topic(self, name: str) -> TopicT:
        """A new topic for ``name`` (may refuse, raising)."""

    def _start(self, name: str) -> TopicT:
        topic = self.topics[name] = self._topic(name)
        topic.task = asyncio.create_task(self._open(topic), name=f"follow:{name}")
        return topic

    def _stop(self, topic: TopicT, error: BaseException | None = None) -> None:
        """Stop following ``topic`` and close its watches' mailboxes (``error``: why)."""
        if self.topics.get(topic.name) is topic:
            del self.topics[topic.name]
            self._dropped(topic)
        if topic.follow is not None:
            self.mux.unfollow(topic.follow)
            topic.follow = None
        if topic.task is not None and not topic.task.done():
            topic.task.cancel()
        topic.fail_opening(error or ShuttingDown("the follow stopped before it started"))
        topic.end(error)

    async def _open(self, topic: TopicT) -> None:
        """Read where the follow starts, then follow the key on the mux from there."""
        try:
            cursor = await self._cursor(topic)
        except Exception as error:  # the store failed: the watches learn why, and may resume
            self._broken(topic, error)
            return
        if self.topics.get(topic.name) is not topic:
            return  # left (or closed) while the starting point was read
        try:
            topic.follow = self.mux.follow(
                topic.key, cursor, lambda entries: self._deliver(topic, entries),
                lambda error: self._broken(topic, error),
            )  # fmt: skip
        except ShuttingDown as stopping:  # the mux closed while the starting point was read
            self._stop(topic, stopping)
            return
        if not topic.opened.done():
            topic.opened.set_result(None)
        self._opened(topic)

    async def _cursor(self, topic: TopicT) -> str:
        """The stream id the follow starts after: the key's last entry (``0-0`` when it has none)."""
        last: Any = await self.calls.xrevrange(topic.key, max="+", min="-", count=1)
        return as_text(last[0][0]) if last else "0-0"

    @abc.abstractmethod
    def _deliver(self, topic: TopicT, entries: list[Entry]) -> None:
        """New entries of ``topic``'s key (in the mux's reader: must not wait)."""

    def _opened(self, topic: TopicT) -> None:
        """The follow of ``topic`` started (nothing by default)."""

    def _broken(self, topic: TopicT, error: BaseException) -> None:
        """The store failed while starting or reading ``topic``: its watches end with ``error``."""
        topic.follow = None  # the mux dropped it (or it never started)
        self._stop(topic, error)

    def _dropped(self, topic: TopicT) -> None:
        """``topic`` is no longer followed (nothing by default)."""

    def stop_all(self, error: BaseException) -> None:
        """End every watch with ``error`` and refuse new ones (the mux is closed by its owner)."""
        self.closing = True
        for topic in list(self.topics.values()):
            self._stop(topic, error)


class KeyedStreams(Followers[Entry, Topic[Entry]]):
    """Raw streams by key, each from its last entry: the players' feeds."""

    def __init__(self, mux: StreamMux, calls: Any, buffer: int = 256) -> None:
        super().__init__(mux, calls, buffer)

    def _topic(self, name: str) -> Topic[Entry]:
        return Topic(name, name)

    def _deliver(self, topic: Topic[Entry], entries: list[Entry]) -> None:
        topic.offer_all(entries)

    def close(self) -> None:
        """End every watch with :class:`ShuttingDown` (the mux is closed by its owner)."""
        self.stop_all(ShuttingDown("the service is stopping"))
