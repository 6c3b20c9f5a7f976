"""An engine's dict as proto3 JSON without building the proto message: the state the gateway passes through.

A game state has hundreds of fields.  Building its message from the engine's dict (``pack_engine``)
and walking it again to print JSON (:mod:`services.common.protorender`) cost the rules service and
the gateway more than a millisecond per move together; the engine's dict already holds every value.
:func:`payload` prints it straight from the dict with a plan compiled once per message type (one
generated function each, :mod:`services.common.dictcompile`; the closures here print the rarer
kinds of field for it), and gives exactly what
``protorender.to_dict(protojson.pack_engine(game, name, data))`` gives — same keys, same order
(set fields by field number, then the defaults of unset fields in declaration order), same values
(enum names, 64-bit integers as strings, floats as the message stores them).
``tests/gateway/test_lean_path.py`` checks that byte for byte on every game's states for every
viewer, events, legal moves and options, ``tests/common/test_dictcompile.py`` on dicts drawn from
the descriptors and on real views with one value changed.  :func:`message` prints an envelope of
such payloads (a ``GameEvent`` with its event already printed) the same way.

Anything the plan is not sure to print as the message would (a value of another type than the
field's, an unknown key, two members of one oneof, -0.0, a map with message values or non-string
keys, a well-known type) is not guessed: the whole payload then goes the old way, through the
message, so the output is exact in every case and the fast path only ever skips work.

Maps print in the order the message iterates them, which is not a function of the keys: upb keeps
a map in a hash table whose hash is seeded per process (from an address, so it moves with ASLR),
and the order also depends on the order the keys went in.  A payload's map went in in the dict's
order (the constructor), came out in table order (``Any.Pack`` serializes it), went into a fresh
table in that order (the renderer parses the ``Any``) and printed in that table's order.
:func:`_map_order` replays exactly that on a message holding only the map, once per distinct key
sequence per process (Tea & Rum's maps take a handful of key sequences), so the order is this
process's; two processes may print one map's keys in different orders, as they did through the
message (proto3 JSON gives map keys no order).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from typing import Any, cast

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from services.common import dictcompile, protojson, protorender

Render = Callable[[Any], Any]
_INTEGERS = {
    FieldDescriptor.CPPTYPE_INT32,
    FieldDescriptor.CPPTYPE_UINT32,
    FieldDescriptor.CPPTYPE_INT64,
    FieldDescriptor.CPPTYPE_UINT64,
}


class Unplanned(Exception):
    """A value the plan does not print with certainty (the caller renders through the message)."""


def payload(game_type: str, name: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The game's message ``name`` built from ``data``, as ``protorender`` prints it inside an ``Any``."""
    try:
        return _payload_plan(game_type, name)(data)
    except Unplanned:
        return protorender.to_dict(protojson.pack_engine(game_type, name, dict(data)))


class Printed:
    """A payload already printed (:func:`payload`'s answer), for an envelope's ``Any`` field (:func:`message`)."""

    __slots__ = ("json",)

    def __init__(self, json: dict[str, Any]) -> None:
        self.json = json


def message(message_type: Descriptor, data: Mapping[str, Any]) -> dict[str, Any]:
    """An envelope message (``GameEvent``) from a dict, as ``protorender.to_dict`` prints the message.

    Its ``Any`` fields take only :class:`Printed` payloads; anything the plan is unsure of raises
    :class:`Unplanned` (the caller builds the message instead).
    """
    return _plan(message_type)(data)


def _printed_any(field: FieldDescriptor) -> Render:
    def render(value: Any) -> Any:
        if type(value) is not Printed:
            raise Unplanned(field.full_name)
        return value.json

    return render


def _int(field: FieldDescriptor) -> Render:
    wide = field.cpp_type in (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)

    def render(value: Any) -> Any:
        if type(value) is not int:  # bool is an int too, and the message refuses floats
            raise Unplanned(field.full_name)
        return str(value) if wide else value

    return render


def _real(field: FieldDescriptor) -> Render:
    single = field.cpp_type == FieldDescriptor.CPPTYPE_FLOAT
    printed = protorender.float32 if single else protorender.double

    def render(value: Any) -> Any:
        if type(value) not in (int, float):
            raise Unplanned(field.full_name)
        number = float(value)
        if number == 0.0 and math.copysign(1.0, number) < 0:
            raise Unplanned(field.full_name)  # -0.0: leave presence questions to the message
        return printed(number)

    return render


def _enum(field: FieldDescriptor) -> Render:
    assert field.enum_type is not None
    names = protorender.enum_names(field.enum_type)
    numbers = {value.name: value.number for value in field.enum_type.values}

    def render(value: Any) -> Any:
        number = numbers.get(value) if type(value) is str else value if type(value) is int else None
        if number is None or number not in names:
            raise Unplanned(field.full_name)
        return names[number]

    return render


def _typed(kind: type) -> Callable[[FieldDescriptor], Render]:
    def make(field: FieldDescriptor) -> Render:
        def render(value: Any) -> Any:
            if type(value) is not kind:
                raise Unplanned(field.full_name)
            return value

        return render

    return make


def _element(field: FieldDescriptor) -> Render:
    """How one value of the field prints (one element of a repeated field)."""
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        assert field.message_type is not None
        if field.message_type.full_name == "google.protobuf.Any":
            return _printed_any(field)
        return _nested(field.message_type)
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return _enum(field)
    if cpp in _INTEGERS:
        return _int(field)
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return _real(field)
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return _typed(bool)(field)
    if field.type == FieldDescriptor.TYPE_STRING:
        return _typed(str)(field)
    return _unplanned(field.full_name)  # bytes: engines never send them


def _nested(message_type: Descriptor) -> Render:
    """A message field's renderer, planned on first use (a message may contain itself)."""
    planned: list[Render] = []

    def render(value: Any) -> Any:
        if not planned:
            planned.append(_plan(message_type))
        return planned[0](value)

    return render


def _unplanned(what: str) -> Render:
    def render(value: Any) -> Any:
        raise Unplanned(what)

    return render


def _map(field: FieldDescriptor) -> Render:
    """A ``map<string, scalar>`` field: its entries in the message's own order (see the module's docstring)."""
    entry = field.message_type
    assert entry is not None
    key_field, value_field = entry.fields_by_name["key"], entry.fields_by_name["value"]
    if key_field.type != FieldDescriptor.TYPE_STRING or value_field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
        return _unplanned(field.full_name)
    value = _element(value_field)

    def render(data: Any) -> Any:
        if type(data) is not dict or not all(type(key) is str for key in data):
            raise Unplanned(field.full_name)
        return {key: value(data[key]) for key in _map_order(field, tuple(data))}

    return render


@lru_cache(maxsize=4096)
def _map_order(field: FieldDescriptor, keys: tuple[str, ...]) -> tuple[str, ...]:
    """The order a map of ``keys`` (inserted in this order) prints in after a trip through ``Any``.

    Kept per field and key sequence (the order depends on nothing else in one process), the last
    4,096 (a map whose keys vary without end would otherwise grow the cache without end).
    """
    assert field.containing_type is not None and field.message_type is not None
    owner = message_factory.GetMessageClass(field.containing_type)
    zero = field.message_type.fields_by_name["value"].default_value
    built = owner(**{field.name: dict.fromkeys(keys, zero)})  # as the constructor inserts them
    return tuple(getattr(owner.FromString(built.SerializeToString()), field.name))


def _zero(field: FieldDescriptor) -> Callable[[Any], bool]:
    """Whether a value of a field without presence is its default (then it prints with the defaults)."""
    if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
        assert field.enum_type is not None
        zero = field.enum_type.values_by_number[0].name if 0 in field.enum_type.values_by_number else None
        return lambda value: value == 0 or (value == zero and type(value) is str)
    default = field.default_value
    if field.cpp_type in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return _real_zero(field)
    return lambda value: (value == default and type(value) is not bool) or value is default


def _real_zero(field: FieldDescriptor) -> Callable[[Any], bool]:
    def is_zero(value: Any) -> bool:
        if value != 0 or type(value) not in (int, float):
            return False
        if math.copysign(1.0, float(value)) < 0:
            raise Unplanned(field.full_name)  # -0.0: leave presence questions to the message
        return True

    return is_zero


@cache
def _plan(message_type: Descriptor) -> Callable[[Any], dict[str, Any]]:
    """The renderer of one message type from a dict, compiled (:mod:`services.common.dictcompile`)."""
    if message_type.full_name.startswith("google.protobuf."):
        return _unplanned(message_type.full_name)  # well-known types have JSON forms of their own
    return dictcompile.compile_plan(message_type, _KIT)


@lru_cache(maxsize=1024)
def _payload_plan(game_type: str, name: str) -> Callable[[Any], dict[str, Any]]:
    """The renderer of the game's message ``name`` whose answer starts with the ``Any``'s ``@type``."""
    descriptor = cast(Descriptor, protojson.message_class(game_type, name).DESCRIPTOR)  # upb's is the same type
    if descriptor.full_name.startswith("google.protobuf."):
        return _unplanned(descriptor.full_name)
    return dictcompile.compile_plan(descriptor, _KIT, {"@type": f"type.googleapis.com/{descriptor.full_name}"})


_KIT = dictcompile.Kit(unplanned=Unplanned, printed=Printed, plan=_plan, element=_element, map_field=_map, zero=_zero)
