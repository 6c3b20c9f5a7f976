"""Operations' descriptions and the response headers the gateway sends, for the OpenAPI document.

A description is the route handler's docstring (what the route does, in the gateway's words),
followed by the comment of the rules service's RPC it calls when it calls one (the protos are the
source of the API's words).  Headers: ``Retry-After`` on every 429 and 503, ``RateLimit-*`` on
429 (:mod:`gateway.limits`), ``Cache-Control`` on every 2xx and 304 of ``/v1``, ``ETag`` and a
304 answer on every ``GET /v1`` read but a live stream (:mod:`gateway.conditional`).
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from gateway.route_table import RouteInfo

# Handler name -> the RulesService RPC it forwards to (its proto comment ends the description).
RPC_OF = {
    "game_types": "GetGameType",
    "create_game": "CreateGame",
    "get_game": "GetGame",
    "legal_moves": "ListLegalMoves",
    "submit_moves": "SubmitMoves",
    "events": "ListEvents",
    "create_stream_ticket": "CreateStreamTicket",
    "replay": "GetReplay",
    "abort": "AbortGame",
    "join": "JoinGame",
    "leave": "LeaveGame",
    "kick": "KickSeat",
    "start": "StartGame",
    "resign": "ResignGame",
    "list_games": "ListGames",
}


def _count(description: str, example: int) -> dict[str, Any]:
    """A header whose value is a whole number of seconds or requests."""
    return {"description": description, "schema": {"type": "integer", "minimum": 0, "examples": [example]}}


HEADERS: dict[str, Any] = {
    "Retry-After": _count("Seconds to wait before trying again.", 1),
    "RateLimit-Limit": _count("Requests allowed in the window of the limit that was reached.", 120),
    "RateLimit-Remaining": _count("Requests left in that window (0 when refused).", 0),
    "RateLimit-Reset": _count("Seconds until the window allows a request again.", 1),
    "ETag": {
        "description": "A strong validator of the answer: its digest, quoted, with -gzip, -br or -zstd before the "
        "closing quote when the answer was sent compressed. Send it back as If-None-Match to get a 304 while "
        "the answer is unchanged (compared weakly: any coding's tag of the same answer matches).",
        "schema": {"type": "string", "pattern": '^"([0-9a-f]{32}|[0-9a-f]{64})(-gzip|-br|-zstd)?"$'},
    },
    "Cache-Control": {
        "description": "How the answer may be kept: public, max-age=N for what is the same for everyone "
        "(game types, boards, rules); private, no-cache for other reads (keep it, revalidate with "
        "If-None-Match each time); no-store for writes, tickets and live streams.",
        "schema": {"type": "string"},
    },
}


NOT_MODIFIED = "not modified: If-None-Match named this answer's ETag (no body; the copy the client holds is current)"


def _header(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


def _text(docstring: str) -> str:
    """A docstring as one Markdown paragraph (reST double backquotes become code spans)."""
    return " ".join(inspect.cleandoc(docstring).split()).replace("``", "`")


def describe_operations(paths: dict[str, Any], routes: list[RouteInfo], comments: dict[str, str]) -> None:
    """Every operation gets a description: its handler's docstring and its RPC's proto comment."""
    handlers = {(route.path, method.lower()): route for route in routes for method in route.methods}
    for path, item in paths.items():
        for method, operation in item.items():
            route = handlers.get((path, method))
            words = [_text(route.endpoint.__doc__ or "")] if route is not None else []
            rpc = RPC_OF.get(route.name if route is not None else "")
            if rpc is not None and f"chaiwala.v1.RulesService.{rpc}" in comments:
                words.append(f"Rules service: {comments[f'chaiwala.v1.RulesService.{rpc}']}")
            text = " ".join(word for word in words if word) or operation.get("summary", "")
            operation.setdefault("description", re.sub(r"\s+", " ", text).strip())


def _tagged(operation: dict[str, Any]) -> bool:
    """A read answered with JSON or text only (gateway.conditional tags it), not a live stream."""
    ok = operation.get("responses", {}).get("200", {})
    return "304" in operation.get("responses", {}) and "text/event-stream" not in ok.get("content", {})


def add_not_modified(paths: dict[str, Any]) -> None:
    """Every ``GET /v1`` read but a live stream may answer 304 (:mod:`gateway.conditional`)."""
    for path, item in paths.items():
        get = item.get("get")
        if get is None or not path.startswith("/v1/") or "200" not in get.get("responses", {}):
            continue
        if "text/event-stream" in get["responses"]["200"].get("content", {}):
            continue
        get["responses"].setdefault("304", {"description": NOT_MODIFIED})


def add_headers(paths: dict[str, Any]) -> None:
    """Declare the headers each response carries (see the module doc)."""
    add_not_modified(paths)
    for path, item in paths.items():
        for operation in item.values():
            for status, response in operation.get("responses", {}).items():
                headers = response.setdefault("headers", {})
                if status in ("429", "503"):
                    headers["Retry-After"] = _header("Retry-After")
                if status == "429":
                    for name in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"):
                        headers[name] = _header(name)
                if path.startswith("/v1/") and (status.startswith("2") or status == "304"):
                    headers["Cache-Control"] = _header("Cache-Control")
                # The event lists are tagged too, but the same 200 may be a live stream, which is not.
                if status in ("200", "304") and _tagged(operation) and not path.endswith("/events"):
                    headers["ETag"] = _header("ETag")
                if not headers:
                    del response["headers"]
