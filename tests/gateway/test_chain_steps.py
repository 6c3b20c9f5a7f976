"""The middleware chain's shortcuts give the bytes of the code they stand for (docs/lab/move-path.md,
"The gateway's layers"): CORS without ``Origin`` against Starlette's own ``CORSMiddleware``, and the
compression's tag step against its ``MutableHeaders`` form, on many header lists."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from starlette.datastructures import MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.types import Message, Receive, Scope, Send

from gateway.compression import CODINGS, _tag_coding
from gateway.cors import ALLOWED_HEADERS, EXPOSED_HEADERS, ProblemCORSMiddleware

Raw = list[tuple[bytes, bytes]]

# Answer header lists as the inner layers may hand them to CORS: no Vary, one, several, a capitalised one.
STARTS: list[Raw] = [
    [],
    [(b"content-type", b"application/json")],
    [(b"content-length", b"2"), (b"vary", b"Accept-Encoding")],
    [(b"vary", b"Accept-Encoding"), (b"content-language", b"en"), (b"vary", b"Accept-Language")],
    [(b"vary", b"Accept-Language"), (b"etag", b'"x"'), (b"vary", b"Accept-Encoding"), (b"vary", b"Cookie")],
    [(b"Vary", b"Accept-Encoding"), (b"vary", b"Accept-Language")],
    [(b"vary", b"")],
]
# Request header lists: none has Origin, as the shortcut requires (one has a look-alike name).
REQUESTS: list[Raw] = [
    [],
    [(b"host", b"x"), (b"authorization", b"Bearer t")],
    [(b"origin-x", b"https://a.example"), (b"access-control-request-method", b"GET")],
]


def _through(middleware: type[CORSMiddleware], start: Raw, request: Raw, method: str) -> list[Message]:
    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": list(start)})
        await send({"type": "http.response.body", "body": b"{}"})

    layer = middleware(inner, allow_origins=["https://a.example"], allow_methods=["GET", "POST"],
                       allow_headers=ALLOWED_HEADERS, expose_headers=EXPOSED_HEADERS, max_age=600)  # fmt: skip
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {"type": "http", "method": method, "path": "/v1/x", "headers": list(request)}
    asyncio.run(layer(scope, receive, send))
    return sent


@pytest.mark.parametrize(("start", "request_headers", "method"),
                         list(itertools.product(STARTS, REQUESTS, ["GET", "OPTIONS"])))  # fmt: skip
def test_cors_without_origin_is_starlettes(start: Raw, request_headers: Raw, method: str) -> None:
    ours = _through(ProblemCORSMiddleware, start, request_headers, method)
    theirs = _through(CORSMiddleware, start, request_headers, method)
    assert ours == theirs
    assert any(name == b"vary" and value.endswith(b"Origin") for name, value in ours[0]["headers"])


def _tag_reference(start: Message) -> None:
    """The tag step as it was written before its shortcut (``MutableHeaders`` on every answer)."""
    headers = MutableHeaders(raw=start["headers"])
    coding = headers.get("content-encoding", "")
    etag = headers.get("etag", "")
    if coding in CODINGS and etag.startswith('"') and etag.endswith('"'):
        headers["etag"] = f'{etag[:-1]}-{coding}"'
        start["headers"] = headers.raw


ENCODINGS: list[Raw] = [[], *([(b"content-encoding", coding)] for coding in (b"gzip", b"br", b"zstd", b"identity",
                         b"deflate", b"GZIP", b"")), [(b"content-encoding", b"br"), (b"content-encoding", b"gzip")],
                        [(b"content-encoding", b"identity"), (b"content-encoding", b"gzip")]]  # fmt: skip
TAGS: list[Raw] = [[], [(b"etag", b'"abc"')], [(b"etag", b'W/"abc"')], [(b"etag", b'"a"'), (b"etag", b'"b"')],
                   [(b"etag", b"abc")]]  # fmt: skip


@pytest.mark.parametrize(("encoding", "tag"), list(itertools.product(ENCODINGS, TAGS)))
def test_the_coding_tag_step_is_its_mutable_headers_form(encoding: Raw, tag: Raw) -> None:
    for raw in ([(b"content-type", b"application/json"), *encoding, *tag], [*tag, (b"vary", b"Origin"), *encoding]):
        ours: Message = {"type": "http.response.start", "status": 200, "headers": list(raw)}
        theirs: Message = {"type": "http.response.start", "status": 200, "headers": list(raw)}
        _tag_coding(ours)
        _tag_reference(theirs)
        assert ours == theirs
