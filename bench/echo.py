"""The gRPC baselines: bare ``grpc.aio`` servers whose methods answer what they got.

Run by :mod:`bench.procs` as ``python -m bench.echo`` (port in ``BENCH_PORT``).  Each layer a rules
service call adds on top of gRPC itself is one method, so ``bench grpc`` can price them one by one
against the same calls (``bench/grpc_path.py``):

* ``/bench.Echo/Echo``: bytes in, bytes out — no interceptor, no protobuf, no Redis: the floor.
* ``/bench.Echo/Proto``: the request parsed as a ``SubmitMovesRequest`` and serialized back (the
  protobuf work of a call).
* With ``BENCH_INTERCEPTED=1`` the server runs the rules services' own interceptor
  (:class:`services.common.interceptors.RpcInterceptor`: bearer, error mapping, metrics), so
  ``Proto`` there is protobuf plus the interceptor.
"""

from __future__ import annotations

import os
from typing import Any

import grpc
from grpc import aio

from chaiwala.v1 import rules_pb2
from services.common.interceptors import RpcInterceptor
from services.common.loops import run_loop

METHOD = "/bench.Echo/Echo"
PROTO_METHOD = "/bench.Echo/Proto"


async def _echo(request: Any, context: aio.ServicerContext) -> Any:
    return request


async def _nobody(token: str) -> None:
    """The rules services verify every bearer (a seat token is no player token: ``None``)."""
    return None


async def start(port: int, intercepted: bool = False) -> aio.Server:
    """The echo server, started on ``port`` (with the rules services' interceptor if ``intercepted``)."""
    interceptors = [RpcInterceptor("bench", identify=_nobody)] if intercepted else []
    server = aio.server(interceptors=interceptors)
    handlers = {
        "Echo": grpc.unary_unary_rpc_method_handler(_echo),  # bytes in, bytes out: no (de)serializers
        "Proto": grpc.unary_unary_rpc_method_handler(
            _echo,
            request_deserializer=rules_pb2.SubmitMovesRequest.FromString,
            response_serializer=rules_pb2.SubmitMovesRequest.SerializeToString,
        ),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", handlers),))
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    return server


async def serve(port: int, intercepted: bool) -> None:
    """Serve the echo methods on ``port`` until killed."""
    server = await start(port, intercepted)
    await server.wait_for_termination()


if __name__ == "__main__":
    run_loop(serve(int(os.environ["BENCH_PORT"]), os.environ.get("BENCH_INTERCEPTED") == "1"))
