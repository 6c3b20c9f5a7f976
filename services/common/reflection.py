"""Server reflection under both names current tools use: ``grpc.reflection.v1`` and ``v1alpha``.

grpcio-reflection only ships ``grpc.reflection.v1alpha``; current grpcurl (and other
tools) ask ``grpc.reflection.v1`` first.  The two protocols are the same messages under
another package name, byte for byte on the wire, so the v1 service is the v1alpha servicer
registered under the v1 method name, and its descriptor (so ``grpcurl describe`` works on
it too) is the v1alpha file renamed.  Only services are listed; messages are reached
through them (or by ``file_containing_symbol``).
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"


def _add_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Put the v1 reflection file (the v1alpha one, renamed) into ``pool`` once."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    file_proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file_proto)
    file_proto.name = V1_FILE
    file_proto.package = V1_PACKAGE
    file_proto.options.Clear()
    for message in file_proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = _renamed(field.type_name)
    for service in file_proto.service:
        for method in service.method:
            method.input_type = _renamed(method.input_type)
            method.output_type = _renamed(method.output_type)
    pool.AddSerializedFile(file_proto.SerializeToString())


def _renamed(type_name: str) -> str:
    return type_name.replace(f".{reflection_pb2.DESCRIPTOR.package}.", f".{V1_PACKAGE}.")


def enable_reflection(services: Iterable[str], server: aio.Server) -> None:
    """Serve reflection (v1 and v1alpha) on ``server``, listing ``services`` and both reflection services."""
    pool = descriptor_pool.Default()
    _add_v1_descriptor(pool)
    names = (*services, V1_SERVICE_NAME, reflection.SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names, pool=pool)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {"ServerReflectionInfo": handler}),)
    )


async def serve_grpc(server: aio.Server, service_name: str, host: str, port: int) -> int:
    """Bind ``server`` (its servicer already added) on ``host:port`` with the health service and
    reflection, start it, and report it and ``service_name`` SERVING; the port bound.

    The one start of a process's own gRPC service (the webhook dispatcher, the matchmaker, the
    notification sender), so health and reflection are the same everywhere."""
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((service_name, health.SERVICE_NAME), server)
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    for name in ("", service_name):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return bound
