"""The OpenAPI document, derived from the proto descriptors so REST and gRPC cannot drift.

Every schema under ``components`` is generated from a message descriptor; the paths
(:mod:`gateway.openapi_paths`) come from the application's own routes and only name which
message each request and response carries.  Integer formats and bounds follow the proto
types; payloads tagged with ``@type`` are ``oneOf`` unions with a ``discriminator``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from chaiwala.identity.v1 import identity_pb2
from chaiwala.rating.v1 import rating_pb2
from chaiwala.tournament.v1 import tournament_pb2
from chaiwala.v1 import annotations_pb2, matchmaking_pb2, notify_pb2, rest_pb2, rules_pb2, tables_pb2, webhooks_pb2
from gateway.openapi_comments import proto_comments
from gateway.openapi_director import EXTERNAL_ID, director_paths
from gateway.openapi_exact import (
    INT32,
    UINT32,
    always_present,
    declared,
    is_union,
    mark_required,
    packed_union,
    relax_integers,
    request_side,
    string_enum,
    union_schema,
)
from gateway.openapi_identity import identity_paths
from gateway.openapi_lifecycle import lifecycle_paths, listing_operation
from gateway.openapi_matchmaking import matchmaking_paths
from gateway.openapi_operations import HEADERS, add_headers, describe_operations
from gateway.openapi_paths import GAME_ID, TAGS, constrain_parameters, paths_for
from gateway.openapi_tables import table_paths
from gateway.route_table import RouteInfo
from services.common.error_catalogue import catalogue
from services.fairness.seeding import SEED_HEX_PATTERN
from services.games.lifecycle import ON_TIMEOUT
from services.tournament.creation import MAX_ENTRANTS, MAX_ROUNDS
from services.tournament.model import FORMATS

INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
UINT64 = {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_DOUBLE: {"type": "number"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number"},
    FieldDescriptor.TYPE_INT32: INT32,
    FieldDescriptor.TYPE_SINT32: INT32,
    FieldDescriptor.TYPE_SFIXED32: INT32,
    FieldDescriptor.TYPE_UINT32: UINT32,
    FieldDescriptor.TYPE_FIXED32: UINT32,
    FieldDescriptor.TYPE_INT64: INT64,
    FieldDescriptor.TYPE_SINT64: INT64,
    FieldDescriptor.TYPE_SFIXED64: INT64,
    FieldDescriptor.TYPE_UINT64: UINT64,
    FieldDescriptor.TYPE_FIXED64: UINT64,
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}
WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    # proto3 JSON prints a FieldMask as one string of comma-separated lowerCamelCase paths.
    "google.protobuf.FieldMask": {"type": "string"},
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
REQUIRED: dict[str, list[str]] = {
    "chaiwala.v1.CreateGameBody": ["game_type", "players"],
    "chaiwala.v1.JoinGameBody": ["name"],
    "chaiwala.tournament.v1.CreateTournamentBody": ["game_type", "format", "table_size", "entrants"],
    "chaiwala.tournament.v1.EntrantSpec": ["external_id"],
    "chaiwala.v1.CreateWebhookRequest": ["url", "events"],
    "chaiwala.v1.CreateTicketRequest": ["game_type", "player_counts"],
}
EXACTLY_ONE: dict[str, list[str]] = {"chaiwala.v1.SubmitMovesBody": ["move", "moves"]}
# The limits the services check on request fields, as JSON Schema keywords (the values are the
# services' constants: services/lobby/seats.py, services/common/service.py and fairness/seeding.py).
# Names must also be printable (str.isprintable), which the descriptions say: a pattern for it
# would list some 700 Unicode ranges.
MAX_PLAYER_NAME, MAX_INVITE, MAX_MOVES_PER_SUBMIT, MAX_CLIENT_SEED = 64, 128, 200, 64
# An operator's 256-bit seed (services/fairness/seeding.py); "" is "not given", as proto3 has it.
SEED_HEX_FIELD = f"^$|{SEED_HEX_PATTERN}"
PRINTABLE = "printable characters only (no control, format or separator characters but the space)"
NAME = (
    "a display name: at least one visible character; spaces (the no-break space too), ZWJ/ZWNJ and at most "
    "3 combining marks per character allowed; no control or other format characters; not 'You', 'Tú' or "
    "'Usted' (any case), which sentences use for their reader"
)
FIELD_LIMITS: dict[tuple[str, str], dict[str, Any]] = {
    ("chaiwala.v1.PlayerSpec", "name"): {"maxLength": MAX_PLAYER_NAME, "description": NAME},
    ("chaiwala.v1.PlayerSpec", "invite"): {"maxLength": MAX_INVITE, "description": PRINTABLE},
    ("chaiwala.v1.JoinGameBody", "name"): {"minLength": 1, "maxLength": MAX_PLAYER_NAME, "description": NAME},
    ("chaiwala.v1.JoinGameBody", "invite"): {"maxLength": MAX_INVITE, "description": PRINTABLE},
    ("chaiwala.v1.CreateGameBody", "players"): {"minItems": 1},
    ("chaiwala.v1.CreateGameBody", "client_seed"): {"maxLength": MAX_CLIENT_SEED, "description": PRINTABLE},
    ("chaiwala.v1.CreateGameBody", "seed_hex"): {"pattern": SEED_HEX_FIELD},
    ("chaiwala.v1.CreateGameBody", "visibility"): {"enum": ["", "public", "private"]},
    ("chaiwala.v1.CreateGameBody", "on_timeout"): {"enum": ["", "bot", "resign", "abort"]},
    ("chaiwala.v1.SubmitMovesBody", "moves"): {"minItems": 1, "maxItems": MAX_MOVES_PER_SUBMIT},
    # Tournaments (services/tournament/creation.py) and webhooks (services/webhook/rpcs.py).
    ("chaiwala.tournament.v1.CreateTournamentBody", "format"): {"enum": list(FORMATS)},
    ("chaiwala.tournament.v1.CreateTournamentBody", "entrants"): {"minItems": 2, "maxItems": MAX_ENTRANTS},
    ("chaiwala.tournament.v1.CreateTournamentBody", "rounds"): {"minimum": 1, "maximum": MAX_ROUNDS},
    ("chaiwala.tournament.v1.CreateTournamentBody", "on_timeout"): {"enum": ["", *ON_TIMEOUT]},
    ("chaiwala.tournament.v1.CreateTournamentBody", "seed_hex"): {"pattern": SEED_HEX_FIELD},
    ("chaiwala.tournament.v1.EntrantSpec", "external_id"): {"pattern": EXTERNAL_ID["pattern"]},
    ("chaiwala.tournament.v1.EntrantSpec", "name"): {"maxLength": MAX_PLAYER_NAME, "description": NAME},
    ("chaiwala.v1.CreateWebhookRequest", "events"): {"minItems": 1},
    # Quick play (services/matchmaking/tickets.py).
    ("chaiwala.v1.CreateTicketRequest", "player_counts"): {"minItems": 1, "maxItems": 8},
    ("chaiwala.v1.CreateTicketRequest", "bots_after_seconds"): {"maximum": 3600},
    ("chaiwala.identity.v1.CreateSessionRequest", "name"): {"maxLength": MAX_PLAYER_NAME, "description": PRINTABLE},
}
# Answer fields' formats where the proto says only "string" (RFC 3339 instants the services print).
FIELD_FORMATS = {("chaiwala.identity.v1.MyGame", name): {"format": "date-time"}
                 for name in ("created_at", "last_activity_at", "deadline")}  # fmt: skip
# Request fields whose value is one of the game types served.
GAME_TYPE_FIELDS = {
    ("chaiwala.v1.CreateGameBody", "game_type"),
    ("chaiwala.tournament.v1.CreateTournamentBody", "game_type"),
    ("chaiwala.v1.CreateTicketRequest", "game_type"),
}
# Envelope fields whose game payload is one element of legal-moves: it may carry a sentence.
# Moves posted back are typed the same, so an element of legal-moves can be sent as is.
LEGAL_MOVE_FIELDS = {
    ("chaiwala.v1.LegalMoves", "moves"),
    ("chaiwala.v1.SubmitMovesBody", "move"),
    ("chaiwala.v1.SubmitMovesBody", "moves"),
}
TYPE_URL_PREFIX = "type.googleapis.com/"
TEXT_PROPERTY = {"type": "string", "description": "the move in words, for the seat (ignored when posted back)"}
COSTS_PROPERTY = {
    "type": "array",
    "items": {"$ref": "#/components/schemas/chaiwala.v1.Cost"},
    "description": "what the move costs its seat, [] for nothing (ignored when posted back)",
}


def _ref(full_name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{full_name}"}


class SchemaBuilder:
    """Collects JSON schemas for messages and everything they reference."""

    def __init__(self, game_types: list[str]) -> None:
        self.game_types = game_types
        self.schemas: dict[str, dict[str, Any]] = {}
        # Per message, the fields its printed JSON always carries (openapi_exact.mark_required).
        self.present: dict[str, list[str]] = {}
        self.comments = proto_comments()

    def game_payload(self, kind: str, packed_only: bool, legal: bool = False) -> dict[str, Any]:
        """One of the games' ``kind`` message (Options/Move/State/Event).

        In responses, and in the move bodies (which post back elements of legal-moves),
        the payload names its type in ``@type``: a ``oneOf`` of the games' messages with
        that exact type URL, so a discriminator on ``@type`` tells them apart.  Options in
        a create body may leave ``@type`` out (the game type is in the body).
        """
        names = [f"chaiwala.{game}.v1.{kind}" for game in self.game_types]
        if not names:
            return {"type": "object"}
        suffix = "Legal" if legal else "Packed"
        packed = {TYPE_URL_PREFIX + name: self._packed(name, suffix) for name in names}
        variants = [_ref(component) for component in packed.values()]
        union: dict[str, Any] = {
            "oneOf": variants,
            "discriminator": {
                "propertyName": "@type",
                "mapping": {url: _ref(component)["$ref"] for url, component in packed.items()},
            },
        }
        if packed_only:
            return {**union, "description": f"the game's own {kind} message, with its @type"}
        plain = [_ref(name) for name in names]
        return {"anyOf": plain + variants, "description": f"the game's own {kind} message (@type optional)"}

    def _packed(self, full_name: str, suffix: str) -> str:
        """Component name of ``full_name`` as printed inside an ``Any`` (with ``@type``; legal moves add ``text``)."""
        packed_name = f"{full_name}.{suffix}"
        if packed_name not in self.schemas:
            plain = self.schemas[full_name]
            type_url = {
                "type": "string",
                "const": TYPE_URL_PREFIX + full_name,
                "description": "The type URL naming the game message this is (proto3 JSON of an Any).",
            }
            extra = {"text": TEXT_PROPERTY, "costs": COSTS_PROPERTY} if suffix == "Legal" else {}
            if extra:
                self.add(rules_pb2.Cost.DESCRIPTOR)
            if "oneOf" in plain:
                self.schemas[packed_name] = packed_union(plain, {"@type": type_url, **extra})
                return packed_name
            self.schemas[packed_name] = {
                **plain,
                "properties": {"@type": type_url, **plain["properties"], **extra},
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
        properties = {field.name: self._described(descriptor.full_name, field) for field in descriptor.fields}
        comment = self.comments.get(descriptor.full_name, "")
        if is_union(descriptor):
            kinds = ", ".join(properties)
            return union_schema(properties, f"{comment} Exactly one kind is set: one of {kinds}.".strip())
        self.present[descriptor.full_name] = always_present(descriptor)
        schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
        notes, forbidden = ([comment] if comment else []), []
        if descriptor.full_name in REQUIRED:
            schema["required"] = REQUIRED[descriptor.full_name]
        if descriptor.full_name in EXACTLY_ONE:
            group = EXACTLY_ONE[descriptor.full_name]
            notes.append(f"Exactly one of {', '.join(group)} is sent.")
            forbidden += [*_pairs(group), {"not": {"anyOf": [{"required": [name]} for name in group]}}]
        oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
        if oneofs:
            listed = "; ".join(f"{o.name}: one of {', '.join(f.name for f in o.fields)}" for o in oneofs)
            notes.append(f"At most one field per group is set ({listed}).")
            forbidden += [pair for o in oneofs for pair in _pairs([f.name for f in o.fields])]
        if forbidden:
            # As a `not`, which validators apply and client generators leave alone (a oneOf here
            # would turn every message with a proto oneof into a union type).
            schema["not"] = {"anyOf": forbidden}
        if notes:
            schema["description"] = " ".join(notes)
        return schema

    def _described(self, owner: str, field: FieldDescriptor) -> dict[str, Any]:
        """A field's schema with its description: the field's proto comment, else its message's or enum's."""
        schema = self._field(owner, field)
        words = self.comments.get(f"{owner}.{field.name}")
        target = field.message_type or field.enum_type
        if not words and target is not None:
            words = self.comments.get(target.full_name)
        if field.enum_type is not None:
            values = [
                f"{v.name}: {self.comments[f'{field.enum_type.full_name}.{v.name}']}"
                for v in field.enum_type.values
                if f"{field.enum_type.full_name}.{v.name}" in self.comments
            ]
            words = " ".join([words or "", *(f"{value}." for value in values)]).strip()
        if not words:
            return schema
        limit_words = schema.get("description")
        return {**schema, "description": f"{words} ({limit_words})" if limit_words else words}

    def _field(self, owner: str, field: FieldDescriptor) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            schema = {"type": "object", "additionalProperties": self._single(owner, value_field)}
            keys = declared(field, annotations_pb2.keys)
            return {**schema, "propertyNames": {"enum": keys}} if keys else schema
        single = self._single(owner, field)
        limits = self._limits(owner, field.name)
        if field.is_repeated:
            return {"type": "array", "items": single, **limits}
        return {**single, **limits} if limits else single

    def _limits(self, owner: str, name: str) -> dict[str, Any]:
        """The checked limits of one request field (the game type is one of the games served)."""
        if (owner, name) in GAME_TYPE_FIELDS and self.game_types:
            return {"enum": list(self.game_types)}
        return dict(FIELD_LIMITS.get((owner, name), {})) or dict(FIELD_FORMATS.get((owner, name), {}))

    def _closed(self, owner: str, field: FieldDescriptor) -> dict[str, Any] | None:
        """A string field with a closed set of values (status, kind, bot, game type, ...) as an enum."""
        if field.type != FieldDescriptor.TYPE_STRING:
            return None
        values = string_enum(owner, field, self.game_types)
        return None if values is None else {"type": "string", "enum": values}

    def _single(self, owner: str, field: FieldDescriptor) -> dict[str, Any]:
        payload = GAME_PAYLOADS.get((owner, field.name))
        if payload is not None:
            packed_only = payload != "Options" or _is_any(field)
            return self.game_payload(payload, packed_only, legal=(owner, field.name) in LEGAL_MOVE_FIELDS)
        if field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type is not None:
            return self.add(field.message_type)
        if field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
            return {"type": "string", "enum": [v.name for v in field.enum_type.values]}
        return self._closed(owner, field) or dict(SCALARS[field.type])


def _pairs(names: list[str]) -> list[dict[str, Any]]:
    """Schemas matching an object that sets two of ``names`` (forbidden for a proto oneof)."""
    return [{"required": [a, b]} for index, a in enumerate(names) for b in names[index + 1 :]]


def _is_any(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.full_name == "google.protobuf.Any"


def _problem_responses(*statuses: int) -> dict[str, Any]:
    problem = {"content": {"application/problem+json": {"schema": _ref("chaiwala.v1.Problem")}}}
    return {str(s): {"description": "problem", **problem} for s in statuses}


# Any /v1 call may be rate limited (429) or meet a store or service outage (503); a call with a
# body may be too slow sending it (408).  Both 429 and 503 carry Retry-After.
LIMIT_STATUSES = (429, 503)


def _add_limit_responses(paths: dict[str, Any]) -> None:
    for path, item in paths.items():
        if not path.startswith("/v1/"):
            continue
        for operation in item.values():
            extra = (*LIMIT_STATUSES, 408) if "requestBody" in operation else LIMIT_STATUSES
            for status, response in _problem_responses(*extra).items():
                operation["responses"].setdefault(status, response)


def _overlay_lifecycle(paths: dict[str, Any]) -> None:
    """The lobby's (and the table routes') exact messages over the operations derived from their routes."""
    exact = {path: dict(item) for path, item in {**lifecycle_paths(GAME_ID), **table_paths(GAME_ID)}.items()}
    exact.setdefault("/v1/games", {})["get"] = listing_operation()
    for path, item in {**director_paths(), **identity_paths(), **matchmaking_paths()}.items():
        exact.setdefault(path, {}).update(item)
    for path, item in exact.items():
        for method, spec in item.items():
            derived = paths.get(path, {}).get(method)
            if derived is None:
                continue
            paths[path][method] = {**spec, "operationId": derived["operationId"], "tags": derived["tags"]}


# ``?lang=`` on every /v1 call: the language of sentences (``text``) and of a problem's ``detail``.
LANG_PARAMETER = {
    "name": "lang",
    "in": "query",
    "required": False,
    "description": "en or es: the language of `text` sentences and of a problem's `detail` (the answer's "
    "Content-Language says which); wins over Accept-Language (EventSource cannot set headers); "
    "any other value is 400 bad_lang",
    "schema": {"type": "string", "enum": ["en", "es"]},
}


def _add_lang(paths: dict[str, Any]) -> None:
    for path, item in paths.items():
        if not path.startswith("/v1/"):
            continue
        for operation in item.values():
            parameters = operation.setdefault("parameters", [])
            if not any(parameter.get("name") == "lang" for parameter in parameters):
                parameters.append(dict(LANG_PARAMETER))
            # Any other lang is 400 bad_lang, so every /v1 call may answer 400.
            operation["responses"].setdefault("400", _problem_responses(400)["400"])


def _list_codes(schemas: dict[str, Any]) -> None:
    """The Problem schema's ``code`` is one of the catalogue's codes (seeds/platform/errors.yaml)."""
    code = schemas["chaiwala.v1.Problem"]["properties"]["code"]
    code["enum"] = sorted(catalogue())
    code["description"] = "a stable machine code; every code, its statuses and meaning: docs/reference/errors"


def _options_by_game_type(schemas: dict[str, Any], game_types: list[str]) -> None:
    """``game_type`` chooses the ``options`` schema: for each game, if ``game_type`` is it, ``options`` is its.

    Conditionals (``allOf`` of ``if``/``then``) rather than a ``oneOf`` of whole objects: the
    object keeps its one schema, its ``properties`` and ``additionalProperties: false``, so client
    generators still make one model of it (they ignore ``if``/``then``), while validators and
    fuzzers refuse another game's options or an unknown option field, as the server does.
    """
    for schema in schemas.values():
        properties = schema.get("properties", {})
        if "options" not in properties or "enum" not in properties.get("game_type", {}):
            continue
        rules = []
        for game in game_types:
            known = [_ref(name) for name in (f"chaiwala.{game}.v1.Options", f"chaiwala.{game}.v1.Options.Packed")]
            if all(ref["$ref"].rsplit("/", 1)[-1] in schemas for ref in known):
                rules.append(
                    {
                        "if": {"properties": {"game_type": {"const": game}}, "required": ["game_type"]},
                        "then": {"properties": {"options": {"anyOf": known}}},
                    }
                )
        if rules:
            schema["allOf"] = rules


def documented_paths(routes: list[RouteInfo]) -> dict[str, Any]:
    """The document's ``paths``: one operation per route and method, with exact messages where known."""
    paths = paths_for(routes)
    _overlay_lifecycle(paths)
    _add_limit_responses(paths)
    add_headers(paths)
    _add_lang(paths)
    describe_operations(paths, routes, proto_comments())
    return paths


def _list_game_types(paths: dict[str, Any], game_types: list[str]) -> None:
    """The listing's ``game_type`` filter is one of the games served (or empty: all of them)."""
    for parameter in paths.get("/v1/games", {}).get("get", {}).get("parameters", []):
        if parameter["name"] == "game_type" and game_types:
            parameter["schema"] = {"type": "string", "enum": ["", *game_types]}
    for parameter in paths.get("/v1/ratings/{game_type}", {}).get("get", {}).get("parameters", []):
        if parameter["name"] == "game_type" and game_types:
            parameter["schema"] = {"type": "string", "enum": list(game_types)}


def build_openapi(game_types: list[str], game_files: list[Any], routes: list[RouteInfo]) -> dict[str, Any]:
    """The whole OpenAPI 3.1 document for the gateway: schemas from the protos, paths from ``routes``."""
    builder = SchemaBuilder(game_types)
    # Games first: the envelope's payload fields refer to their schemas.
    files = [rules_pb2, rest_pb2, tables_pb2, tournament_pb2, rating_pb2, webhooks_pb2, notify_pb2, identity_pb2,
             matchmaking_pb2]  # fmt: skip
    for file in [*game_files, *(module.DESCRIPTOR for module in files)]:
        for descriptor in file.message_types_by_name.values():
            builder.add(descriptor)
    paths = documented_paths(routes)
    _list_game_types(paths, game_types)
    constrain_parameters(paths, game_types)
    sent = request_side(paths, builder.schemas)
    mark_required(builder.schemas, builder.present, sent)
    _list_codes(builder.schemas)
    _options_by_game_type(builder.schemas, game_types)
    relax_integers(builder.schemas, sent)
    return {
        "openapi": "3.1.0",
        # Relative: the document is served by the gateway it describes, whatever its address.
        "servers": [{"url": "/", "description": "the gateway serving this document"}],
        "info": {
            "title": "Chaiwala",
            "version": "1.0.0",
            "description": "Authoritative game server. Bodies are the proto3 JSON mapping of the chaiwala protos "
            "(proto field names). Errors are application/problem+json with a stable `code`.",
        },
        "tags": TAGS,
        "components": {
            "schemas": builder.schemas,
            "headers": HEADERS,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}, {}],
        "paths": paths,
    }
