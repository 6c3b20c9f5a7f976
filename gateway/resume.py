"""Where a reader resumes: the version, or ``<version>:<index>``, of the last event it saw.

A live stream's ``Last-Event-ID``, a listing's ``?after=`` and a table's ``version`` are each such a
counter; one set of rules reads them all, so every route refuses the same inputs with the same codes.
"""

from __future__ import annotations

from fastapi import Request

from gateway.problems import Problem

MAX_VERSION = 2**31


def counter(text: str) -> int | None:
    """A non-negative version or index written in ASCII digits, within range; else ``None``."""
    if not text or len(text) > 10 or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_VERSION else None


def event_id(text: str) -> tuple[int, int | None] | None:
    """``<version>`` or ``<version>:<index>`` (an SSE message id); ``None`` when malformed."""
    version_text, separator, index_text = text.partition(":")
    version = counter(version_text)
    index = counter(index_text) if separator else None
    if version is None or (separator and index is None):
        return None
    return version, index


def last_event(request: Request) -> tuple[int, int | None]:
    """Resume point from ``Last-Event-ID`` or ``?after=``, each ``<version>`` or ``<version>:<index>``
    (the id of the last message seen): the two are the same resume, ``Last-Event-ID`` wins.

    ``after`` is checked even when ``Last-Event-ID`` wins, so a bad one is never silently ignored."""
    after = event_id(request.query_params.get("after", "0"))
    if after is None:
        raise Problem(400, "bad_after", f"'after' is a version from 0 to {MAX_VERSION}, or '<version>:<index>'")
    header = request.headers.get("last-event-id")
    if header is None:
        return after
    # An empty Last-Event-ID is refused too: EventSource never sends one, and the document's pattern refuses it.
    resume = event_id(header.strip())
    if resume is None:
        raise Problem(400, "bad_last_event_id", "Last-Event-ID must look like '<version>:<index>'")
    return resume
