"""How uvicorn serves the gateway: its bind, keep-alive, and a deadline for request headers.

uvicorn bounds idle keep-alive connections but not a client that connects and never sends,
or sends its headers a byte at a time.  :func:`guarded_protocol` adds that bound: the request
line and headers must be complete within ``header_timeout_seconds`` of connecting (or of the
first byte of a later request on the same connection); otherwise the server answers 408 and
closes.  The body has its own deadline in :mod:`gateway.limits`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from gateway.cut_short import CutShort
from gateway.settings import GatewaySettings
from gateway.sse_socket import UvicornSend


def _timeout_response() -> bytes:
    body = b'{"type":"https://chaiwala.dev/problems/header_timeout","title":"Request timeout","status":408,'
    body += b'"code":"header_timeout","detail":"the request headers did not arrive in time"}'
    head = b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/problem+json\r\nconnection: close\r\n"
    return head + b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body


class _HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on the request line and headers."""

    header_timeout: float = 10.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the clock as soon as the client connects (it may never send a byte)."""
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        """A new request on a kept-alive connection gets a fresh deadline."""
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        """Headers arrived in time: stop the clock."""
        self._disarm()
        super().on_headers_complete()

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

    def _expire(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        self.transport.write(_timeout_response())
        self.transport.close()


def guarded_protocol(header_timeout: float) -> type[asyncio.Protocol]:
    """The HTTP protocol class with ``header_timeout`` seconds for request headers."""
    return type("GatewayHttpProtocol", (_HeaderDeadlineProtocol,), {"header_timeout": header_timeout})


def uvicorn_config(app: Any, settings: GatewaySettings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration of the gateway (``python -m gateway`` and the test stack alike)."""
    options: dict[str, Any] = {
        "host": settings.http_host,
        "port": settings.http_port,
        "log_level": settings.log_level,
        "access_log": False,
        "lifespan": "on",
        "http": guarded_protocol(settings.header_timeout_seconds),
        "timeout_keep_alive": settings.keep_alive_timeout_seconds,
        "log_config": None,  # our own logging (services.common.logs) handles uvicorn's records
        **overrides,
    }
    # Outermost: notes uvicorn's own send for the SSE write path (gateway.sse_socket); then a
    # request cancelled at the end of the shutdown grace gets a 503 rather than uvicorn's 500.
    return uvicorn.Config(UvicornSend(CutShort(app)), **options)
