"""What makes the OpenAPI document exact for client generators: closed string sets as enums,
``required`` on every field a response always carries, a game's move or event as a union of
exactly one kind, and integer bounds that read well.

Which fields a response always carries follows from how the gateway prints (``protojson.to_dict``:
proto3 JSON *with every field without presence printed*): every field without presence (plain
scalars, enums, repeated fields and maps) is always there; a field with presence (``optional``,
a member of a ``oneof``, a message) only when set, so it is required only where the server always
sets it (:data:`ALWAYS_SET`).  Messages a client sends (reachable from a request body) get no such
``required``: a client may leave defaults out.  ``tests/api_contract/test_contract_answers.py`` plays
games through the real stack and checks every ``required`` field against every answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from chaiwala.v1 import annotations_pb2
from services.bots.levels import LEVELS
from services.games.lifecycle import ON_TIMEOUT
from services.outbox.events import GAME_EVENT_TYPES, TURN_EVENT_TYPES
from services.tournament.model import FORMATS

GAME_STATUSES = ["waiting", "active", "finished", "aborted"]
VISIBILITIES = ["public", "private"]
SEED_SOURCES = ["server", "operator"]
# A seat's bot: "" for a human, else one the game offers (services.bots.roster; every game has a heuristic).
BOTS = ["", "random", "heuristic", *LEVELS]
WEBHOOK_EVENTS = [
    *GAME_EVENT_TYPES,
    *TURN_EVENT_TYPES,
    "tournament.round_started",
    "tournament.finished",
    "rating.updated",
]
# Closed string sets of fields, by (message, field); "game_type" fields take the game types served.
STRING_ENUMS: dict[tuple[str, str], list[str]] = {
    **{
        (f"chaiwala.v1.{message}", "status"): GAME_STATUSES
        for message in (
            "CreateGameResponse",
            "Game",
            "SubmitMovesResponse",
            "JoinGameResponse",
            "GameSummary",
            "Replay",
        )
    },
    **{(f"chaiwala.v1.{message}", "visibility"): VISIBILITIES for message in ("Game", "GameSummary")},
    **{(f"chaiwala.v1.{message}", "seed_source"): SEED_SOURCES for message in ("Game", "Replay")},
    **{(f"chaiwala.v1.{message}", "bot"): BOTS for message in ("PlayerSpec", "Seat", "GameSeatSummary", "ReplayMove")},
    ("chaiwala.v1.Game", "on_timeout"): list(ON_TIMEOUT),
    ("chaiwala.v1.GameEvent", "kind"): ["", "timeout", "resign", "start"],
    ("chaiwala.v1.ReplayMove", "kind"): ["", "timeout", "resign"],
    ("chaiwala.v1.GameType", "bots"): BOTS[1:],
    ("chaiwala.tournament.v1.Tournament", "status"): ["running", "finished"],
    ("chaiwala.tournament.v1.Tournament", "format"): list(FORMATS),
    ("chaiwala.tournament.v1.Tournament", "seed_source"): SEED_SOURCES,
    ("chaiwala.tournament.v1.CreateTournamentResponse", "status"): ["running", "finished"],
    ("chaiwala.tournament.v1.TournamentTable", "status"): ["pending", "playing", "finished"],
    ("chaiwala.tournament.v1.Round", "status"): ["seating", "playing", "finished"],
    ("chaiwala.tournament.v1.CreateTournamentBody", "on_timeout"): ["", *ON_TIMEOUT],
    ("chaiwala.v1.DeliveryAttempt", "outcome"): ["delivered", "failed", "refused"],
    ("chaiwala.v1.Delivery", "status"): ["pending", "delivered", "dead"],
    ("chaiwala.v1.Delivery", "event_type"): WEBHOOK_EVENTS,
    ("chaiwala.v1.CreateWebhookRequest", "events"): WEBHOOK_EVENTS,
    ("chaiwala.v1.Webhook", "events"): WEBHOOK_EVENTS,
}
GAME_TYPE_MESSAGES = (
    "chaiwala.v1.GameType:id",
    "chaiwala.v1.CreateGameResponse:game_type",
    "chaiwala.v1.Game:game_type",
    "chaiwala.v1.GameSummary:game_type",
    "chaiwala.v1.Replay:game_type",
    "chaiwala.tournament.v1.Tournament:game_type",
)
# Fields with presence that the server sets in every answer carrying their message (a Game's state is
# not one: a waiting game has none yet).
ALWAYS_SET = {
    ("chaiwala.v1.GameType", "options"),
    ("chaiwala.v1.SubmitMovesResponse", "state"),
    ("chaiwala.v1.Replay", "options"),
    ("chaiwala.v1.StreamTicket", "expires_at"),
}
# Answers the gateway prints by hand rather than from the whole message: what they always carry.
PRINTED_BY_HAND: dict[str, list[str]] = {
    # gateway.problems.problem_response: `instance` and `current_version` only when known.
    "chaiwala.v1.Problem": ["type", "title", "status", "detail", "code"],
}
# Fields the gateway drops from an answer: GET /v1/ratings/{game_type} leaves out the game type it
# names, GET legal-moves puts each of `texts` and `costs` beside its move as `text` and `costs`
# (services.legalmoves.render).
DROPPED = {
    ("chaiwala.rating.v1.Rating", "game_type"),
    ("chaiwala.v1.LegalMoves", "texts"),
    ("chaiwala.v1.LegalMoves", "costs"),
}
# What a proto's integer shows: its format and sign, not 2**32-1 (ReDoc's samples would show it).
# Fields a client sends keep their checked bounds (see relax_integers).
UINT32 = {"type": "integer", "format": "uint32", "minimum": 0}
INT32 = {"type": "integer", "format": "int32"}
UINT32_BOUNDED = {**UINT32, "maximum": 2**32 - 1, "examples": [1]}
INT32_BOUNDED = {**INT32, "minimum": -(2**31), "maximum": 2**31 - 1, "examples": [1]}
PAYLOAD_SUFFIXES = (".Packed", ".Legal")


def string_enum(owner: str, field: FieldDescriptor, game_types: list[str]) -> list[str] | None:
    """The closed set of values of a string field, if it has one: the game types served, the proto's
    own ``(chaiwala.v1.values)`` option, or :data:`STRING_ENUMS`."""
    if f"{owner}:{field.name}" in GAME_TYPE_MESSAGES and game_types:
        return list(game_types)
    return declared(field, annotations_pb2.values) or STRING_ENUMS.get((owner, field.name))


def declared(field: FieldDescriptor, option: Any) -> list[str] | None:
    """The values a field's ``(chaiwala.v1.values)`` or ``(chaiwala.v1.keys)`` option lists (a leading
    comma stands for the empty string), or None without the option."""
    options = field.GetOptions()
    if not options.HasExtension(option):
        return None
    return str(options.Extensions[option]).split(",")


def always_present(descriptor: Descriptor) -> list[str]:
    """Fields every printed ``descriptor`` carries: no presence (always printed), or always set."""
    if descriptor.full_name in PRINTED_BY_HAND:
        return PRINTED_BY_HAND[descriptor.full_name]
    return [
        field.name
        for field in descriptor.fields
        if (not field.has_presence or (descriptor.full_name, field.name) in ALWAYS_SET)
        and (descriptor.full_name, field.name) not in DROPPED
    ]


def is_union(descriptor: Descriptor) -> bool:
    """A message that is one ``oneof`` of kinds and nothing else (the games' Move and Event)."""
    oneofs = [o for o in descriptor.oneofs if not o.name.startswith("_")]
    return len(oneofs) == 1 and len(oneofs[0].fields) == len(descriptor.fields) > 1


# Another kind in a variant: nothing matches it (``not: {}``).  Spelt with ``type: null`` rather than as
# the schema ``false``: openapi-typescript then types it ``?: null`` (so an object literal with two kinds
# does not compile), and openapi-python-client, which cannot read a boolean schema, reads it as None
# (null is how proto3 JSON spells an unset field, so even a client sending it is taken right).
ABSENT = {"type": "null", "not": {}, "description": "another kind: absent"}


def union_schema(properties: dict[str, Any], description: str) -> dict[str, Any]:
    """Exactly one kind: a ``oneOf`` of objects each requiring its kind and forbidding the others
    (:data:`ABSENT`), so generated types refuse a value with no kind or with two."""
    variants = []
    for kind, schema in properties.items():
        others: dict[str, Any] = {other: dict(ABSENT) for other in properties if other != kind}
        variants.append({
            "type": "object",
            "properties": {kind: schema, **others},
            "required": [kind],
            "additionalProperties": False,
        })  # fmt: skip
    # `type: object` beside the oneOf: a discriminator mapping must name an object schema.
    return {"type": "object", "oneOf": variants, "description": description}


def packed_union(plain: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """A union as printed inside an ``Any``: each variant also carries ``@type`` (and ``extra``)."""
    variants = [
        {**variant, "properties": {**extra, **variant["properties"]}, "required": ["@type", *variant["required"]]}
        for variant in plain["oneOf"]
    ]
    return {**plain, "oneOf": variants}


def objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every object (dict) of a JSON document, ``node`` first, each before what it holds (a caller may
    change an object's values as it is handed over: the walk reads them after)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


def _refs(node: Any) -> Iterator[str]:
    for found in objects(node):
        ref = found.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.rsplit("/", 1)[-1]


def request_side(paths: dict[str, Any], schemas: dict[str, Any]) -> set[str]:
    """Components a client may send: reachable from a request body."""
    bodies = [op.get("requestBody", {}) for item in paths.values() for op in item.values()]
    return closure(list(_refs(bodies)), schemas)


def closure(roots: list[str], schemas: dict[str, Any]) -> set[str]:
    """``roots`` and every component they reference, transitively."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo.extend(_refs(schemas[name]))
    return seen


def _base(name: str) -> str:
    for suffix in PAYLOAD_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def mark_required(schemas: dict[str, Any], present: dict[str, list[str]], sent: set[str]) -> None:
    """``required`` on every answer-only component: the fields it always carries (see the module doc)."""
    for name, schema in schemas.items():
        fields = present.get(_base(name))
        if not fields or name in sent or _base(name) in sent or "properties" not in schema:
            continue
        schema["required"] = list(dict.fromkeys([*schema.get("required", []), *fields]))


def relax_integers(schemas: dict[str, Any], sent: set[str]) -> None:
    """Fields a client sends keep the bounds the server checks (with an example, so a rendered sample
    is not the bound); answer-only fields show the format and sign alone."""
    for name, schema in schemas.items():
        if name in sent or _base(name) in sent:
            for node in _integer_nodes(schema):
                bounded = UINT32_BOUNDED if node.get("format") == "uint32" else INT32_BOUNDED
                for key, value in bounded.items():
                    node.setdefault(key, value)


def _integer_nodes(node: Any) -> Iterator[dict[str, Any]]:
    integer = ("uint32", "int32")
    return (found for found in objects(node) if found.get("type") == "integer" and found.get("format") in integer)
