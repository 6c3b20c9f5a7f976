"""How uvicorn serves the gateway: its bind, keep-alive, a deadline and sizes for request headers.

uvicorn bounds idle keep-alive connections but not a client that connects and never sends,
or sends its headers a byte at a time.  :func:`guarded_protocol` adds that bound: the request
line and headers must be complete within ``header_timeout_seconds`` of connecting (or of the
first byte of a later request on the same connection); otherwise the server answers 408 and
closes.  Under a burst of connections the loop may come to a socket after its deadline although
the client sent its head in time (uvloop runs due timers before it polls): a deadline that finds
bytes waiting unread in the kernel (``FIONREAD``) is put off briefly so they are read first, at
most :data:`LATE_READS` times per request.  The body has its own deadline in :mod:`gateway.limits`.

Neither uvicorn's httptools protocol nor the parser under it bounds the size of a request's
head: an 8 MB header was buffered and served.  The same protocol therefore counts it
(:class:`HeadSize`): the request line and headers together at most ``max_header_bytes``, one
header line (name and value) at most ``max_header_field_bytes``; past either the server answers
431 ``headers_too_large`` and closes, before any route, limit or credential check runs.  The
total is counted on the bytes as they arrive, so a header that never ends is refused once the
total is passed, without buffering the rest of it.  Only the head is counted: once the parser
completes the head, the bytes of the read that carried its end are no longer the measure (they
may hold much of the body), the head's own lines are.  The body has its own bound,
``max_body_bytes`` (413 ``body_too_large``, :func:`gateway.routes._read_json`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import struct
import termios
from dataclasses import dataclass
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gateway.cut_short import CutShort
from gateway.problems import PROBLEM_TYPE_BASE
from gateway.settings import GatewaySettings
from gateway.sse_socket import UvicornSend

# How long a refused connection keeps draining what its client still sends before it closes.
REFUSAL_LINGER_SECONDS = 2.0
# A head that reached the socket in time but was not read yet (the loop busy with a burst of
# connections) is read before the deadline is enforced: the deadline is put off this long, at
# most this many times per request (a client trickling bytes gains a few seconds at most).
LATE_READ_SECONDS = 0.5
LATE_READS = 4


def _closing_problem(status: bytes, code: str, title: str, detail: str) -> bytes:
    """A whole problem+json response, written straight to the socket before the connection closes."""
    body = json.dumps(
        {"type": PROBLEM_TYPE_BASE + code, "title": title, "status": int(status[:3]), "code": code, "detail": detail},
        separators=(",", ":"),  # compact, as the app's own JSON responses
    ).encode()
    head = b"HTTP/1.1 " + status + b"\r\ncontent-type: application/problem+json\r\nconnection: close\r\n"
    return head + b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def _unread_bytes(transport: asyncio.BaseTransport) -> int:
    """Bytes the kernel holds for this connection that the server has not read yet (0 if unknown)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return 0
    try:
        waiting = fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
    except OSError:
        return 0
    return int(struct.unpack("i", waiting)[0])


def _timeout_response() -> bytes:
    return _closing_problem(
        b"408 Request Timeout", "header_timeout", "Request timeout", "the request headers did not arrive in time"
    )


@dataclass
class HeadSize:
    """The bounds on one request's head, and how much of the current one has arrived."""

    max_total: int
    max_field: int
    received: int = 0  # bytes fed to the parser since the request began, while its head is incomplete
    parsed: int = 0  # bytes of the request's target and header lines the parser completed
    counting: bool = True  # False from the end of the head to the start of the next request
    too_large: str = ""  # which bound was passed ("" while none)

    def begin(self) -> None:
        """A new request: count afresh (the read it began in was not counted: a read's slack)."""
        if not self.counting:
            self.counting, self.received = True, 0
        self.parsed = 0

    def feed(self, size: int) -> None:
        """Count ``size`` bytes that arrived while the head is incomplete."""
        if self.counting:
            self.received += size

    def target(self, size: int) -> None:
        """Count a piece of the request target."""
        self.parsed += size

    def field(self, name: bytes, value: bytes) -> None:
        """Check one complete header line (``name: value`` and its line end, as a client counts it)."""
        self.parsed += len(name) + len(value) + 4
        if len(name) + len(value) + 2 > self.max_field:
            self.too_large = f"a request header line is larger than {self.max_field} bytes"

    def check_total(self) -> None:
        """The head so far against the total bound (the bytes while it is incomplete, else its lines)."""
        if max(self.received if self.counting else 0, self.parsed) > self.max_total:
            self.too_large = f"the request line and headers are larger than {self.max_total} bytes"

    def response(self) -> bytes:
        """The 431 answer."""
        title = "Request header fields too large"
        return _closing_problem(b"431 Request Header Fields Too Large", "headers_too_large", title, self.too_large)


class _HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline and size bounds on the request line and headers."""

    header_timeout: float = 10.0
    max_header_bytes: int = 32 * 1024
    max_header_field_bytes: int = 8 * 1024
    _header_timer: asyncio.TimerHandle | None = None
    _head: HeadSize
    _late_reads = 0  # deadlines put off because the head was waiting unread (see _expire)
    _head_pending = False  # a request began in the read being parsed and its head is not complete

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock as soon as the client connects (it may never send a byte)."""
        self._head = HeadSize(self.max_header_bytes, self.max_header_field_bytes)
        self._late_reads = 0
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Parse as uvicorn does, counting the head's bytes; 431 once it is too large."""
        if self._head.too_large:
            return  # refused: the connection is closing, nothing more is parsed
        self._head.feed(len(data))
        super().data_received(data)
        if self._head_pending:  # a request began in this read and its head is not complete yet
            self._head_pending = False
            self._arm()
        self._head.check_total()
        if self._head.too_large and not self.transport.is_closing():
            self._refuse_head()

    def on_message_begin(self) -> None:
        """A new request on a kept-alive connection gets a fresh deadline and a fresh count."""
        super().on_message_begin()
        self._head.begin()
        self._late_reads = 0
        # The clock is started when the read that began the request is parsed, and only if the head
        # is still incomplete then: almost every head arrives whole in one read, which then costs no
        # timer (a timer made and cancelled per request was ~1.4 µs).
        self._disarm()
        self._head_pending = True

    def on_url(self, url: bytes) -> None:
        """Count the request target (it may arrive in pieces)."""
        self._head.target(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """Check each header line as the parser completes it."""
        self._head.field(name, value)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        """Headers arrived in time: stop the clock; a head too large never reaches the app.

        The head is measured by its own lines now: the read that completed it may carry body
        bytes too (a 70 KB body sent with its headers in one write), which are not the head's."""
        self._disarm()
        self._head_pending = False
        self._head.counting = False
        self._head.check_total()
        if self._head.too_large:
            return  # data_received answers 431 once the parser hands control back
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        """A refused request's body is dropped (it has no request cycle)."""
        if not self._head.too_large:
            super().on_body(body)

    def on_message_complete(self) -> None:
        """A refused request never completes (it has no request cycle)."""
        if not self._head.too_large:
            super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        """No deadline outlives its connection."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(self.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _refuse_head(self) -> None:
        """Answer 431 and close, reading (and dropping) what the client still sends for a moment:
        closing with unread bytes would reset the connection and could destroy the answer."""
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:  # never inside an earlier answer
            self.transport.close()
            return
        self.transport.write(self._head.response())
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(REFUSAL_LINGER_SECONDS, self.transport.close)

    def _expire(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self._late_reads < LATE_READS and _unread_bytes(self.transport) > 0:
            # The client sent in time; this process has not read it yet (a burst of connections
            # keeps the loop busy, and uvloop runs due timers before it polls sockets): read first.
            self._late_reads += 1
            self._header_timer = self.loop.call_later(LATE_READ_SECONDS, self._expire)
            return
        self.transport.write(_timeout_response())
        self.transport.close()


def guarded_protocol(
    header_timeout: float, max_header_bytes: int = 32 * 1024, max_header_field_bytes: int = 8 * 1024
) -> type[asyncio.Protocol]:
    """The HTTP protocol class with ``header_timeout`` seconds for request headers, and their size bounds."""
    bounds = {
        "header_timeout": header_timeout,
        "max_header_bytes": max_header_bytes,
        "max_header_field_bytes": max_header_field_bytes,
    }
    return type("GatewayHttpProtocol", (_HeaderDeadlineProtocol,), bounds)


def uvicorn_config(app: Any, settings: GatewaySettings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration of the gateway (``python -m gateway`` and the test stack alike)."""
    options: dict[str, Any] = {
        "host": settings.http_host,
        "port": settings.http_port,
        "log_level": settings.log_level,
        "access_log": False,
        "lifespan": "on",
        "http": guarded_protocol(
            settings.header_timeout_seconds, settings.max_header_bytes, settings.max_header_field_bytes
        ),
        "timeout_keep_alive": settings.keep_alive_timeout_seconds,
        "backlog": settings.listen_backlog,
        # X-Forwarded-For only from the configured proxies (none by default: uvicorn's own default
        # believes it from loopback, so anyone on the host, or a proxy left unconfigured, could
        # choose the address every per-address limit counts).
        "proxy_headers": bool(settings.trusted_proxy_networks()),
        "forwarded_allow_ips": settings.trusted_proxy_networks() or None,
        "log_config": None,  # our own logging (services.common.logs) handles uvicorn's records
        **overrides,
    }
    # Outermost: notes uvicorn's own send for the SSE write path (gateway.sse_socket); then a
    # request cancelled at the end of the shutdown grace gets a 503 rather than uvicorn's 500.
    return uvicorn.Config(UvicornSend(CutShort(app)), **options)


class QuietServer(uvicorn.Server):
    """uvicorn's server, waking once a second at rest instead of ten times.

    uvicorn's main loop sleeps 0.1 s between ticks to see whether it should exit, and refreshes the
    ``date`` header every tenth tick.  At rest those wake-ups were a sixth of a percent of a core
    per gateway worker (docs/lab/speed.md); here the loop waits a second for a signal instead, and
    a signal wakes it at once, so shutting down is no slower.  Every tick is a header refresh.
    """

    _wake: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        """Tick once a second until told to exit (uvicorn's ``on_tick`` decides, as in its own loop)."""
        self._wake, self._loop = asyncio.Event(), asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000  # a multiple of ten: on_tick refreshes the date header
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=1.0)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """uvicorn's handler (it marks the server to exit), then wake the main loop to see it now."""
        super().handle_exit(sig, frame)
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)
