"""One SSE client of the gateway's fan-out, written to by its upstream's loop rather than a task of its own.

Before, every client ran its own tasks (an ``EventSourceResponse`` task group of four, plus a
generator woken through a queue for every event), so one event cost a task wake-up, a cancel
scope and a lock per client: about 0.5 ms each, 600 ms for the last of 1,000 listeners.  Now:

* **The upstream writes.**  Each event arrives as its final SSE frame, rendered once per viewer
  (:func:`gateway.fanout.sse_bytes`); the upstream's loop hands the same bytes to every
  :class:`Listener` in turn, which passes them straight to the ASGI ``send`` of its response.
  uvicorn's ``send`` only waits when the socket's buffer is full, so the loop steps it by hand
  (:func:`_step`): a send that completes at once costs no task and no scheduling at all.
* **A full socket** (a slow client) is the only case that waits: that send is finished by a task
  of its own, and what arrives meanwhile queues in the client's bounded backlog, written as one
  chunk when the socket drains (coalesced).  A client more than ``capacity`` events behind is
  dropped: after what it holds it gets ``event: error`` (``slow_consumer``, with the id of its last
  event to resume from) and ``end``, never holding the others up.
* **Before it is live** (while the route still reads its history), events queue in the backlog too
  and are written after the history, deduplicated by ``(version, index)``.
* **The response's own coroutine** only waits for the client to leave (``receive``), so a departed
  client is noticed at once, and it returns as soon as its stream is complete.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Generator, Iterable
from typing import Any

from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from gateway.sse_socket import SocketWriter, frame, socket_writer

Position = tuple[int, int]
Relayed = tuple[Position, bytes]  # an event's (version, index) and its SSE bytes
# A frame to write whatever the client has seen (an error, the end): no position.
Control = tuple[None, bytes]
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]
PING = b": ping\r\n\r\n"
# How long an EventSource waits before it reconnects after its stream closed (SSE's ``retry`` field,
# the first thing every stream sends): browsers' own defaults differ (3 to 5 s) and say nothing.
RECONNECT_MS = 3000
RETRY = b"retry: %d\r\n\r\n" % RECONNECT_MS


def _body(chunk: bytes, more: bool = True) -> Message:
    return {"type": "http.response.body", "body": chunk, "more_body": more}


async def _resume(steps: Generator[Any, None, Any], waiting: Any) -> None:
    """Finish an awaitable :func:`_step` started, which suspended on ``waiting`` (what it yielded)."""
    try:
        while True:
            if isinstance(waiting, asyncio.Future):
                await asyncio.wait([waiting])  # its outcome is for the awaitable to take, below
            else:
                await asyncio.sleep(0)  # a bare yield
            waiting = steps.send(None)
    except StopIteration:
        return
    finally:
        steps.close()  # cancelled while waiting: let the send clean up after itself


def _step(awaitable: Awaitable[None]) -> asyncio.Task[None] | None:
    """Run ``awaitable`` now, in the caller's task; ``None`` if it completed, else the task finishing it."""
    steps = awaitable.__await__()
    try:
        waiting = steps.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_resume(steps, waiting))


class Listener:
    """One SSE client's place on an upstream: a bounded backlog and, once live, its ASGI ``send``."""

    def __init__(self, capacity: int, last: Position, final: Callable[[BaseException | None, Position], bytes]) -> None:
        self.capacity = max(1, capacity)
        self.last = last  # the newest event the client has (or will have, once the backlog is written)
        self.backlog: deque[Relayed | Control] = deque()
        self.send: Send | None = None
        self.socket: SocketWriter | None = None  # the lean path past the ASGI stack, under uvicorn
        self.writing: asyncio.Task[None] | None = None
        self.ended = False  # nothing more is offered; the backlog ends with the final frames
        self.complete = False  # the final chunk was written
        self._final = final  # the closing frames (an error event if any, then end), from why and where
        self.on_leave: Callable[[], None] = lambda: None

    # ---- the upstream's side (never waits) --------------------------------------------------

    def offer(self, item: Relayed) -> bool:
        """Write or queue one event; ``False`` when the backlog is full (the upstream then closes
        this listener with :class:`SlowConsumer`)."""
        return self.offer_batch([item], item[1])

    def offer_batch(self, items: list[Relayed], chunk: bytes, framed: bytes = b"") -> bool:
        """Write or queue consecutive events whose frames, joined, are ``chunk`` (one write for all);
        ``framed`` is ``chunk`` as an HTTP chunk (:func:`gateway.sse_socket.frame`), if the caller
        framed it once for all its clients."""
        if self.ended:
            return True
        if self.send is not None and self.writing is None:
            if items[0][0] > self.last:  # the usual case: all of it is new
                self.last = items[-1][0]
                self._write(chunk, framed=framed)
            elif fresh := b"".join(self._take(items)):
                self._write(fresh)
            return True
        if len(self.backlog) + len(items) > self.capacity:
            return False
        self.backlog.extend(items)
        return True

    def ping(self) -> None:
        """Keep an idle connection open through proxies (skipped while a write is pending); every SSE
        stream of the gateway is pinged this way, by :class:`gateway.fanout.LiveEvents`' keeper."""
        if self.send is not None and self.writing is None and not self.ended:
            self._write(PING)

    async def drained(self) -> None:
        """Wait until nothing waits for the socket (a stream with one client and one upstream, the
        player's, reads its upstream no faster than the client reads, instead of dropping it)."""
        while (writing := self.writing) is not None and not writing.done():
            await asyncio.wait([writing])

    def close(self, error: BaseException | None = None) -> None:
        """No more events: after what it holds the client gets ``error`` (if any), then ``end``."""
        if self.ended:
            return
        self.ended = True
        # It resumes from the last event it will have been sent: the newest one queued, if any.
        resume = max([self.last, *(item[0] for item in self.backlog if item[0] is not None)])
        self.backlog.append((None, self._final(error, resume)))
        if self.send is not None and self.writing is None:
            self._flush()

    # ---- writing ----------------------------------------------------------------------------

    def _write(self, chunk: bytes, more: bool = True, framed: bytes = b"") -> None:
        # A chunk with more to come goes straight to the socket when it takes it at once; the last
        # chunk, and any the socket cannot take now, through the ASGI send (which waits to drain).
        if more and self.socket is not None and self.socket.write(framed or frame(chunk)):
            return
        assert self.send is not None
        try:
            self.writing = _step(self.send(_body(chunk, more)))
        except Exception:  # the connection is gone (uvicorn drops writes after a disconnect anyway)
            self.ended = self.complete = True
            return
        if self.writing is not None:
            self.writing.add_done_callback(self._written)

    def _written(self, task: asyncio.Task[None]) -> None:
        self.writing = None
        if task.cancelled() or task.exception() is not None:
            self.ended = self.complete = True  # the connection broke: nothing more can be written
        elif self.backlog or self.ended:
            self._flush()

    def _flush(self) -> None:
        """Write everything queued as one chunk (the last one when the stream has ended)."""
        if self.complete:
            return
        chunk = b"".join(self._take(self.backlog))
        self.backlog.clear()
        if self.ended:
            self.complete = True
        if chunk or self.ended:
            self._write(chunk, more=not self.ended)

    def _take(self, items: Iterable[Relayed | Control]) -> Iterable[bytes]:
        for position, data in items:
            if position is None:
                yield data
            elif position > self.last:
                self.last = position
                yield data

    # ---- the response's side ----------------------------------------------------------------

    async def go_live(self, send: Send, history: list[Relayed], socket: SocketWriter | None = None) -> None:
        """Write the ``retry`` field, the history and what queued meanwhile, then take events as they
        come (through ``socket`` when there is one, see :mod:`gateway.sse_socket`)."""
        chunk = RETRY + b"".join(self._take(history))
        while chunk:
            await send(_body(chunk))
            chunk = b"".join(self._take(list(self.backlog)))
            self.backlog.clear()
        self.send, self.socket = send, socket
        if self.backlog or self.ended:
            self._flush()


class LiveStream(Response):
    """The ASGI response of one SSE client: headers, history, then whatever its upstream writes."""

    def __init__(
        self, listener: Listener, history: list[Relayed], on_live: Callable[[], None] = lambda: None
    ) -> None:
        super().__init__(status_code=200)
        self.listener = listener
        self.history = history
        self.on_live = on_live  # called once the listener is live (its history written)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Stream until the client leaves or the stream is complete; leave the upstream either way."""
        try:
            # A fresh list: middleware (CORS) may add to it.
            await send({"type": "http.response.start", "status": 200, "headers": list(HEADERS)})
            if scope.get("method") == "HEAD":
                await send(_body(b"", more=False))
                return
            await self.listener.go_live(send, self.history, socket_writer(scope))
            self.on_live()
            # uvicorn answers http.disconnect once the client is gone or the last chunk was sent.
            while (await receive())["type"] != "http.disconnect":
                pass
        finally:
            if self.listener.writing is not None:
                self.listener.writing.cancel()
            with contextlib.suppress(Exception):
                self.listener.on_leave()
