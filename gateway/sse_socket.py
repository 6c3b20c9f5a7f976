"""The lean write path of SSE: an event's bytes go straight to the client's socket, past the ASGI stack.

Profiled at 1,000 spectators (py-spy, ``bench sse``), a delivery cost ~47 µs of gateway CPU: the
``write`` syscall itself ~28 µs (a loopback write on this VM costs ~17 µs even from a bare loop),
and most of the rest the five ``send`` wrappers every body chunk passed through (Starlette's error
middleware and exception handler, the edge metrics, CORS, then uvicorn's own ``send``), each a
coroutine call per client and event, plus HTTP chunk framing done again for every client.

Now, under uvicorn, a live SSE client's chunks skip them:

* :class:`UvicornSend` is the outermost ASGI layer (:func:`gateway.server.uvicorn_config` wraps the
  app in it): it puts uvicorn's own ``send`` in the scope (:data:`RAW_SEND`); nothing else is
  changed.
* :func:`socket_writer` finds, behind that ``send``, uvicorn's connection (its transport and flow
  control).  It is used only for a response whose headers uvicorn sent with chunked encoding, and
  only for body chunks that are not the last: the response start (where CORS and the metrics do
  their work) and the final chunk (which completes the response in uvicorn's books) still go
  through the whole stack.  No middleware of the gateway looks at body chunks, so skipping them
  changes no bytes and no metric.
* :meth:`SocketWriter.write` writes a chunk already framed once per upstream (:func:`frame`) when
  the transport takes it at once, exactly when uvicorn's ``send`` would not wait (writing not
  paused, client still there); otherwise it says no and the listener uses the ASGI ``send``, which
  waits for the socket to drain (the slow-client path of :mod:`gateway.sse_listener`).

Under any other server (or an ASGI test transport) there is no :data:`RAW_SEND` and every chunk
takes the ASGI ``send``, as before.
"""

from __future__ import annotations

import socket
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.one_write import OneWrite

RAW_SEND = "chaiwala.server_send"


def frame(chunk: bytes) -> bytes:
    """``chunk`` as one HTTP/1.1 chunk (what uvicorn writes for a body message with more to come)."""
    return b"%x\r\n%b\r\n" % (len(chunk), chunk)


class UvicornSend:
    """Outermost ASGI layer: remembers the server's own ``send`` in the scope of each HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with ``send`` noted under :data:`RAW_SEND` (and a whole response
        written at once: :class:`gateway.one_write.OneWrite`)."""
        if scope["type"] == "http":
            scope[RAW_SEND] = send
            send = OneWrite.wrap(send)
        await self.app(scope, receive, send)


# What one SSE client may hold unread before its writes pause and it falls to the slow-client path:
# the kernel's send buffer (fixed, so loopback autotuning cannot grow it to megabytes) and the
# transport's own buffer.  A move's events are a few KiB, so a client that reads keeps up easily.
STREAM_SEND_BUFFER = 32 * 1024
STREAM_WRITE_HIGH_WATER = 32 * 1024


class SocketWriter:
    """uvicorn's connection under one SSE response: writes framed chunks when it takes them at once."""

    def __init__(self, cycle: Any) -> None:
        self.cycle = cycle
        self.transport = cycle.transport
        self.flow = cycle.flow
        _bound_buffers(self.transport)

    def write(self, framed: bytes) -> bool:
        """Write ``framed`` now; ``False`` (nothing written) when uvicorn's ``send`` would wait or
        drop it: writing is paused (the socket's buffer is full) or the client is gone."""
        if self.flow.write_paused or self.cycle.disconnected or self.transport.is_closing():
            return False
        self.transport.write(framed)
        return True


def _bound_buffers(transport: Any) -> None:
    """Bound what a stalled client can make the gateway hold for it, in bytes (see the constants)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)
    transport.set_write_buffer_limits(high=STREAM_WRITE_HIGH_WATER)


def socket_writer(scope: Scope) -> SocketWriter | None:
    """The writer of this request's connection, or ``None`` when chunks must take the ASGI ``send``
    (not uvicorn, a response that is not chunked, or one that has completed)."""
    cycle = getattr(scope.get(RAW_SEND), "__self__", None)
    needed = ("transport", "flow", "disconnected", "chunked_encoding", "response_complete")
    if cycle is None or not all(hasattr(cycle, name) for name in needed):
        return None
    if cycle.chunked_encoding is not True or cycle.response_complete:
        return None
    return SocketWriter(cycle)
