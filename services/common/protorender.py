"""Proto messages as proto3 JSON dicts, fast: the one renderer of REST answers and SSE events.

``json_format.MessageToDict`` interprets every field's descriptor on every call; a game state
has hundreds of fields, so rendering one answer took most of a REST request.  This module does
the same conversion with a plan compiled once per message type (which fields print a default,
which need a converter, how an ``Any`` unpacks), and produces exactly what
``MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)``
produces — same keys, same order, same values (``tests/common/test_protorender.py`` checks
that on every game's real messages).  The well-known types other than ``Any`` (Timestamp, Struct,
wrappers, ...) are rare in our answers and are handed to ``MessageToDict`` itself.

The games' payloads (``Any``: states, events, moves) are rendered once per distinct payload: the
JSON of the last few thousand is kept by ``(type URL, bytes)`` and a repeat is parsed back with
``orjson`` (a fresh dict each time, callers may change it), many times faster than walking the
message again.  Repeats are common: the same legal moves position after position, the same event
for every spectator of a game, the same state for every poll of an idle game.
"""

from __future__ import annotations

import base64
import math
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson
from google.protobuf import json_format, symbol_database
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

Convert = Callable[[Any], Any]
_ANY = "google.protobuf.Any"
_INT64 = {FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64}
# Rendered payloads kept (JSON by (type URL, payload bytes)): at most 2,048 of at most 16 KiB each.
PAYLOADS_KEPT = 2048
PAYLOAD_MAX_JSON = 16 * 1024
_rendered: OrderedDict[tuple[str, bytes], bytes] = OrderedDict()


def to_dict(message: Message) -> dict[str, Any]:
    """``message`` as proto3 JSON with proto field names and every field without presence printed."""
    return _plan(message.DESCRIPTOR)(message)


def _by_json_format(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def _float(value: float) -> Any:
    if math.isinf(value):
        return "-Infinity" if value < 0.0 else "Infinity"
    if math.isnan(value):
        return "NaN"
    return value


def _float32(value: float) -> Any:
    # A float32 prints as the shortest decimal that reads back to the same float32.
    return _float(value) if not math.isfinite(value) else type_checkers.ToShortestFloat(value)


def _enum_names(enum_type: EnumDescriptor) -> dict[int, str]:
    """Each value's printed name: its name, or the JSON name option json_format prints instead."""
    printer = getattr(json_format, "_Printer")()  # noqa: B009 (private: how json_format names enum values)
    json_option = getattr(printer, "_GetJsonEnumValueOption", None)  # newer protobuf only
    names: dict[int, str] = {}
    for number, value in enum_type.values_by_number.items():
        option = json_option(value) if json_option is not None else None
        names[number] = option.string if option is not None else value.name
    return names


def _enum(field: FieldDescriptor) -> Convert:
    enum_type = field.enum_type
    assert enum_type is not None
    if enum_type.full_name == "google.protobuf.NullValue":
        return lambda value: None
    names = _enum_names(enum_type)

    def convert(value: int) -> Any:
        name = names.get(value)
        if name is not None:
            return name
        if enum_type.is_closed:
            raise json_format.SerializeToJsonError(f"{enum_type.full_name} has no value {value}")
        return value

    return convert


def _scalar(field: FieldDescriptor) -> Convert | None:
    """How a set scalar (or message) value converts; ``None`` when it prints as it is."""
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        assert field.message_type is not None
        return _message_converter(field.message_type)
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return _enum(field)
    if field.type == FieldDescriptor.TYPE_BYTES:
        return lambda value: base64.b64encode(value).decode("utf-8")
    if cpp in _INT64:
        return str
    if cpp == FieldDescriptor.CPPTYPE_FLOAT:
        return _float32
    if cpp == FieldDescriptor.CPPTYPE_DOUBLE:
        return _float
    return None


def _message_converter(message_type: Descriptor) -> Convert:
    # Late binding: a message may contain itself (recursive types).
    return lambda value: _plan(message_type)(value)


def _is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _field_converter(field: FieldDescriptor) -> Convert | None:
    """How a set field's whole value converts: repeated and map fields element by element."""
    entry = field.message_type
    if entry is not None and _is_map(field):
        value_convert = _scalar(entry.fields_by_name["value"])
        key_bool = entry.fields_by_name["key"].cpp_type == FieldDescriptor.CPPTYPE_BOOL

        def convert_map(value: Any) -> dict[str, Any]:
            out = {}
            for key in value:
                name = ("true" if key else "false") if key_bool else str(key)
                out[name] = value[key] if value_convert is None else value_convert(value[key])
            return out

        return convert_map
    element = _scalar(field)
    if field.is_repeated:
        if element is None:
            return list
        return lambda value: [element(item) for item in value]
    return element


def _default(field: FieldDescriptor) -> tuple[Any, bool]:
    """The printed default of a field without presence, and whether it is a fresh list/dict each time."""
    if _is_map(field):
        return {}, True
    if field.is_repeated:
        return [], True
    convert = _scalar(field)
    value = field.default_value
    return (value if convert is None else convert(value)), False


@cache
def _plan(message_type: Descriptor) -> Callable[[Message], dict[str, Any]]:
    """The compiled renderer of one message type."""
    full_name = message_type.full_name
    if full_name == _ANY:
        return _render_any
    if full_name.startswith("google.protobuf."):  # Timestamp, Struct, wrappers...: their own JSON forms
        return _by_json_format
    return _regular_plan(message_type)


def _regular_plan(message_type: Descriptor) -> Callable[[Message], dict[str, Any]]:
    """The renderer of a message that is not a well-known type: set fields in field order, then defaults."""
    converters: dict[str, Convert | None] = {}
    defaults: list[tuple[str, Any, bool]] = []
    for field in message_type.fields:
        converters[field.name] = _field_converter(field)
        if not field.has_presence:
            value, fresh = _default(field)
            defaults.append((field.name, value, fresh))

    def render(message: Message) -> dict[str, Any]:
        out: dict[str, Any] = {}
        # proto3 messages have no extensions, so ListFields holds regular fields only.
        for field, value in message.ListFields():
            convert = converters[field.name]
            out[field.name] = value if convert is None else convert(value)
        for name, default, fresh in defaults:
            if name not in out:
                out[name] = default.copy() if fresh else default
        return out

    return render


@cache
def _class_of(type_url: str) -> type[Message]:
    full_name = type_url.split("/")[-1]
    return symbol_database.Default().GetSymbol(full_name)  # type: ignore[no-any-return]


def _render_any(message: Message) -> dict[str, Any]:
    """An ``Any``: ``@type`` first, then the packed message's fields (or its ``value`` for a WKT)."""
    if not message.ListFields():
        return {}
    type_url: str = message.type_url  # type: ignore[attr-defined]
    value: bytes = message.value  # type: ignore[attr-defined]
    kept = _rendered.get((type_url, value))
    if kept is not None:
        _rendered.move_to_end((type_url, value))
        return orjson.loads(kept)  # type: ignore[no-any-return]
    out = _render_payload(message, type_url, value)
    rendered = orjson.dumps(out)
    if len(rendered) <= PAYLOAD_MAX_JSON:
        _rendered[(type_url, value)] = rendered
        if len(_rendered) > PAYLOADS_KEPT:
            _rendered.popitem(last=False)
    return out


def forget_rendered() -> None:
    """Drop every kept payload (the render benchmark times a cold renderer with it)."""
    _rendered.clear()


def _render_payload(message: Message, type_url: str, value: bytes) -> dict[str, Any]:
    try:
        cls = _class_of(type_url)
    except KeyError:
        return _by_json_format(message)  # an unknown type: json_format words the error
    inner = cls()
    inner.ParseFromString(value)
    inner_type = inner.DESCRIPTOR
    if _plan(inner_type) is _by_json_format:
        return _by_json_format(message)
    out: dict[str, Any] = {"@type": type_url}
    out.update(_plan(inner_type)(inner))
    return out



# What services.common.dictrender shares with this renderer, so that both print every value alike.
float32, double, enum_names, is_map, default = _float32, _float, _enum_names, _is_map, _default
