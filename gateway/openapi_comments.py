"""The comments of the protos, read from the descriptor set ``make proto`` writes with source info.

The protos are the one source of the API's words: ``protoc --include_source_info
--descriptor_set_out=gen/chaiwala.descriptors.pb`` keeps every comment beside the element it
describes, and the OpenAPI and AsyncAPI documents take their descriptions from here (a message's
comment describes its schema, a field's its property, an enum value's its place in the enum).
The generated ``_pb2`` modules drop source info, hence the separate file.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from google.protobuf import descriptor_pb2

import chaiwala

DESCRIPTOR_SET = "chaiwala.descriptors.pb"
# Tags of descriptor.proto used in SourceCodeInfo paths.
MESSAGE_TYPE, ENUM_TYPE, SERVICE = 4, 5, 6
FIELD, NESTED_TYPE, NESTED_ENUM = 2, 3, 4
ENUM_VALUE, METHOD = 2, 2


def descriptor_set_path() -> Path:
    """Where ``make proto`` writes the descriptor set: beside the generated ``chaiwala`` package."""
    return Path(next(iter(chaiwala.__path__))).parent / DESCRIPTOR_SET


def _clean(location: descriptor_pb2.SourceCodeInfo.Location) -> str:
    """A location's leading and trailing comments as one paragraph of prose."""
    text = " ".join(part for part in (location.leading_comments, location.trailing_comments) if part.strip())
    return " ".join(text.split())


class _Walker:
    """Maps each element's full name to its comment, following SourceCodeInfo paths."""

    def __init__(self, proto: descriptor_pb2.FileDescriptorProto) -> None:
        self.names: dict[tuple[int, ...], str] = {}
        prefix = proto.package
        for index, message in enumerate(proto.message_type):
            self._message((MESSAGE_TYPE, index), f"{prefix}.{message.name}", message)
        for index, enum in enumerate(proto.enum_type):
            self._enum((ENUM_TYPE, index), f"{prefix}.{enum.name}", enum)
        for index, service in enumerate(proto.service):
            name = f"{prefix}.{service.name}"
            self.names[(SERVICE, index)] = name
            for method_index, method in enumerate(service.method):
                self.names[(SERVICE, index, METHOD, method_index)] = f"{name}.{method.name}"

    def _message(self, path: tuple[int, ...], name: str, message: descriptor_pb2.DescriptorProto) -> None:
        self.names[path] = name
        for index, field in enumerate(message.field):
            self.names[(*path, FIELD, index)] = f"{name}.{field.name}"
        for index, nested in enumerate(message.nested_type):
            self._message((*path, NESTED_TYPE, index), f"{name}.{nested.name}", nested)
        for index, enum in enumerate(message.enum_type):
            self._enum((*path, NESTED_ENUM, index), f"{name}.{enum.name}", enum)

    def _enum(self, path: tuple[int, ...], name: str, enum: descriptor_pb2.EnumDescriptorProto) -> None:
        self.names[path] = name
        for index, value in enumerate(enum.value):
            self.names[(*path, ENUM_VALUE, index)] = f"{name}.{value.name}"


@cache
def proto_comments() -> dict[str, str]:
    """Every commented element's full name (``pkg.Message``, ``pkg.Message.field``, ``pkg.Enum.VALUE``,
    ``pkg.Service.Method``) -> its comment.  Empty when the descriptor set is missing (an old gen/)."""
    path = descriptor_set_path()
    if not path.exists():
        return {}
    files = descriptor_pb2.FileDescriptorSet.FromString(path.read_bytes())
    comments: dict[str, str] = {}
    for proto in files.file:
        names = _Walker(proto).names
        for location in proto.source_code_info.location:
            name = names.get(tuple(location.path))
            text = _clean(location)
            if name is not None and text:
                comments[name] = text
    return comments
