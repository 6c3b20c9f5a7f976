"""Platform overhead: each layer timed beside the bare thing it is built on.

* REST ``GET /v1/games/{id}`` vs the gateway's trivial ``/healthz`` (same uvicorn, same client);
* gRPC ``GetGame`` vs the gRPC health check on the same server (a bare unary call);
* the store's atomic snapshot read vs a raw Redis ``GET``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import grpc
import httpx
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.harness import Case
from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.embedded_redis import start_redis
from services.common.logs import configure_logging
from tests.support.stack import Gateway, Services

_running: dict[str, Any] = {}


def cases() -> list[Case]:
    """Start a real stack (embedded Redis, Darjeeling service, gateway) and return the cases."""
    configure_logging("json", "warning")  # one log line per RPC would dominate the timings
    server = start_redis(Path(tempfile.mkdtemp(prefix="chaiwala-bench-")), appendonly=False)
    services = Services(server.url)
    service = services.start("darjeeling")
    gateway = Gateway({"darjeeling": service.address})
    http = httpx.Client(base_url=gateway.url)
    channel = grpc.insecure_channel(service.address)
    stub = rules_pb2_grpc.RulesServiceStub(channel)
    health = health_pb2_grpc.HealthStub(channel)
    raw = redis.Redis.from_url(server.url)
    _running.update(
        server=server, services=services, service=service, gateway=gateway, http=http, channel=channel, raw=raw
    )
    created = http.post(
        "/v1/games", json={"game_type": "darjeeling", "players": [{"name": "a"}, {"name": "b"}], "seed": 1}
    ).json()
    game_id = created["game_id"]
    raw.set("bench:plain", b"x" * 2048)
    request = rules_pb2.GetGameRequest(game_id=game_id)
    check = health_pb2.HealthCheckRequest(service="")
    store = service.store
    loop = services.loops

    return [
        Case(
            "rest_get_game",
            lambda: http.get(f"/v1/games/{game_id}"),
            "request",
            ("rest_healthz", lambda: http.get("/healthz")),
        ),
        Case(
            "grpc_get_game", lambda: stub.GetGame(request), "call", ("grpc_health_check", lambda: health.Check(check))
        ),
        Case(
            "store_load", lambda: loop.run(store.load(game_id)), "read", ("redis_get", lambda: raw.get("bench:plain"))
        ),
    ]


def teardown() -> None:
    """Stop everything :func:`cases` started."""
    _running["http"].close()
    _running["channel"].close()
    _running["gateway"].stop()
    _running["services"].stop(_running["service"])
    _running["services"].close()
    _running["raw"].close()
    _running["server"].stop()
