"""OpenAPI paths of player identity: guest sessions, ``me`` and the guest issuer's JWKS."""

from __future__ import annotations

from typing import Any

from gateway.openapi_paths import _body, _json, _problems, _ref

PREFIX = "chaiwala.identity.v1."
# A player stream resume point: exactly services.lobby.feed.is_cursor (ASCII digits, 19 at most a half).
CURSOR_PATTERN = "^[0-9]{1,19}-[0-9]{1,19}$"
JWK_MEMBERS = ("kty", "kid", "use", "alg", "crv", "x", "y", "n", "e")
# The JWKS as served: the standard document, members a key type does not use left out.
JWKS_SCHEMA = {
    "type": "object",
    "required": ["keys"],
    "properties": {
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["kty", "kid"],
                "properties": {name: {"type": "string"} for name in JWK_MEMBERS},
            },
        }
    },
}


FEED_LIST: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "kind", "data"],
        "properties": {
            "id": {"type": "string", "description": "The cursor to resume after."},
            "kind": {
                "type": "string",
                "enum": ["game_started", "your_turn", "game_finished", "invited", "match_found"],
            },
            "data": {"type": "object", "description": "The event's data (the AsyncAPI player stream's payloads)."},
        },
    },
}
TICKET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["ticket", "expires_at"],
    "properties": {"ticket": {"type": "string"}, "expires_at": {"type": "string", "format": "date-time"}},
}


def identity_paths() -> dict[str, Any]:
    """``/v1/sessions``, ``/v1/sessions/refresh``, ``/v1/me``, ``/v1/me/games`` and ``/.well-known/jwks.json``."""
    return {
        "/v1/sessions": {
            "post": {
                "summary": "A new guest player and its player token (off where the operator turned guests off)",
                "requestBody": _body(PREFIX + "CreateSessionRequest", required=False),
                "responses": {"201": _json(_ref(PREFIX + "Session"), "created"), **_problems([400, 403, 413, 415])},
            }
        },
        "/v1/sessions/refresh": {
            "post": {
                "summary": "A fresh token for the bearer's guest player (bearer: the current, still-valid token)",
                "responses": {"200": _json(_ref(PREFIX + "Session")), **_problems([401, 403])},
            }
        },
        "/v1/me": {
            "get": {
                "summary": "Who the bearer's player token says the caller is, with their ratings",
                "responses": {"200": _json(_ref(PREFIX + "Me")), **_problems([401])},
            }
        },
        "/v1/me/games": {
            "get": {
                "summary": "The bearer player's games: their turn first, then active, waiting, ended; paged",
                "parameters": [
                    {"name": "page_size", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "page_token", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": _json(_ref(PREFIX + "MyGames")), **_problems([400, 401])},
            }
        },
        "/v1/me/events": {
            "get": {
                "summary": "The bearer player's feed: a JSON list now, or a live stream (see /asyncapi.json)",
                "description": (
                    "Everything that concerns the player across their games (game_started, your_turn, "
                    "game_finished, invited, match_found). With `Accept: text/event-stream` a live Server-Sent Events "
                    "stream specified in the AsyncAPI document (`/asyncapi.json`, channel playerEvents); "
                    "resume with Last-Event-ID or `?after=`; `?ticket=` from POST /v1/me/stream-tickets."
                ),
                "parameters": [
                    {"name": "after", "in": "query", "schema": {"type": "string", "pattern": CURSOR_PATTERN}},
                    {
                        "name": "ticket",
                        "in": "query",
                        "description": "a player stream ticket (POST /v1/me/stream-tickets) in place of a bearer; "
                        "never together with an Authorization header (400 ticket_and_bearer): send one credential",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
                    },
                ],
                "responses": {"200": _json(FEED_LIST), **_problems([400, 401])},
            }
        },
        "/v1/me/stream-tickets": {
            "post": {
                "summary": "A short-lived ticket for the bearer player's feed (for an EventSource)",
                "responses": {"201": _json(TICKET_SCHEMA, "created"), **_problems([401])},
            }
        },
        "/.well-known/jwks.json": {
            "get": {
                "summary": "The guest issuer's public keys (JWKS), to verify guest tokens",
                "security": [{}],
                "responses": {"200": _json(JWKS_SCHEMA)},
            }
        },
    }
