"""A listener's bounded buffer: the fan-out offers, the listener takes, overflow drops the listener.

Used by the rules services' :mod:`services.streaming.hub` (log entries per watch call) and by
the gateway's :mod:`gateway.fanout` (events per SSE client).  The producer never waits: when a
mailbox is full, :meth:`Mailbox.offer` refuses and the producer closes the mailbox with an
error, so one slow listener never slows the others.  What was already buffered is still
delivered before the error, so the listener's last item is a valid point to resume from.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class SlowConsumer(Exception):
    """A listener fell more than its buffer behind and was dropped; it may resume from its last item."""


class Mailbox(Generic[T]):
    """A bounded FIFO with one producer side (:meth:`offer`, :meth:`close`) and one reader (iteration)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._items: deque[T] = deque()
        self._ready = asyncio.Event()
        self._closed = False
        self._error: BaseException | None = None

    @property
    def closed(self) -> bool:
        """Whether nothing more will be offered."""
        return self._closed

    def offer(self, item: T) -> bool:
        """Buffer ``item``; ``False`` (nothing buffered) when the mailbox is full or closed."""
        if self._closed or len(self._items) >= self.capacity:
            return False
        self._items.append(item)
        self._ready.set()
        return True

    def close(self, error: BaseException | None = None) -> None:
        """No more items: the reader drains what is buffered, then stops (raising ``error`` if given)."""
        if self._closed:
            return
        self._closed = True
        self._error = error
        self._ready.set()

    async def take(self, timeout: float) -> list[T]:
        """Everything buffered, waiting up to ``timeout`` seconds for something ([] if nothing came,
        or if closed with nothing left; raises the close's error once everything was taken)."""
        if not self._items and not self._closed:
            self._ready.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # no task of its own (wait_for makes one per wait)
                    await self._ready.wait()
        items = list(self._items)
        self._items.clear()
        if not items and self._closed and self._error is not None:
            raise self._error
        return items

    def __aiter__(self) -> AsyncIterator[T]:
        return self._drain()

    async def _drain(self) -> AsyncIterator[T]:
        while True:
            while self._items:
                yield self._items.popleft()
            if self._closed:
                if self._error is not None:
                    raise self._error
                return
            self._ready.clear()
            await self._ready.wait()


class Sink(Protocol[T_contra]):
    """What a :class:`Broadcast` offers to: a :class:`Mailbox`, or the gateway's
    :class:`gateway.sse_listener.Listener` (which writes at once instead of buffering)."""

    capacity: int

    def offer(self, item: T_contra) -> bool:
        """Take ``item`` without waiting; ``False`` when the listener is a whole buffer behind."""

    def close(self, error: BaseException | None = None) -> None:
        """Nothing more will be offered (``error``: why)."""


class Broadcast(Generic[T]):
    """One source (a reader, an upstream call) and the mailboxes of its listeners.

    ``opened`` resolves once the source is ready (or fails with why it is not); ``task`` runs it.
    """

    def __init__(self) -> None:
        self.mailboxes: set[Sink[T]] = set()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # Its exception counts as seen even when no listener waits for it any more.
        self.opened.add_done_callback(lambda done: None if done.cancelled() else done.exception())
        self.task: asyncio.Task[None] | None = None

    def offer(self, item: T) -> int:
        """Give ``item`` to every listener; drop (with :class:`SlowConsumer`) the ones whose buffer
        is full, and return how many were dropped."""
        dropped = 0
        for mailbox in list(self.mailboxes):
            if not mailbox.offer(item):
                self.mailboxes.discard(mailbox)
                mailbox.close(SlowConsumer(f"more than {mailbox.capacity} items behind"))
                dropped += 1
        return dropped

    def offer_all(self, items: list[T]) -> None:
        """:meth:`offer` each of ``items`` in order (a listener dropped on the way misses the rest)."""
        for item in items:
            self.offer(item)

    def fail_opening(self, error: BaseException) -> None:
        """Tell listeners still waiting for the source why it will not open."""
        if not self.opened.done():
            self.opened.set_exception(error)

    def end(self, error: BaseException | None = None) -> None:
        """Close every listener's mailbox (each still gets what it holds, then ``error`` if given)."""
        for mailbox in list(self.mailboxes):
            mailbox.close(error)
        self.mailboxes.clear()
