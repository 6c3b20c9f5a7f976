"""The OpenAPI document, derived from the proto descriptors so REST and gRPC cannot drift.

Every schema under ``components`` is generated from a message descriptor; the
paths only name which message each request and response carries.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from chaiwala.v1 import rest_pb2, rules_pb2
from gateway.openapi_lifecycle import lifecycle_paths, listing_operation

SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int32", "minimum": 0},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "format": "int32", "minimum": 0},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_SINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "additionalProperties": True,
    },
}
# Envelope fields that carry one of the games' own messages (Any or Struct on the wire).
GAME_PAYLOADS: dict[tuple[str, str], str] = {
    ("chaiwala.v1.GameType", "options"): "Options",
    ("chaiwala.v1.CreateGameRequest", "options"): "Options",
    ("chaiwala.v1.Game", "state"): "State",
    ("chaiwala.v1.LegalMoves", "moves"): "Move",
    ("chaiwala.v1.SubmitMovesRequest", "moves"): "Move",
    ("chaiwala.v1.GameEvent", "event"): "Event",
    ("chaiwala.v1.SubmitMovesResponse", "state"): "State",
    ("chaiwala.v1.ReplayMove", "move"): "Move",
    ("chaiwala.v1.Replay", "options"): "Options",
    ("chaiwala.v1.CreateGameBody", "options"): "Options",
    ("chaiwala.v1.SubmitMovesBody", "move"): "Move",
    ("chaiwala.v1.SubmitMovesBody", "moves"): "Move",
}


# Request bodies: fields a client must send, and groups of which exactly one is sent.
REQUIRED: dict[str, list[str]] = {"chaiwala.v1.CreateGameBody": ["game_type", "players"]}
EXACTLY_ONE: dict[str, list[str]] = {"chaiwala.v1.SubmitMovesBody": ["move", "moves"]}
TYPE_URL_PREFIX = "type.googleapis.com/"


def _ref(full_name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{full_name}"}


class SchemaBuilder:
    """Collects JSON schemas for messages and everything they reference."""

    def __init__(self, game_types: list[str]) -> None:
        self.game_types = game_types
        self.schemas: dict[str, dict[str, Any]] = {}

    def game_payload(self, kind: str, packed_only: bool) -> dict[str, Any]:
        """One of the games' ``kind`` message (Options/Move/State/Event).

        In responses the payload travels as ``Any``, so its JSON names its type in
        ``@type``; the packed variants require that exact type URL, which also makes
        the ``oneOf`` unambiguous.  Request bodies may send either form.
        """
        names = [f"chaiwala.{game}.v1.{kind}" for game in self.game_types]
        if not names:
            return {"type": "object"}
        packed = [_ref(self._packed(name)) for name in names]
        if packed_only:
            return {"oneOf": packed, "description": f"the game's own {kind} message, with its @type"}
        plain = [_ref(name) for name in names]
        return {"anyOf": plain + packed, "description": f"the game's own {kind} message (@type optional)"}

    def _packed(self, full_name: str) -> str:
        """Component name of ``full_name`` as printed inside an ``Any`` (with ``@type``)."""
        packed_name = f"{full_name}.Packed"
        if packed_name not in self.schemas:
            plain = self.schemas[full_name]
            type_url = {"type": "string", "const": TYPE_URL_PREFIX + full_name}
            self.schemas[packed_name] = {
                **plain,
                "properties": {"@type": type_url, **plain["properties"]},
                "required": ["@type"],
            }
        return packed_name

    def add(self, descriptor: Descriptor) -> dict[str, Any]:
        """Schema reference for ``descriptor``, generating it (and its dependencies) once."""
        name = descriptor.full_name
        if name in WELL_KNOWN:
            return dict(WELL_KNOWN[name])
        if name not in self.schemas:
            self.schemas[name] = {}  # reserve first: messages may be recursive
            self.schemas[name] = self._message(descriptor)
        return _ref(name)

    def _message(self, descriptor: Descriptor) -> dict[str, Any]:
        properties = {field.name: self._field(descriptor.full_name, field) for field in descriptor.fields}
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        if descriptor.full_name in REQUIRED:
            schema["required"] = REQUIRED[descriptor.full_name]
        if descriptor.full_name in EXACTLY_ONE:
            schema["oneOf"] = [{"required": [name]} for name in EXACTLY_ONE[descriptor.full_name]]
        oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
        if oneofs:
            groups = "; ".join(f"{o.name}: one of {', '.join(f.name for f in o.fields)}" for o in oneofs)
            schema["description"] = f"At most one field per group is set ({groups})."
        return schema

    def _field(self, owner: str, field: FieldDescriptor) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            return {"type": "object", "additionalProperties": self._single(owner, value_field)}
        single = self._single(owner, field)
        if field.is_repeated:
            return {"type": "array", "items": single}
        return single

    def _single(self, owner: str, field: FieldDescriptor) -> dict[str, Any]:
        payload = GAME_PAYLOADS.get((owner, field.name))
        if payload is not None:
            is_any = field.message_type is not None and field.message_type.full_name == "google.protobuf.Any"
            return self.game_payload(payload, packed_only=is_any)
        if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None:
            return self.add(field.message_type)
        if field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
            return {"type": "string", "enum": [v.name for v in field.enum_type.values]}
        return dict(SCALARS[field.type])


def _json_body(ref: dict[str, Any], description: str = "") -> dict[str, Any]:
    body: dict[str, Any] = {"content": {"application/json": {"schema": ref}}}
    if description:
        body["description"] = description
    return body


def _problem_responses(*statuses: int) -> dict[str, Any]:
    problem = {"content": {"application/problem+json": {"schema": _ref("chaiwala.v1.Problem")}}}
    return {str(s): {"description": "problem", **problem} for s in statuses}


def build_openapi(game_types: list[str], game_files: list[Any]) -> dict[str, Any]:
    """The whole OpenAPI 3.1 document for the gateway."""
    builder = SchemaBuilder(game_types)
    # Games first: the envelope's payload fields refer to their schemas.
    for file in [*game_files, rules_pb2.DESCRIPTOR, rest_pb2.DESCRIPTOR]:
        for descriptor in file.message_types_by_name.values():
            builder.add(descriptor)
    game_id = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
    ok = {"description": "OK"}
    paths: dict[str, Any] = {
        "/v1/game-types": {
            "get": {
                "summary": "The games this server plays",
                "responses": {"200": {**ok, **_json_body({"type": "array", "items": _ref("chaiwala.v1.GameType")})}},
            }
        },
        "/v1/games": {
            "post": {
                "summary": "Create a game (operator API key when keys are configured)",
                "requestBody": {"required": True, **_json_body(_ref("chaiwala.v1.CreateGameBody"))},
                "responses": {
                    "201": {"description": "created", **_json_body(_ref("chaiwala.v1.CreateGameResponse"))},
                    **_problem_responses(400, 401, 403, 413, 503),
                },
            }
        },
        "/v1/games/{game_id}": {
            "get": {
                "summary": "The game as the bearer's seat (or a spectator) may see it",
                "parameters": [game_id],
                "responses": {"200": {**ok, **_json_body(_ref("chaiwala.v1.Game"))}, **_problem_responses(401, 404)},
            }
        },
        "/v1/games/{game_id}/legal-moves": {
            "get": {
                "summary": "Every legal move of the bearer's seat now",
                "parameters": [game_id],
                "responses": {
                    "200": {**ok, **_json_body(_ref("chaiwala.v1.LegalMoves"))},
                    **_problem_responses(401, 404),
                },
            }
        },
        "/v1/games/{game_id}/moves": {
            "post": {
                "summary": "Submit one move, or several applied atomically",
                "parameters": [
                    game_id,
                    {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string"}},
                ],
                "requestBody": {"required": True, **_json_body(_ref("chaiwala.v1.SubmitMovesBody"))},
                "responses": {
                    "200": {**ok, **_json_body(_ref("chaiwala.v1.SubmitMovesResponse"))},
                    **_problem_responses(400, 401, 403, 404, 409, 413, 422),
                },
            }
        },
        "/v1/games/{game_id}/events": {
            "get": {
                "summary": "Events after a version; a live SSE stream with Accept: text/event-stream",
                "parameters": [
                    game_id,
                    {"name": "after", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0}},
                    {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "description": "events (JSON list, or text/event-stream whose data is one GameEvent each)",
                        "content": {
                            "application/json": {"schema": {"type": "array", "items": _ref("chaiwala.v1.GameEvent")}},
                            "text/event-stream": {"schema": {"type": "string"}},
                        },
                    },
                    **_problem_responses(400, 401, 404),
                },
            }
        },
        "/v1/games/{game_id}/replay": {
            "get": {
                "summary": "Everything needed to recompute the game (API key while it is active)",
                "parameters": [game_id],
                "responses": {
                    "200": {**ok, **_json_body(_ref("chaiwala.v1.Replay"))},
                    **_problem_responses(401, 403, 404),
                },
            }
        },
        "/v1/games/{game_id}/abort": {
            "post": {
                "summary": "Abort an active game (operator API key)",
                "parameters": [game_id],
                "requestBody": {"required": False, **_json_body(_ref("chaiwala.v1.AbortGameBody"))},
                "responses": {
                    "200": {**ok, **_json_body(_ref("chaiwala.v1.Game"))},
                    **_problem_responses(400, 401, 403, 404, 409),
                },
            }
        },
        "/healthz": {"get": {"summary": "Liveness", "responses": {"200": ok}}},
        "/readyz": {"get": {"summary": "Readiness: every rules service serving", "responses": {"200": ok, "503": ok}}},
        "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": ok}}},
    }
    paths["/v1/games"]["get"] = listing_operation()
    paths.update(lifecycle_paths(game_id))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Chaiwala",
            "version": "1.0.0",
            "description": "Authoritative game server. Bodies are the proto3 JSON mapping of the chaiwala protos "
            "(proto field names). Errors are application/problem+json with a stable `code`.",
        },
        "components": {
            "schemas": builder.schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}, {}],
        "paths": paths,
    }
