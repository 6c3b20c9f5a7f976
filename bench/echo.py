"""The gRPC baseline: a bare ``grpc.aio`` server whose one method answers the bytes it got.

No interceptors, no protobuf parsing, no Redis: the floor under a rules-service RPC on the same
machine.  Run by :mod:`bench.procs` as ``python -m bench.echo`` (port in ``BENCH_PORT``).
"""

from __future__ import annotations

import asyncio
import os

import grpc
from grpc import aio

METHOD = "/bench.Echo/Echo"


async def _echo(request: bytes, context: aio.ServicerContext) -> bytes:
    return request


async def start(port: int) -> aio.Server:
    """The echo server, started on ``port``."""
    server = aio.server()
    handler = grpc.unary_unary_rpc_method_handler(_echo)  # bytes in, bytes out: no (de)serializers
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server


async def serve(port: int) -> None:
    """Serve the echo method on ``port`` until killed."""
    server = await start(port)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(serve(int(os.environ["BENCH_PORT"])))
