"""Carrying a REST body into its gRPC request: every field the two messages share, by name.

The REST bodies (``rest.proto``) are the gRPC requests without their path parameters (the game
id comes from the URL), so the gateway copies what the client set instead of naming each field:
a field added to both messages travels without a gateway change.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

Target = TypeVar("Target", bound=Message)


def carry(source: Message, target: Target, skip: Collection[str] = ()) -> Target:
    """Copy into ``target`` every field set in ``source`` that ``target`` has too (but ``skip``)."""
    fields = target.DESCRIPTOR.fields_by_name
    for field, value in source.ListFields():
        if field.name in skip or field.name not in fields:
            continue
        if field.is_repeated:
            getattr(target, field.name).extend(value)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            getattr(target, field.name).CopyFrom(value)
        else:
            setattr(target, field.name, value)
    return target
