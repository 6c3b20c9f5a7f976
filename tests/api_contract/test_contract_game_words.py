"""The words of the served OpenAPI document: every game message and property described (from the
proto comments), and every closed set of strings a game declares (``(chaiwala.v1.values)`` and
``(chaiwala.v1.keys)``, chaiwala/v1/annotations.proto) an ``enum`` that what the engines print
stays inside.

The document is the one ``GET /openapi.json`` serves, built in process by the real gateway app (as
``tools/contract/write_documents.py`` does); the games are played by the real engines and printed
as the rules services print them (tests/api_contract/game_words.py).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from fastapi.testclient import TestClient
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from chaiwala.v1 import annotations_pb2
from gateway.app import create_app
from tests.api_contract.game_words import GAMES, printed_messages

GAME_TYPES = tuple(GAMES)


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    """The components of the OpenAPI document the gateway serves."""
    with TestClient(create_app()) as client:
        answer = client.get("/openapi.json")
    assert answer.status_code == 200
    found: dict[str, Any] = answer.json()["components"]["schemas"]
    return found


def _properties(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A component's properties; for a union (a game's Move or Event), each variant's own kind."""
    yield from schema.get("properties", {}).items()
    for variant in schema.get("oneOf", []):
        for kind in variant.get("required", []):
            if kind in variant.get("properties", {}):
                yield kind, variant["properties"][kind]


def test_every_message_and_property_of_the_protos_is_described(schemas: dict[str, Any]) -> None:
    games = [name for name in schemas if name.split(".")[1] in GAME_TYPES]
    assert len(games) > 250, "the four games' messages are in the document"
    ours = {name: schema for name, schema in schemas.items() if name.startswith("chaiwala.")}
    missing = [name for name, schema in ours.items() if not schema.get("description")]
    for name, schema in ours.items():
        missing += [f"{name}.{field}" for field, spec in _properties(schema) if not spec.get("description")]
    assert missing == [], f"{len(missing)} without a description (write the proto comment): {missing[:20]}"


def _declared_fields(descriptor: Descriptor) -> Iterator[tuple[str, FieldDescriptor]]:
    for field in descriptor.fields:
        if field.GetOptions().HasExtension(annotations_pb2.values) or field.GetOptions().HasExtension(
            annotations_pb2.keys
        ):
            yield descriptor.full_name, field


def _game_messages(game_type: str) -> list[Descriptor]:
    module = importlib.import_module(f"chaiwala.{game_type}.v1.{game_type}_pb2")
    return list(module.DESCRIPTOR.message_types_by_name.values())


def test_the_declared_closed_sets_are_the_enums_of_the_document(schemas: dict[str, Any]) -> None:
    checked = 0
    for game_type in GAME_TYPES:
        for owner, field in (pair for message in _game_messages(game_type) for pair in _declared_fields(message)):
            options = field.GetOptions()
            prop = schemas[owner]["properties"][field.name]
            if options.HasExtension(annotations_pb2.keys):
                assert prop["propertyNames"]["enum"] == options.Extensions[annotations_pb2.keys].split(","), owner
            else:
                node = prop["items"] if field.is_repeated else prop
                declared = options.Extensions[annotations_pb2.values].split(",")
                assert (node["type"], node["enum"]) == ("string", declared), (owner, field.name, node)
            checked += 1
    assert checked > 100, checked


@pytest.mark.parametrize("game_type", GAME_TYPES)
def test_every_string_the_engines_print_is_inside_the_declared_enums(game_type: str, schemas: dict[str, Any]) -> None:
    """Random and heuristic games: every view, legal move and event fits its schema (enums included)."""
    validators = {
        kind: jsonschema_rs.validator_for(
            {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": f"#/components/schemas/chaiwala.{game_type}.v1.{kind}",
                "components": {"schemas": schemas},
            }
        )
        for kind in ("State", "Move", "Event")
    }
    seen: dict[str, int] = {}
    for game in GAMES[game_type]:
        for name, printed in printed_messages(game_type, game):
            kind = name.rsplit(".", 1)[1]
            seen[kind] = seen.get(kind, 0) + 1
            errors = [f"{e.instance_path}: {e.message}"[:300] for e in validators[kind].iter_errors(printed)]
            assert not errors, (game_type, game, kind, errors[:5], json.dumps(printed)[:500])
    assert set(seen) == {"State", "Move", "Event"}, seen
