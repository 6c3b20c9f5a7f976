"""An engine's dict packed into ``Any`` field by field, the bytes of big fields kept between calls.

:func:`services.common.protojson.pack_engine` builds the whole message with upb's constructor
from the dict, then serialises it.  For a big state that constructor is most of the cost of a
plain ``SubmitMoves`` answer (the two biggest games' ``State``: ~150 and ~85 µs, against ~7 µs
to parse the same bytes), yet most of a state is the same from one move to the next: the
building market, the towns, the ships.  A message's wire form is its fields' encodings one after
another in field-number order, and a field encodes alone exactly as it does inside the message,
so :func:`pack` encodes each field on its own and joins the bytes:

* a big composite field (a message, a list or a map whose JSON is at least :data:`MIN_JSON`
  bytes) is looked up by its JSON (``orjson``: ``1``, ``1.0`` and ``true`` print apart) in a
  process-wide table of the bytes it encoded to (:data:`KEPT_BYTES` at most, least recently
  used go first).  The bytes are a function of the value alone, so the table holds nothing a
  caller could not have built itself: a seat gets only the bytes of its own view's values;
* the other fields, runs of them between kept ones, are built with the constructor as before;
* a field whose kept bytes are seldom read again (its value changes every move: a board that
  takes a tile each move) stops being looked up after a trial of :data:`TRIAL` packs, and is tried again
  :data:`RETRY_AFTER` packs later; so does the whole message when too few of its packs found
  any kept bytes (games whose big fields all change each move: packed whole as before, since splitting
  a message into runs costs some microseconds that only kept bytes pay back).

The bytes are those ``pack_engine`` answers (``tests/common/test_fieldpack.py`` compares them
over many positions of every game).  Anything unusual (a key not in the message, a ``null`` in a
field's JSON: ``NaN`` prints so too, a message with a oneof, a value the constructor refuses)
takes ``pack_engine`` itself, so errors read as before.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from google.protobuf import any_pb2
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from services.common import protojson

MIN_JSON = 1024  # below this, building the field costs about what printing its key and splitting the run cost
KEPT_BYTES = 8 << 20  # keys and values, all messages and games together
TRIAL = 64  # packs of a field (or a message) over which its lookups must find kept bytes ...
MIN_HIT_SHARE = 0.25  # ... at least this often to go on being looked up
RETRY_AFTER = 1024  # packs of a field left alone before it is tried again
_URL_PREFIX = "type.googleapis.com/"


@dataclass
class _Trial:
    """How lookups have gone lately, for a field or a whole message."""

    tries: int = 0
    hits: int = 0
    resting: int = 0  # packs left before lookups resume (0: looking up)

    def counted(self, hit: bool) -> None:
        """Count one try; at the end of a trial, rest if too few found kept bytes."""
        self.tries += 1
        self.hits += hit
        if self.tries >= TRIAL:
            if self.hits < MIN_HIT_SHARE * self.tries:
                self.resting = RETRY_AFTER
            self.tries = self.hits = 0

    def rests(self) -> bool:
        """Whether to skip the lookups this time (counting the rest down)."""
        if self.resting:
            self.resting -= 1
            return True
        return False


@dataclass
class _Field(_Trial):
    """One field of a message: its place on the wire, and its trial."""

    number: int = 0
    composite: bool = False


@dataclass
class _Plan(_Trial):
    """One message: its class, its ``Any`` type URL and its fields, and its own trial (any kept bytes found)."""

    cls: type[Message] | None = None
    url: str = ""
    fields: dict[str, _Field] | None = None


class _Kept:
    """Encoded bytes by (message, field, JSON of the value), least recently used first, bounded in bytes."""

    def __init__(self, limit: int) -> None:
        self.limit, self.size = limit, 0
        self.items: OrderedDict[tuple[str, str, bytes], bytes] = OrderedDict()

    def get(self, key: tuple[str, str, bytes]) -> bytes | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: tuple[str, str, bytes], value: bytes) -> None:
        self.items[key] = value
        self.size += len(key[2]) + len(value)
        while self.size > self.limit and self.items:
            (_, _, old_json), old = self.items.popitem(last=False)
            self.size -= len(old_json) + len(old)


_KEPT = _Kept(KEPT_BYTES)


@cache
def _plan(game_type: str, name: str) -> _Plan | None:
    """How ``name`` of ``game_type`` is packed field by field (None: a message with a oneof, packed whole)."""
    cls = protojson.message_class(game_type, name)
    descriptor = cls.DESCRIPTOR
    if any(not oneof.name.startswith("_") for oneof in descriptor.oneofs):  # proto3 optionals' are "_name"
        return None
    fields = {
        field.name: _Field(
            number=field.number, composite=field.is_repeated or field.type == FieldDescriptor.TYPE_MESSAGE
        )
        for field in descriptor.fields
    }
    return _Plan(cls=cls, url=_URL_PREFIX + descriptor.full_name, fields=fields)


def pack(game_type: str, name: str, data: dict[str, Any]) -> any_pb2.Any:
    """``protojson.pack_engine(game_type, name, data)``, the same bytes, big unchanged fields not built again."""
    plan = _plan(game_type, name)
    if plan is None or plan.rests():
        return protojson.pack_engine(game_type, name, data)
    try:
        value, found = _wire(plan, game_type, name, data)
    except (TypeError, ValueError, KeyError, AttributeError):
        return protojson.pack_engine(game_type, name, data)
    plan.counted(found)
    return any_pb2.Any(type_url=plan.url, value=value)


def _wire(plan: _Plan, game_type: str, name: str, data: dict[str, Any]) -> tuple[bytes, bool]:
    """The message's bytes (runs of fields built together, big composite fields from the table),
    and whether any field's bytes were found kept."""
    fields, cls = plan.fields, plan.cls
    assert fields is not None and cls is not None
    parts: list[bytes] = []
    run: dict[str, Any] = {}
    any_kept = False
    for key in sorted(data, key=lambda item: fields[item].number):
        field, value = fields[key], data[key]
        found, kept = _kept_field(field, game_type, name, key, value) if field.composite and value else (None, False)
        any_kept = any_kept or kept
        if found is None:
            run[key] = value
            continue
        if run:
            parts.append(cls(**run).SerializeToString())
            run = {}
        parts.append(found)
    if run:
        parts.append(cls(**run).SerializeToString())
    return b"".join(parts), any_kept


def _kept_field(field: _Field, game_type: str, name: str, key: str, value: Any) -> tuple[bytes | None, bool]:
    """The field's bytes from the table (built and kept when missing; None: build it with its run),
    and whether they were found kept."""
    if field.rests():
        return None, False
    try:
        printed = orjson.dumps(value)
    except TypeError:  # not JSON (a map keyed by numbers): built with the run
        return None, False
    if len(printed) < MIN_JSON or b"null" in printed:  # small, or a null that may be a NaN
        return None, False
    table_key = (f"{game_type}.{name}", key, printed)
    found = _KEPT.get(table_key)
    field.counted(found is not None)
    if found is not None:
        return found, True
    found = protojson.message_class(game_type, name)(**{key: value}).SerializeToString()
    _KEPT.put(table_key, found)
    return found, False
