"""The bridge between engine dicts and the games' proto messages.

Engines speak the proto3 JSON form of their messages (proto field names).  This
module finds a game's messages by convention — package ``chaiwala.<game>.v1``
with messages ``Options``, ``Move``, ``State`` and ``Event`` — and converts both
ways, rejecting unknown fields and wrong types.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from google.protobuf import any_pb2, json_format, symbol_database
from google.protobuf.message import DecodeError, Message

from services.common import protorender
from services.common.registry import unit_for


class BadMessage(ValueError):
    """JSON that does not fit the message it claims to be."""


@cache
def load_game_protos(game_type: str) -> None:
    """Import the generated module of ``game_type`` so its messages are in the pool."""
    importlib.import_module(unit_for(game_type).proto_module)


@cache
def message_class(game_type: str, name: str) -> type[Message]:
    """The generated class of ``chaiwala.<game_type>.v1.<name>``."""
    load_game_protos(game_type)
    full_name = f"chaiwala.{game_type}.v1.{name}"
    return symbol_database.Default().GetSymbol(full_name)  # type: ignore[no-any-return]


def to_message(game_type: str, name: str, data: dict[str, Any]) -> Message:
    """Parse ``data`` into the game's message; :class:`BadMessage` if it does not fit."""
    if not isinstance(data, dict):
        raise BadMessage(f"{name} must be a JSON object")
    message = message_class(game_type, name)()
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except (json_format.ParseError, TypeError, ValueError, RecursionError) as error:
        raise BadMessage(f"not a valid {name}: {error}") from None
    return message


def from_engine(game_type: str, name: str, data: dict[str, Any]) -> Message:
    """Build a message from an engine's own dict, fast.

    Engine output is trusted, so the generated constructor (C, about ten times faster
    than ``ParseDict``) is tried first; anything it refuses goes through the strict
    parser, whose error names the offending field.
    """
    try:
        return message_class(game_type, name)(**data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return to_message(game_type, name, data)


def identity(game_type: str, name: str, data: dict[str, Any]) -> bytes:
    """A byte string equal for equal messages whatever their JSON spelling (defaults, enum names)."""
    return from_engine(game_type, name, data).SerializeToString(deterministic=True)


def to_dict(message: Message) -> dict[str, Any]:
    """A message as proto3 JSON with proto field names and every field printed.

    Exactly ``json_format.MessageToDict(message, preserving_proto_field_name=True,
    always_print_fields_with_no_presence=True)``, several times faster (see :mod:`protorender`).
    """
    return protorender.to_dict(message)


def canonical(game_type: str, name: str, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` round-tripped through its message: defaults filled, enums by name."""
    return to_dict(to_message(game_type, name, data))


def pack(game_type: str, name: str, data: dict[str, Any]) -> any_pb2.Any:
    """Parse ``data`` (untrusted) strictly as the game's message and wrap it in ``Any``."""
    packed = any_pb2.Any()
    packed.Pack(to_message(game_type, name, data))
    return packed


def pack_engine(game_type: str, name: str, data: dict[str, Any]) -> any_pb2.Any:
    """Wrap an engine's own dict (trusted) in ``Any`` using the fast constructor path."""
    packed = any_pb2.Any()
    packed.Pack(from_engine(game_type, name, data))
    return packed


def unpack(game_type: str, name: str, packed: any_pb2.Any, only_set: bool = False) -> dict[str, Any]:
    """The dict form of an ``Any`` that must hold the game's message ``name``.

    ``only_set`` leaves out fields the sender did not set (so options keep their defaults).
    Corrupt bytes under the right type URL are a :class:`BadMessage`, like a wrong type.
    """
    cls = message_class(game_type, name)
    if not packed.Is(cls.DESCRIPTOR):  # type: ignore[arg-type]
        raise BadMessage(f"expected chaiwala.{game_type}.v1.{name}, got {packed.type_url or 'nothing'}")
    message = cls()
    try:
        packed.Unpack(message)
        if only_set:
            return json_format.MessageToDict(message, preserving_proto_field_name=True)
        return to_dict(message)
    except (DecodeError, ValueError, RecursionError):
        raise BadMessage(f"the bytes of this {name} do not decode as chaiwala.{game_type}.v1.{name}") from None
