"""The one rule every listing reads ``page_size`` by (games, tournaments, ratings, deliveries).

``page_size`` is an ASCII number from 1 to :data:`MAX_PAGE_SIZE`; absent, it is
:data:`DEFAULT_PAGE_SIZE`.  Anything else (0, 101, ``-1``, ``ten``, ``²``) is a 400
``bad_page_size``: a listing never answers an unbounded page, and a client never gets a
silently different size from the one it asked for.  The OpenAPI document states the same
bounds (:data:`PAGE_SIZE_SCHEMA`), so schemathesis checks both sides agree.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from gateway.problems import Problem

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
PAGE_SIZE_SCHEMA: dict[str, Any] = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_PAGE_SIZE,
    "default": DEFAULT_PAGE_SIZE,
}
# A cursor is opaque; its length is bounded so a hostile one costs nothing to refuse.
PAGE_TOKEN_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": 256}


def page_size(request: Request) -> int:
    """The listing's page size from ``?page_size=`` (default 20, 1 to 100), or 400 ``bad_page_size``."""
    text = request.query_params.get("page_size")
    if text is None:
        return DEFAULT_PAGE_SIZE
    if not (text.isascii() and text.isdigit()) or len(text) > 3 or not 1 <= int(text) <= MAX_PAGE_SIZE:
        raise Problem(400, "bad_page_size", f"page_size is a number from 1 to {MAX_PAGE_SIZE}")
    return int(text)


def paging_parameters() -> list[dict[str, Any]]:
    """The ``page_size`` and ``page_token`` query parameters of a listing operation."""
    return [
        {"name": "page_size", "in": "query", "required": False, "schema": dict(PAGE_SIZE_SCHEMA)},
        {"name": "page_token", "in": "query", "required": False, "schema": dict(PAGE_TOKEN_SCHEMA)},
    ]
