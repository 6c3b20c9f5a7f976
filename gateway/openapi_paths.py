"""The ``paths`` of the OpenAPI document, derived from the application's routes.

Every route the app serves (``include_in_schema``) becomes an operation with a stable
``operationId`` and a tag, so routes added later are documented without touching this
module.  Routes this module knows get their exact request and response messages from
:data:`OPERATIONS` (keyed by the handler's name); any other route gets an operation from
its path, method and docstring, answering JSON or problem+json.
"""

from __future__ import annotations

import re
from typing import Any

from gateway.route_table import RouteInfo

PROBLEM = "chaiwala.v1.Problem"
MAX_AFTER = 2**31
# A version or event index in ASCII digits from 0 to MAX_AFTER (2147483648), leading zeros allowed.
COUNTER = (
    "(?:[0-9]{1,9}|[01][0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}"
    "|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-8])"
)
TAGS = [
    {"name": "Game types", "description": "The games this server plays"},
    {"name": "Games", "description": "Create games and read them as a seat or a spectator"},
    {"name": "Moves", "description": "Legal moves and submitting moves"},
    {"name": "Events", "description": "The event log, live streams and stream tickets"},
    {"name": "Operators", "description": "Replays and admin calls"},
    {"name": "Tournaments", "description": "Tournaments, leaderboards and players' ratings"},
    {"name": "Webhooks", "description": "Subscriptions to events and their deliveries (operators)"},
    {"name": "Matchmaking", "description": "Quick play: tickets that seat a player with others wanting the same game"},
    {"name": "Identity", "description": "Guest sessions, the caller's player identity, the guest issuer's keys"},
    {"name": "Notifications", "description": "Web Push subscriptions, the VAPID key and players' preferences"},
    {"name": "Operations", "description": "Health, readiness and metrics"},
]
# Last path segment -> tag, for routes under /v1/games/{game_id}/...
SEGMENT_TAGS = {
    "legal-moves": "Moves",
    "moves": "Moves",
    "events": "Events",
    "stream-tickets": "Events",
    "replay": "Operators",
    "abort": "Operators",
}


def _ref(full_name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{full_name}"}


def _json(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(full_name: str, required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {"application/json": {"schema": _ref(full_name)}}}


GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
# The live stream (Accept: text/event-stream) is specified in /asyncapi.json, not here: a second media
# type would type every answer of this operation as `GameEvent[] | string` in generated clients.
EVENTS_200 = {
    "description": "The events after the resume point, oldest first. With `Accept: text/event-stream` the "
    "answer is instead the game's live stream (Server-Sent Events), specified in /asyncapi.json.",
    "content": {"application/json": {"schema": {"type": "array", "items": _ref("chaiwala.v1.GameEvent")}}},
}
EVENT_PARAMETERS = [
    {
        "name": "after",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 0, "maximum": MAX_AFTER},
    },
    {
        "name": "ticket",
        "in": "query",
        "required": False,
        "description": "a stream ticket (POST .../stream-tickets) in place of a bearer, for EventSource; "
        "never together with an Authorization header (400 ticket_and_bearer): send one credential",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    },
    {
        "name": "Last-Event-ID",
        "in": "header",
        "required": False,
        "description": "an SSE event id, '<version>:<index>' (or '<version>'), each from 0 to 2147483648",
        "schema": {"type": "string", "pattern": f"^{COUNTER}(:{COUNTER})?$"},
    },
]
INCLUDE = {
    "name": "include",
    "in": "query",
    "required": False,
    "description": "legal_moves: the answer carries the bearer seat's legal moves as `legal_moves` (as GET "
    "legal-moves prints them) while the game is active, so a client plays on without another read; "
    "anything else is 400 bad_include",
    "schema": {"type": "string", "enum": ["legal_moves"]},
}
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "schema": {"type": "string", "maxLength": 128},
}

# By handler name: operationId, summary and the exact messages of the routes known here.
OPERATIONS: dict[str, dict[str, Any]] = {
    "game_types": {
        "operationId": "listGameTypes",
        "summary": "The games this server plays",
        "ok": {"200": _json({"type": "array", "items": _ref("chaiwala.v1.GameType")})},
        "problems": [],
    },
    "create_game": {
        "operationId": "createGame",
        "summary": "Create a game (operator API key when keys are configured)",
        "requestBody": _body("chaiwala.v1.CreateGameBody"),
        "ok": {"201": _json(_ref("chaiwala.v1.CreateGameResponse"), "created")},
        "problems": [400, 401, 403, 413, 415, 503],
    },
    "get_game": {
        "operationId": "getGame",
        "summary": "The game as the bearer's seat (or a spectator) may see it",
        "parameters": [INCLUDE],
        "ok": {"200": _json(_ref("chaiwala.v1.Game"))},
        "problems": [400, 401, 404],
    },
    "legal_moves": {
        "operationId": "listLegalMoves",
        "summary": "Every legal move of the bearer's seat now",
        "ok": {"200": _json(_ref("chaiwala.v1.LegalMoves"))},
        "problems": [401, 403, 404],
    },
    "submit_moves": {
        "operationId": "submitMoves",
        "summary": "Submit one move, or several applied atomically",
        "parameters": [IDEMPOTENCY_KEY, INCLUDE],
        "requestBody": _body("chaiwala.v1.SubmitMovesBody"),
        "ok": {"200": _json(_ref("chaiwala.v1.SubmitMovesResponse"))},
        "problems": [400, 401, 403, 404, 409, 413, 415, 422, 428],
    },
    "events": {
        "operationId": "listEvents",
        "summary": "Events after a version; a live SSE stream with Accept: text/event-stream",
        "externalDocs": {"description": "The live stream: the AsyncAPI document", "url": "/asyncapi.json"},
        "parameters": EVENT_PARAMETERS,
        "ok": {"200": EVENTS_200},
        "problems": [400, 401, 404],
    },
    "create_stream_ticket": {
        "operationId": "createStreamTicket",
        "summary": "A short-lived, read-only ticket of the bearer's seat for opening an event stream",
        "ok": {"201": _json(_ref("chaiwala.v1.StreamTicket"), "created")},
        "problems": [401, 403, 404],
    },
    "replay": {
        "operationId": "getReplay",
        "summary": "Everything needed to recompute the game (API key while it is active)",
        "ok": {"200": _json(_ref("chaiwala.v1.Replay"))},
        "problems": [401, 403, 404],
    },
    "abort": {
        "operationId": "abortGame",
        "summary": "Abort an active game (operator API key)",
        "requestBody": _body("chaiwala.v1.AbortGameBody", required=False),
        "ok": {"200": _json(_ref("chaiwala.v1.Game"))},
        "problems": [400, 401, 403, 404, 409, 413, 415],
    },
    "healthz": {"operationId": "getHealth", "summary": "Liveness", "ok": {"200": {"description": "OK"}}},
    "readyz": {
        "operationId": "getReadiness",
        "summary": "Readiness: every rules service serving",
        "ok": {"200": {"description": "OK"}, "503": {"description": "not ready"}},
    },
    "prometheus": {"operationId": "getMetrics", "summary": "Prometheus metrics", "ok": {"200": {"description": "OK"}}},
}


def _problems(statuses: list[int]) -> dict[str, Any]:
    problem = {"content": {"application/problem+json": {"schema": _ref(PROBLEM)}}}
    return {str(status): {"description": "problem", **problem} for status in statuses}


def tag_of(path: str) -> str:
    """The tag of a route: by its last segment under a game, else by its area."""
    segments = [s for s in path.split("/") if s]
    if segments[1:2] == ["matchmaking"] or path == "/v1/me/tickets":
        return "Matchmaking"
    if segments[1:2] == ["push"] or segments[2:3] in (["push-subscriptions"], ["preferences"]):
        return "Notifications"
    if segments[:1] == [".well-known"] or segments[1:2] in (["sessions"], ["me"]):
        return "Identity"
    if segments[:1] != ["v1"]:
        return "Operations"
    if segments[1:2] == ["game-types"]:
        return "Game types"
    if segments[1:2] in (["tournaments"], ["ratings"], ["players"]):
        return "Tournaments"
    if segments[1:2] == ["webhooks"]:
        return "Webhooks"
    return SEGMENT_TAGS.get(segments[-1], "Games")


def operation_id(name: str) -> str:
    """A handler's name in lowerCamelCase (``create_game`` -> ``createGame``)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _path_parameters(path: str) -> list[dict[str, Any]]:
    names = re.findall(r"{([^}:]+)(?::[^}]*)?}", path)
    return [{**GAME_ID, "name": name} for name in names]


def _generic(route: RouteInfo, method: str) -> dict[str, Any]:
    """An operation for a route this module does not know: JSON in (for POST), JSON or problem+json out."""
    doc = (getattr(route.endpoint, "__doc__", None) or route.name).strip().splitlines()[0]
    answer = {"application/json": {"schema": {}}, "application/problem+json": {"schema": _ref(PROBLEM)}}
    spec: dict[str, Any] = {
        "operationId": operation_id(route.name) + ("" if len(route.methods) == 1 else method.title()),
        "summary": doc,
        "responses": {"default": {"description": "the answer, or a problem", "content": answer}},
    }
    if method in ("POST", "PUT", "PATCH"):
        spec["requestBody"] = {"required": False, "content": {"application/json": {"schema": {"type": "object"}}}}
    return spec


def operation(route: RouteInfo, method: str) -> dict[str, Any]:
    """The OpenAPI operation of ``method`` on ``route``."""
    known = OPERATIONS.get(route.name)
    if known is None:
        spec = _generic(route, method)
    else:
        spec = {key: value for key, value in known.items() if key not in ("ok", "problems", "parameters")}
        spec["responses"] = {**known["ok"], **_problems(known.get("problems", []))}
    parameters = _path_parameters(route.path) + list((known or {}).get("parameters", []))
    if parameters:
        spec["parameters"] = parameters
    return {**spec, "tags": [tag_of(route.path)]}


def paths_for(routes: list[RouteInfo]) -> dict[str, Any]:
    """``paths`` for every documented route and method."""
    paths: dict[str, Any] = {}
    for route in routes:
        if not route.include_in_schema:
            continue
        for method in route.methods:
            paths.setdefault(route.path, {})[method.lower()] = operation(route, method)
    return paths


# The listing of a player's games hands out base64url page tokens (services/lobby/mine.py).
PAGE_TOKEN = {"type": "string", "maxLength": 256, "pattern": "^[A-Za-z0-9_-]*$"}


def constrain_parameters(paths: dict[str, Any], game_types: list[str]) -> None:
    """Path ids as the server reads them: a game id is ``<game type>-<24 hex digits>`` of a game served
    (services.filing.keys.game_type_of; anything else is 404 game_not_found), a ``game_type`` in a path
    is one of the games served (404 unknown_game_type otherwise), and a player's page token is base64url."""
    if not game_types:
        return
    game_id = {"type": "string", "pattern": f"^({'|'.join(game_types)})-[0-9a-f]{{24}}$",
               "description": "The game's id, `<game_type>-<24 hex digits>`."}  # fmt: skip
    for path, item in paths.items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter["name"] == "game_id":
                    parameter["schema"] = dict(game_id)
                elif parameter.get("in") == "path" and parameter["name"] == "game_type":
                    parameter["schema"] = {"type": "string", "enum": list(game_types)}
                elif path == "/v1/me/games" and parameter["name"] == "page_token":
                    parameter["schema"] = dict(PAGE_TOKEN)
