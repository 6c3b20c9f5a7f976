"""The plans of :mod:`services.common.dictrender`, compiled: one generated Python function per message type.

A plan made of one closure per field (a type check, a zero check and a renderer, each a call) cost
more than the engine's view it printed: a game state holds hundreds of fields in tens of messages.  This
module writes one function per message type from its descriptor, with every field's steps inlined
(the dict's keys checked once, each value fetched once, the common types tested and printed in
place, lists of plain scalars copied whole) and ``exec``'s it once per type.

The generated code decides exactly as the closures did, field kind by field kind: a value of the
expected type takes the inlined branch; anything else goes to the same general test the closures
used (``zero``, then :class:`Unplanned` if it is not the default), so what prints and what raises
are unchanged.  The rare kinds (maps, repeated enums and reals, ``Any`` lists) call the closures
:mod:`services.common.dictrender` hands in (``Kit``).  A message type refers to others by a global
name bound to :func:`Kit.plan`'s answer on first use, so types that contain themselves compile.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from services.common import protorender

Render = Callable[[Any], Any]
_F = FieldDescriptor
_WIDE = {_F.CPPTYPE_INT64, _F.CPPTYPE_UINT64}
_NARROW = {_F.CPPTYPE_INT32, _F.CPPTYPE_UINT32}


@dataclass(frozen=True)
class Kit:
    """What the generated code calls besides itself (dictrender's pieces)."""

    unplanned: type[Exception]
    printed: type
    plan: Callable[[Descriptor], Render]
    element: Callable[[FieldDescriptor], Render]
    map_field: Callable[[FieldDescriptor], Render]
    zero: Callable[[FieldDescriptor], Callable[[Any], bool]]


class _Writer:
    """The source of one message type's function and the names it refers to."""

    def __init__(self, message_type: Descriptor, kit: Kit, prefix: str) -> None:
        self.kit = kit
        self.lines: list[str] = []
        self.names: dict[str, Any] = {
            "Unplanned": kit.unplanned, "Printed": kit.printed, "Mapping": Mapping, "copysign": math.copysign,
            "DOUBLE": protorender.double, "FLOAT32": protorender.float32, "NUMBERS": (int, float),
            "WHAT": message_type.full_name, "KNOWN": frozenset(message_type.fields_by_name),
        }  # fmt: skip
        self.prefix = prefix

    def name(self, value: Any, hint: str) -> str:
        """A global name of the generated function bound to ``value``."""
        key = f"{hint}{len(self.names)}"
        self.names[key] = value
        return key

    def emit(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def fail(self, depth: int, field: FieldDescriptor) -> None:
        self.emit(depth, f"raise Unplanned({field.full_name!r})")


def source(message_type: Descriptor, kit: Kit, head: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """The source of ``render(data)`` for ``message_type`` and its globals; ``head``: keys printed first."""
    writer = _Writer(message_type, kit, "")
    writer.emit(0, "def render(data):")
    writer.emit(1, "if type(data) is not dict and not isinstance(data, Mapping):")
    writer.emit(2, "raise Unplanned(WHAT)")
    writer.emit(1, "if not KNOWN.issuperset(data):")
    writer.emit(2, "raise Unplanned(WHAT)")
    writer.emit(1, "get = data.get")
    groups = _oneof_checks(writer, message_type)
    writer.emit(1, f"out = {writer.name(dict(head), 'HEAD')}.copy()" if head else "out = {}")
    done: set[str] = set()
    for field in sorted(message_type.fields, key=lambda item: item.number):
        oneof = field.containing_oneof
        if oneof is not None and oneof.name in groups:
            if oneof.name not in done:
                done.add(oneof.name)
                _oneof_group(writer, groups[oneof.name], oneof.fields)
            continue
        writer.emit(1, f"v = get({field.name!r})")
        _field(writer, field)
    for field in message_type.fields:
        if not field.has_presence:
            default, fresh = protorender.default(field)
            value = ("{}" if isinstance(default, dict) else "[]") if fresh else writer.name(default, "D")
            writer.emit(1, f"if {field.name!r} not in out:")
            writer.emit(2, f"out[{field.name!r}] = {value}")
    writer.emit(1, "return out")
    return "\n".join(writer.lines) + "\n", writer.names


def _oneof_checks(w: _Writer, message_type: Descriptor) -> dict[str, str]:
    """The check that each oneof has at most one member given (not ``None``), and the oneofs whose
    members print together (see :func:`_oneof_group`), each to the local name of its given members."""
    order = [field.name for field in sorted(message_type.fields, key=lambda item: item.number)]
    groups: dict[str, str] = {}
    for oneof in message_type.oneofs:
        if len(oneof.fields) < 2:
            continue  # a proto3 optional's own oneof
        members = w.name(frozenset(field.name for field in oneof.fields), "O")
        given = f"g{len(groups)}"
        w.emit(1, f"{given} = {members}.intersection(data)")
        w.emit(1, f"if len({given}) > 1 and sum(get(k) is not None for k in {given}) > 1:")
        w.emit(2, "raise Unplanned(WHAT)")
        first = order.index(oneof.fields[0].name)
        if sorted(order.index(field.name) for field in oneof.fields) == list(range(first, first + len(oneof.fields))):
            groups[oneof.name] = given  # its members are next to each other in field-number order
    return groups


def _oneof_group(w: _Writer, given: str, members: Sequence[FieldDescriptor]) -> None:
    """A oneof's members printed together: at most one of them is given (checked), so only the
    given keys are looked at (an engine's ``Move`` sets one of tens of members)."""
    steps: dict[str, Render] = {}
    for field in members:
        nested = field.message_type
        if nested is not None and nested.full_name != "google.protobuf.Any":
            steps[field.name] = _lazy(w.kit, nested, steps, field.name)
        else:
            steps[field.name] = w.kit.element(field)  # a presence field prints whenever given
    table = w.name(steps, "S")
    w.emit(1, f"for k in {given}:")
    w.emit(2, "v = get(k)")
    w.emit(2, "if v is not None:")
    w.emit(3, f"out[k] = {table}[k](v)")


def compile_plan(message_type: Descriptor, kit: Kit, head: Mapping[str, Any] | None = None) -> Render:
    """``render(data)`` for ``message_type``, compiled (see :func:`source`)."""
    text, names = source(message_type, kit, head)
    exec(compile(text, f"<dictplan {message_type.full_name}>", "exec"), names)  # our own source
    return names["render"]  # type: ignore[no-any-return]


def _field(w: _Writer, field: FieldDescriptor) -> None:
    """The statements that print ``v`` (the field's value in the dict) into ``out``."""
    key = repr(field.name)
    if protorender.is_map(field):
        w.emit(1, "if v:")
        w.emit(2, f"out[{key}] = {w.name(w.kit.map_field(field), 'M')}(v)")
    elif field.is_repeated:
        w.emit(1, "if v:")
        w.emit(2, "if type(v) is not list and type(v) is not tuple:")
        w.fail(3, field)
        _repeated(w, field, key)
    elif field.has_presence:
        w.emit(1, "if v is not None:")
        _present(w, field, key)
    else:
        _scalar(w, field, key)


def _present(w: _Writer, field: FieldDescriptor, key: str) -> None:
    """A field with presence (a message, a oneof member): printed whenever given."""
    if field.cpp_type == _F.CPPTYPE_MESSAGE:
        assert field.message_type is not None
        if field.message_type.full_name == "google.protobuf.Any":
            w.emit(2, "if type(v) is not Printed:")
            w.fail(3, field)
            w.emit(2, f"out[{key}] = v.json")
        else:
            w.emit(2, f"out[{key}] = {_nested(w, field.message_type)}(v)")
        return
    w.emit(2, f"out[{key}] = {w.name(w.kit.element(field), 'E')}(v)")


def _nested(w: _Writer, message_type: Descriptor) -> str:
    """A global name that calls the nested type's plan, planned on its first call (types may recurse)."""
    key = f"P{len(w.names)}"
    w.names[key] = _lazy(w.kit, message_type, w.names, key)
    return key


def _lazy(kit: Kit, message_type: Descriptor, table: dict[str, Any], key: str) -> Render:
    """A renderer that plans ``message_type`` on its first call and puts the plan in its own place."""

    def first(value: Any) -> Any:
        table[key] = planned = kit.plan(message_type)
        return planned(value)

    return first


def _scalar(w: _Writer, field: FieldDescriptor, key: str) -> None:
    """A field without presence: skipped when it holds the default (as the closures' ``zero`` says)."""
    zero = w.name(w.kit.zero(field), "Z")
    cpp = field.cpp_type
    if cpp == _F.CPPTYPE_ENUM:
        _enum(w, field, key, zero)
        return
    fast = {_F.CPPTYPE_BOOL: ("bool", "v"), _F.CPPTYPE_STRING: ("str", "v"), _F.CPPTYPE_DOUBLE: ("float", "")}.get(cpp)
    if cpp in _NARROW or cpp in _WIDE:
        fast = ("int", "str(v)" if cpp in _WIDE else "v")
    if field.type == _F.TYPE_BYTES or field.default_value:
        fast = None  # bytes (engines never send them), or a default that is not the type's false value
    if fast is not None:
        kind, printed = fast
        w.emit(1, f"if type(v) is {kind}:")
        w.emit(2, "if v:")  # the type's default is its only false value (a float's are 0.0 and -0.0)
        w.emit(3, f"out[{key}] = {printed or 'v if v - v == 0.0 else DOUBLE(v)'}")  # inf and nan print as words
        if kind == "float":
            w.emit(2, "elif copysign(1.0, v) < 0:")
            w.fail(3, field)  # -0.0: leave presence questions to the message
        w.emit(1, f"elif v is not None and not {zero}(v):")
    else:
        w.emit(1, f"if v is not None and not {zero}(v):")  # the zero test raises on -0.0
    w.emit(2, f"out[{key}] = {w.name(w.kit.element(field), 'E')}(v)")


def _by_name(field: FieldDescriptor) -> dict[str, str]:
    """Each value's name in the dict, to its printed name (aliases print as their number's value)."""
    assert field.enum_type is not None
    names = protorender.enum_names(field.enum_type)
    return {value.name: names[value.number] for value in field.enum_type.values if value.number in names}


def _enum(w: _Writer, field: FieldDescriptor, key: str, zero: str) -> None:
    """An enum given by name (engines' way) printed in place; by number (or anything else) by its closure."""
    assert field.enum_type is not None
    numbers = field.enum_type.values_by_number
    w.emit(1, "if type(v) is str:")
    # A name is the default when it is the zero value's (the closures' zero test, for a string).
    w.emit(2, f"if v != {w.name(numbers[0].name if 0 in numbers else None, 'Z')}:")
    w.emit(3, f"p = {w.name(_by_name(field), 'N')}.get(v)")
    w.emit(3, "if p is None:")
    w.fail(4, field)
    w.emit(3, f"out[{key}] = p")
    w.emit(1, f"elif v is not None and not {zero}(v):")
    w.emit(2, f"out[{key}] = {w.name(w.kit.element(field), 'E')}(v)")


def _repeated(w: _Writer, field: FieldDescriptor, key: str) -> None:
    """A non-empty list or tuple ``v``: plain scalars copied whole, messages by their plan, the rest by element."""
    cpp = field.cpp_type
    plain = {_F.CPPTYPE_BOOL: bool, _F.CPPTYPE_STRING: str}.get(cpp)
    if cpp in _NARROW or cpp in _WIDE:
        plain = int
    if field.type == _F.TYPE_BYTES:
        plain = None
    if plain is not None:
        # Any element of another type is one the element's renderer refuses: check them all at once.
        w.emit(2, f"if set(map(type, v)) != {w.name({plain}, 'T')}:")
        w.fail(3, field)
        w.emit(2, f"out[{key}] = {'list(map(str, v))' if cpp in _WIDE else 'list(v)'}")
        return
    if cpp == _F.CPPTYPE_ENUM:
        named, element = w.name(_by_name(field), "N"), w.name(w.kit.element(field), "E")
        w.emit(2, f"out[{key}] = [{named}[x] if type(x) is str and x in {named} else {element}(x) for x in v]")
        return
    if cpp == _F.CPPTYPE_MESSAGE:
        assert field.message_type is not None
        if field.message_type.full_name != "google.protobuf.Any":
            w.emit(2, f"out[{key}] = list(map({_nested(w, field.message_type)}, v))")
            return
    w.emit(2, f"out[{key}] = list(map({w.name(w.kit.element(field), 'E')}, v))")
