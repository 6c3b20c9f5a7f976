"""The AsyncAPI 3.0 document of the live event streams (``GET /asyncapi.json``).

Two Server-Sent-Events channels: a game's stream (``GET /v1/games/{game_id}/events`` with
``Accept: text/event-stream``, :mod:`gateway.fanout`) and a player's stream (``GET /v1/me/events``,
specified here for the engineer building it).  A message's name is the SSE ``event:`` field and
its payload the JSON of the ``data:`` field; the payload schemas are the OpenAPI document's own
components, copied by name (``GameEvent`` and everything it references), so the REST events and
the live ones cannot differ.  AsyncAPI schemas are JSON Schema draft 07 with a string
``discriminator``: the only rewriting the copy needs.
"""

from __future__ import annotations

import copy
from typing import Any

from gateway.asyncapi_player import PLAYER_MESSAGES, PLAYER_SCHEMAS, player_channel
from gateway.openapi_exact import closure, objects
from gateway.openapi_paths import COUNTER
from gateway.routes import LANGUAGES

GAME_EVENT = "chaiwala.v1.GameEvent"
STREAM_ERROR = "chaiwala.v1.StreamError"
SSE_ID = "An SSE event id, '<version>:<index>' (each from 0 to 2147483648)."
ERROR_CODES = ["slow_consumer", "shutting_down", "service_unavailable", "too_many_streams", "internal"]


def _refs_closure(schemas: dict[str, Any], roots: list[str]) -> dict[str, Any]:
    """``roots`` and every component they reference, as AsyncAPI schemas (discriminator as a string)."""
    wanted = closure(roots, schemas)
    return {name: _draft07(copy.deepcopy(schemas[name])) for name in sorted(wanted)}


def _draft07(node: Any) -> Any:
    for found in objects(node):
        discriminator = found.get("discriminator")
        if isinstance(discriminator, dict):
            found["discriminator"] = discriminator["propertyName"]
    return node


def _message(name: str, summary: str, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "title": name,
        "summary": summary,
        "contentType": "application/json",
        "payload": payload,
        **extra,
    }


STREAM_ERROR_SCHEMA = {
    "type": "object",
    "description": "Why a stream stops early. The stream ends after it (with `end` too, except on "
    "`shutting_down`, where an EventSource should reconnect, with Last-Event-ID, to another gateway).",
    "properties": {
        "code": {"type": "string", "description": "A stable machine code.", "examples": ERROR_CODES},
        "detail": {"type": "string", "description": "What happened, in words."},
        "last_event_id": {
            "type": "string",
            "description": "slow_consumer only: the id of the last event this client got; resume after it.",
        },
    },
    "required": ["code", "detail"],
    "additionalProperties": False,
}
END_SCHEMA = {
    "type": "object",
    "description": "The stream is over (the game finished or was aborted, or an error came first): do not reconnect.",
    "properties": {},
    "additionalProperties": False,
}


def _game_channel() -> dict[str, Any]:
    return {
        "address": "/v1/games/{game_id}/events",
        "title": "A game's live events",
        "description": (
            "Open with `GET /v1/games/{game_id}/events` and `Accept: text/event-stream`. First the events "
            "after the resume point (history), then each event live as moves are made, redacted for the "
            "viewer: a seat (`Authorization: Bearer <seat token>`, or `?ticket=` for an EventSource, which "
            "cannot send headers: POST /v1/games/{game_id}/stream-tickets exchanges a seat token for a "
            "short-lived read-only ticket; a token never goes in a URL) or a spectator (no credential). "
            "Every `game_event` has an id `<version>:<index>`; reconnect with `Last-Event-ID` (an EventSource "
            "does so by itself) or `?after=<version>` to resume with nothing lost or repeated. `?lang=en|es` "
            "(or Accept-Language) chooses the language of each event's `text`. The stream opens with a `retry` "
            "field (3000 ms); a `: ping` comment every 15 seconds keeps idle connections open. A ticket stays "
            "good while a stream it opened is open and a minute after it closed, so an EventSource reconnects "
            "with the same URL. The stream ends with `end` when the game is over, and "
            "with `error` (then `end`) when it cannot go on. Refusals before the stream starts are "
            "application/problem+json answers, as in the OpenAPI document (400 bad_after / "
            "bad_last_event_id / credential_in_url, 401, 404, 503 too_many_streams with Retry-After)."
        ),
        "parameters": {"game_id": {"description": "The game's id, `<game_type>-<hex>`."}},
        "messages": {
            "gameEvent": {"$ref": "#/components/messages/gameEvent"},
            "end": {"$ref": "#/components/messages/end"},
            "error": {"$ref": "#/components/messages/error"},
        },
        "bindings": {"http": {"bindingVersion": "0.3.0"}},
    }


def _receive(channel: str, messages: list[str], summary: str, query: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": "receive",
        "channel": {"$ref": f"#/channels/{channel}"},
        "summary": summary,
        "messages": [{"$ref": f"#/channels/{channel}/messages/{name}"} for name in messages],
        "bindings": {"http": {"method": "GET", "query": query, "bindingVersion": "0.3.0"}},
    }


TICKET = {"type": "string", "maxLength": 128, "description": "A stream ticket, in place of a bearer."}
GAME_QUERY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "after": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**31,
            "description": "Resume after this version (when no Last-Event-ID is sent).",
        },
        "ticket": TICKET,
        "lang": {"type": "string", "enum": list(LANGUAGES), "description": "Language of the events' text."},
    },
}


def build_asyncapi(openapi: dict[str, Any]) -> dict[str, Any]:
    """The AsyncAPI document of both streams, sharing ``openapi``'s schemas."""
    schemas = _refs_closure(openapi["components"]["schemas"], [GAME_EVENT, "chaiwala.v1.GameResult"])
    schemas.update({STREAM_ERROR: STREAM_ERROR_SCHEMA, "chaiwala.v1.StreamEnd": END_SCHEMA, **PLAYER_SCHEMAS})
    id_header = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": f"^{COUNTER}:{COUNTER}$", "description": SSE_ID}},
    }
    messages = {
        "gameEvent": _message(
            "game_event",
            "One event of the game, as the viewer may see it (the same GameEvent as GET .../events returns).",
            {"$ref": f"#/components/schemas/{GAME_EVENT}"},
            headers=id_header,
            correlationId={"description": SSE_ID, "location": "$message.header#/id"},
        ),
        "end": _message(
            "end", "The stream is over: do not reconnect.", {"$ref": "#/components/schemas/chaiwala.v1.StreamEnd"}
        ),
        "error": _message(
            "error", "The stream stops early, and why.", {"$ref": f"#/components/schemas/{STREAM_ERROR}"}
        ),
        **PLAYER_MESSAGES,
    }
    return {
        "asyncapi": "3.0.0",
        "id": "urn:chaiwala:live-events",
        "info": {
            "title": "Chaiwala live events",
            "version": openapi["info"]["version"],
            "description": "Server-Sent Events (text/event-stream) of the Chaiwala gateway. Each message is one SSE "
            "event: its name is the `event:` field, its payload the JSON in `data:`, and `id:` (where given) the "
            "resume point for Last-Event-ID. The REST side is in /openapi.json.",
        },
        "defaultContentType": "application/json",
        "servers": {
            "gateway": {
                "host": "{host}",
                "protocol": "http",
                "description": "The gateway serving this document (the same host as /openapi.json).",
                "variables": {"host": {"default": "localhost:8000", "description": "host[:port] of the gateway"}},
                "security": [{"$ref": "#/components/securitySchemes/bearer"}],
            }
        },
        "channels": {"gameEvents": _game_channel(), "playerEvents": player_channel()},
        "operations": {
            "receiveGameEvents": _receive(
                "gameEvents", ["gameEvent", "end", "error"], "Follow one game live", GAME_QUERY
            ),
            "receivePlayerEvents": _receive(
                "playerEvents",
                ["gameStarted", "yourTurn", "gameFinished", "invited", "matchFound", "end", "error"],
                "Follow everything that concerns the bearer player",
                {"type": "object", "properties": {"ticket": TICKET}},
            ),
        },
        "components": {
            "schemas": schemas,
            "messages": messages,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "A seat, player or operator token."},
            },
        },
    }
