"""Compressed answers: zstd, brotli or gzip for answers above a size, never for a live stream.

The work is ``starlette-compress`` (pinned in ``constraints.txt``): it picks, among the codings the
request's ``Accept-Encoding`` accepts, zstd, then brotli, then gzip (the server's order; the
client's q-values only say yes or no), compresses one-shot answers of at least
``CHAIWALA_COMPRESS_MIN_BYTES`` bytes (default 1024: below about a kilobyte the coding's own
framing and the CPU eat the gain), and adds ``Vary: Accept-Encoding`` to every answer whose size
would have allowed it. It would compress ``text/event-stream`` too, flushing per event; the gateway
takes that type off its list, because an intermediary that buffers compressed data holds events back,
and an event is a few hundred bytes.

Around it, one step of ours: a compressed answer's strong ``ETag`` gets the coding appended
(``"<digest>-br"``), so the tag names that representation (why, and how ``If-None-Match`` is still
matched: :mod:`gateway.conditional`).

**One zstd compressor per process.** On Python before 3.14 the library makes a new
``zstandard.ZstdCompressor`` for every answer it compresses whole, and making one (its context) costs
as much as compressing a move's answer (~12 µs each here). A compressor's one-shot ``compress`` may be
called again and again and gives the same bytes as a new one with the same level; the gateway
compresses on its event loop only (no thread shares it), so one kept compressor serves every answer.
"""

from __future__ import annotations

import zstandard
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware, remove_compress_type

# Live streams stay uncompressed and unbuffered (see the module's words).
remove_compress_type("text/event-stream")

CODINGS = ("zstd", "br", "gzip")
ZSTD_LEVEL = 4  # starlette-compress's default, kept


def _kept_zstd(middleware: CompressMiddleware) -> None:
    """Have ``middleware``'s zstd coding compress whole answers with one kept compressor (see the
    module's words); left alone where the library keeps its own (Python 3.14's ``compression.zstd``)."""
    responder = getattr(middleware, "_zstd", None)
    if responder is None or type(responder).__module__ != "starlette_compress._zstd_legacy":
        return
    compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    responder.oneshot = compressor.compress


class CompressionMiddleware:
    """``starlette-compress`` with the gateway's threshold, and the coding appended to a strong ``ETag``."""

    def __init__(self, app: ASGIApp, minimum_size: int) -> None:
        self.app = CompressMiddleware(app, minimum_size=minimum_size, zstd_level=ZSTD_LEVEL)
        _kept_zstd(self.app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Compress what qualifies; name the coding in the answer's tag."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def tagging(message: Message) -> None:
            if message["type"] == "http.response.start":
                _tag_coding(message)
            await send(message)

        await self.app(scope, receive, tagging)


def _tag_coding(start: Message) -> None:
    """Append the coding to a compressed answer's strong tag; most answers are not compressed, so the
    first ``content-encoding`` (what ``MutableHeaders.get`` would read) is found on the raw list first."""
    coding = next((value for name, value in start["headers"] if name == b"content-encoding"), None)
    if coding is None or coding.decode("latin-1") not in CODINGS:
        return
    headers = MutableHeaders(raw=start["headers"])
    coding = headers.get("content-encoding", "")
    etag = headers.get("etag", "")
    if coding in CODINGS and etag.startswith('"') and etag.endswith('"'):
        headers["etag"] = f'{etag[:-1]}-{coding}"'
        start["headers"] = headers.raw
