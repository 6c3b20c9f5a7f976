"""JSON ``null`` in a request body is refused where the served document allows no null.

The proto3 JSON mapping reads ``null`` as "the field's default", but the OpenAPI document
types every field without ``nullable``, so a body with ``"bank_s": null`` would be accepted
although its schema says it is invalid (the fuzz suite's negative cases send exactly that).
Fields that hold free-form JSON (``google.protobuf.Struct``, ``Value``, ``ListValue``: a game's
options or move) keep their nulls, which the games' own messages judge.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from gateway.problems import Problem

_FREE_FORM = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}


def _field(descriptor: Any, key: str) -> FieldDescriptor | None:
    return descriptor.fields_by_name.get(key) or next((f for f in descriptor.fields if f.json_name == key), None)


def refuse_nulls(data: Any, descriptor: Any, path: str = "") -> None:
    """Raise ``400 invalid_request`` at the first ``null`` a field of ``descriptor`` holds (at any depth).

    ``descriptor`` is a message's ``DESCRIPTOR`` (typed loosely: the C and Python protobuf
    implementations have different descriptor classes).
    """
    if not isinstance(data, dict):
        return
    for key, value in data.items():
        field = _field(descriptor, str(key))
        if field is None:
            continue  # unknown fields are the parser's to refuse
        message = field.message_type
        if message is not None and message.full_name in _FREE_FORM:
            continue
        where = f"{path}{key}"
        if value is None:
            raise Problem(400, "invalid_request", f"{where} is null: leave it out to mean its default")
        if message is None:
            continue
        if not isinstance(value, list):
            refuse_nulls(value, message, f"{where}.")
            continue
        for index, item in enumerate(value):
            if item is None:
                raise Problem(400, "invalid_request", f"{where}[{index}] is null")
            refuse_nulls(item, message, f"{where}[{index}].")
