"""Listeners of Redis streams by key: each key followed once per process, from its last entry.

The players' feeds (:mod:`services.identity.feed_rpcs`) are read this way: the first watch of a
key starts a follow on the process's :class:`~services.streaming.mux.StreamMux` from the key's
last entry (so nothing is read twice), every watch of the key gets each new entry in a bounded
:class:`~services.streaming.mailbox.Mailbox`, and the last watch to leave stops the follow.  As
for a game's log (:mod:`services.streaming.hub`), a watch subscribes *before* reading what is
already there, and skips live entries it read then (by id), so it misses nothing and repeats
nothing.  A watch more than ``buffer`` entries behind is dropped
(:class:`~services.streaming.mailbox.SlowConsumer`); when Redis fails, every watch of the keys
its reader followed ends with the error; :meth:`KeyedStreams.close` and the mux's
own close end them all with :class:`~services.streaming.mux.ShuttingDown`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from services.streaming.mailbox import Broadcast, Mailbox
from services.streaming.mux import Entry, Follow, ShuttingDown, StreamMux, as_text


class _Topic(Broadcast[Entry]):
    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key
        self.follow: Follow | None = None


class KeyedStreams:
    """Every followed key of one process and the mailboxes of its watches."""

    def __init__(self, mux: StreamMux, calls: Any, buffer: int = 256) -> None:
        self.mux = mux
        self.calls = calls  # where a key's last entry is read when its follow starts
        self.buffer = buffer
        self.topics: dict[str, _Topic] = {}
        self.closing = False

    @contextlib.asynccontextmanager
    async def subscribe(self, key: str) -> AsyncIterator[Mailbox[Entry]]:
        """A mailbox of ``key``'s entries added from now on (the follow starts if needed)."""
        if self.closing:
            raise ShuttingDown("the service is stopping")
        topic = self.topics.get(key) or self._start(key)
        mailbox: Mailbox[Entry] = Mailbox(self.buffer)
        topic.mailboxes.add(mailbox)
        try:
            await asyncio.shield(topic.opened)
            yield mailbox
        finally:
            topic.mailboxes.discard(mailbox)
            mailbox.close()
            if not topic.mailboxes and self.topics.get(key) is topic:
                self._stop(topic)

    def _start(self, key: str) -> _Topic:
        topic = self.topics[key] = _Topic(key)
        topic.task = asyncio.create_task(self._open(topic), name=f"follow:{key}")
        return topic

    def _stop(self, topic: _Topic, error: BaseException | None = None) -> None:
        if self.topics.get(topic.key) is topic:
            del self.topics[topic.key]
        if topic.follow is not None:
            self.mux.unfollow(topic.follow)
            topic.follow = None
        if topic.task is not None and not topic.task.done():
            topic.task.cancel()
        topic.fail_opening(error or ShuttingDown("the follow stopped before it started"))
        topic.end(error)

    async def _open(self, topic: _Topic) -> None:
        try:
            last: Any = await self.calls.xrevrange(topic.key, max="+", min="-", count=1)
        except Exception as error:  # the store failed: the watches learn why
            self._stop(topic, error)
            return
        if self.topics.get(topic.key) is not topic:
            return
        cursor = as_text(last[0][0]) if last else "0-0"
        try:
            topic.follow = self.mux.follow(topic.key, cursor, topic.offer_all, lambda error: self._failed(topic, error))
        except ShuttingDown as stopping:  # the mux closed while the last entry was read
            self._stop(topic, stopping)
            return
        if not topic.opened.done():
            topic.opened.set_result(None)

    def _failed(self, topic: _Topic, error: BaseException) -> None:
        topic.follow = None  # the mux dropped it
        self._stop(topic, error)

    def close(self) -> None:
        """End every watch with :class:`ShuttingDown` (the mux is closed by its owner)."""
        self.closing = True
        for topic in list(self.topics.values()):
            self._stop(topic, ShuttingDown("the service is stopping"))
