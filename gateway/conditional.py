"""Validators and caching for ``/v1`` answers: a strong ``ETag``, ``If-None-Match`` → 304, and a
``Cache-Control`` on every answer.

**The tag.** Every ``GET /v1/...`` answer of status 200 (views, legal moves, game types, rules,
replays, listings; not a live stream) gets ``ETag: "<digest>"``, where the digest is BLAKE2b-128 of the
answer's bytes before any content coding. It is computed from the bytes the client would get, so it
is right whoever asks: two seats' views differ, so do their tags; the same view asked twice has the
same tag. The answer is still computed in full (a 304 saves the phone's bytes, not the server's work).
A route that sets its own ``ETag`` (the static board, whose digest the rules service knows) keeps it.

**Strong, and one per content coding.** RFC 9110 (8.8.3) asks a strong tag to name one
representation, and a gzip answer is another representation than the identity one; so the
compression layer (:mod:`gateway.compression`) appends the coding to a compressed answer's tag
(``"<digest>-br"``), as Apache does. ``If-None-Match`` is compared weakly, as RFC 9110 (13.1.2)
requires: ``W/`` and a coding suffix are ignored, so a client that kept the brotli copy revalidates it
as well as one that kept the plain copy; the 304 repeats the tag the client sent (as a strong tag),
naming the copy it holds. A weak tag (nginx's choice when it compresses) would have done for
revalidation, but would give up byte-range semantics for no gain here.

**Cache-Control**, unless the route said it: ``GET /v1/game-types`` is the same for everyone and
changes only with a deployment (``public, max-age=300``); every other ``GET`` answer of 200 may be
kept by the caller's own cache but must be revalidated each time (``private, no-cache``: views and
legal moves change with every move and depend on the bearer); everything else (writes, refusals,
tickets) is ``no-store``. Live streams set their own ``no-store``. The routes that say their own:
the board and the rules (``public, max-age=3600``), stream tickets (``no-store``).
"""

from __future__ import annotations

import hashlib

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The content codings gateway.compression may apply, as they appear after the digest.
CODING_SUFFIXES = ("-gzip", "-br", "-zstd")
# Routes whose answer is the same for every caller and changes only with a deployment.
PUBLIC = {"/v1/game-types": "public, max-age=300"}
REVALIDATE = "private, no-cache"
NO_STORE = "no-store"


def digest_tag(body: bytes) -> str:
    """The strong entity tag of an answer's bytes (before any content coding)."""
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def _opaque(tag: str) -> str:
    """A tag as compared weakly: without ``W/`` and without a content coding's suffix."""
    tag = tag.strip()
    if tag.startswith("W/"):
        tag = tag[2:]
    for suffix in CODING_SUFFIXES:
        if tag.endswith(suffix + '"'):
            return tag[: -len(suffix) - 1] + '"'
    return tag


def matching_tag(if_none_match: str, etag: str) -> str | None:
    """The tag of ``If-None-Match`` (without ``W/``) that names the same answer as ``etag`` (``*``: ``etag``),
    else ``None``.

    The weak comparison of RFC 9110 13.1.2, plus the content coding's suffix (see the module's words).
    """
    wanted = _opaque(etag)
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or (candidate and _opaque(candidate) == wanted):
            # The strong tag of the copy the client holds (its coding kept), as the 304 repeats it.
            return etag if candidate == "*" else candidate.removeprefix("W/")
    return None


def _header(message: Message, name: bytes) -> bytes | None:
    return next((value for key, value in message["headers"] if key.lower() == name), None)


class ConditionalMiddleware:
    """Adds ``ETag`` and ``Cache-Control`` to ``/v1`` answers and answers a matching ``If-None-Match``
    with 304 (see the module's words). Pure ASGI: a live stream passes through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; hold a ``GET``'s 200 answer until its body is whole to tag it."""
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        if scope["method"] != "GET":  # writes (no /v1 route takes HEAD: 405)
            await self.app(scope, receive, _with_cache_control(send, NO_STORE))
            return
        if_none_match = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"if-none-match"), "")
        held: Message | None = None
        chunks: list[bytes] = []

        async def tagging(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                if _taggable(message):
                    held = message  # sent with the whole body, once its tag is known
                    return
                kept = message["status"] == 200 and not _streaming(message)  # a tagged 200 (the board)
                _default_cache_control(message, REVALIDATE if kept else NO_STORE)
            elif message["type"] == "http.response.body" and held is not None:
                chunks.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                await _send_tagged(send, held, b"".join(chunks), if_none_match, PUBLIC.get(path, REVALIDATE))
                return
            await send(message)

        await self.app(scope, receive, tagging)


def _taggable(start: Message) -> bool:
    """A 200 without a tag of its own that is not a live stream."""
    if start["status"] != 200 or _header(start, b"etag") is not None:
        return False
    return not _streaming(start)


def _streaming(start: Message) -> bool:
    return (_header(start, b"content-type") or b"").startswith(b"text/event-stream")


def _default_cache_control(start: Message, value: str) -> None:
    if _header(start, b"cache-control") is None:
        start["headers"] = [*start["headers"], (b"cache-control", value.encode())]


def _with_cache_control(send: Send, value: str) -> Send:
    """``send`` with ``value`` as the default ``Cache-Control`` of its answer."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            _default_cache_control(message, value)
        await send(message)

    return sending


async def _send_tagged(send: Send, start: Message, body: bytes, if_none_match: str, cache_control: str) -> None:
    """The held answer with its tag, or a 304 when the client's copy has that tag."""
    etag = digest_tag(body)
    _default_cache_control(start, cache_control)
    matched = matching_tag(if_none_match, etag) if if_none_match else None
    if matched is None:
        start["headers"] = [*start["headers"], (b"etag", etag.encode())]
        await send(start)
        await send({"type": "http.response.body", "body": body})
        return
    # A 304 carries what the 200 would have said about caching, and no body or body headers.
    kept = [(k, v) for k, v in start["headers"] if k.lower() not in (b"content-type", b"content-length")]
    headers = MutableHeaders(raw=[*kept, (b"etag", matched.encode())])
    headers.add_vary_header("Accept-Encoding")  # the 200 varies by coding; so does what the 304 confirms
    await send({"type": "http.response.start", "status": 304, "headers": headers.raw})
    await send({"type": "http.response.body", "body": b""})
