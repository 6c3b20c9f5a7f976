"""application/problem+json (RFC 9457) responses with a stable ``code``."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import parse_qs

import grpc
from fastapi.responses import JSONResponse
from starlette.types import Scope

from services.common.error_catalogue import catalogue, sentence
from services.common.errors import clip, error_detail_from_metadata
from services.common.sentences import pick_language

PROBLEM_TYPE_BASE = "https://chaiwala.dev/problems/"

# gRPC status -> HTTP status, for refusals whose code has no entry in CODE_STATUS.
GRPC_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.FAILED_PRECONDITION: 422,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
}


def _code_status() -> dict[str, int]:
    """Codes whose HTTP status differs from their gRPC status's default, from the catalogue."""
    by_name = {status.name: status for status in grpc.StatusCode}
    found = {}
    for code, entry in catalogue().items():
        single = len(entry.http) == 1 and len(entry.grpc) == 1 and entry.grpc[0] in by_name
        if single and GRPC_STATUS.get(by_name[entry.grpc[0]]) != entry.http[0]:
            found[code] = entry.http[0]
    return found


# Codes whose HTTP status differs from their gRPC status's default (game_over: 409, not 422).
# Declared once, in seeds/platform/errors.yaml.
CODE_STATUS = _code_status()
TITLES = {
    400: "Bad request",
    401: "Unauthenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    410: "Gone",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Illegal move",
    428: "Precondition required",
    429: "Too many requests",
    431: "Request header fields too large",
    500: "Internal error",
    502: "Bad gateway",
    503: "Service unavailable",
    504: "Gateway timeout",
}

# Titles of codes whose status's title would mislead (422 is "Illegal move" for the games).
CODE_TITLES = {
    # 422s that are not a move's refusal.
    "too_few_players": "Too few players",
    "game_not_started": "Game not started",
    "tournament_finished": "Tournament over",
    "already_withdrawn": "Already withdrawn",
}

# Seconds a client should wait before retrying when a dependency is down (503).
RETRY_AFTER_UNAVAILABLE = 1


class Problem(Exception):
    """An HTTP refusal to render as problem+json."""

    def __init__(
        self, status: int, code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        detail = clip(detail)  # a detail may quote the client's input: only a short prefix of it
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra


def request_language(scope: Scope | None) -> str:
    """The language a request asks for: ``?lang=en|es``, else ``Accept-Language``; English by default."""
    if scope is None:
        return "en"
    raw = scope.get("query_string", b"")
    if raw:  # most requests have no query at all: nothing to parse
        chosen = (parse_qs(raw.decode("latin-1")).get("lang") or [""])[0]
        if chosen in ("en", "es"):
            return chosen
    header = b""
    for name, value in scope.get("headers") or ():
        if name == b"accept-language":
            header = value  # the last one counts, as it always has
    return _preferred(header)


@functools.lru_cache(maxsize=256)
def _preferred(header: bytes) -> str:
    """:func:`pick_language` of an ``Accept-Language`` value; a client sends the same one every time."""
    return pick_language(header.decode("latin-1"))


def bad_lang(scope: Scope) -> Problem | None:
    """A /v1 request whose ``?lang=`` is not one of the languages served is refused (400 ``bad_lang``).

    The OpenAPI document declares ``lang`` as ``en`` or ``es``; ignoring another value would
    answer a request the document calls invalid (and in a language the client did not ask for).
    """
    raw = scope.get("query_string", b"")
    if b"lang=" not in raw or not str(scope.get("path", "")).startswith("/v1/"):
        return None
    values = parse_qs(raw.decode("latin-1"), keep_blank_values=True).get("lang", [])
    if all(value in ("en", "es") for value in values):
        return None
    return Problem(400, "bad_lang", "lang is 'en' or 'es'")


def problem_response(problem: Problem, instance: str = "", scope: Scope | None = None) -> JSONResponse:
    """Render ``problem`` as RFC 9457 JSON, its ``detail`` in the request's language where one exists.

    A Spanish-speaking client (``?lang=es`` or ``Accept-Language: es``) gets the catalogue's
    sentence for the code as ``detail`` (the English detail's particulars, such as a version,
    travel in the extension members); ``Content-Language`` says the language of ``detail``.
    """
    language = request_language(scope)
    localized = sentence(problem.code, language) if language != "en" else None
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + problem.code,
        "title": CODE_TITLES.get(problem.code) or TITLES.get(problem.status, "Error"),
        "status": problem.status,
        "detail": localized or problem.detail,
        "code": problem.code,
    }
    if instance:
        body["instance"] = instance
    body.update(problem.extra)
    headers = {**problem.headers, "Content-Language": language if localized else "en"}
    return JSONResponse(body, status_code=problem.status, media_type="application/problem+json", headers=headers)


def problem_from_rpc(error: grpc.aio.AioRpcError) -> Problem:
    """Translate a failed gRPC call into the matching HTTP problem."""
    code = error.code()
    detail = error_detail_from_metadata(error.trailing_metadata())
    if detail is None:
        # CANCELLED without details: the service cut the call short as it stopped (the gateway's
        # own cancellations never come back as an answer); retrying reaches its replacement.
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
            return Problem(503, "service_unavailable", "the rules service is not reachable", headers=_retry_soon())
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return Problem(504, "timeout", "the rules service did not answer in time")
        return Problem(502, "upstream_error", f"rules service failed: {code.name}")
    status = CODE_STATUS.get(detail.code, GRPC_STATUS.get(code, 502))
    if code == grpc.StatusCode.INTERNAL:
        status = 500
    extra: dict[str, Any] = {}
    if detail.HasField("current_version"):
        extra["current_version"] = detail.current_version
    headers = _retry_soon() if status == 503 else None
    return Problem(status, detail.code, detail.message, headers=headers, **extra)


def _retry_soon() -> dict[str, str]:
    return {"Retry-After": str(RETRY_AFTER_UNAVAILABLE)}
