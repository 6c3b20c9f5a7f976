"""Bootstrap of a rules service: gRPC server, health, reflection, metrics, shutdown.

Run one with ``python -m services.rules.server <game_type>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY, CollectorRegistry

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from chaiwala.v1 import rendered_pb2_grpc, rules_pb2, rules_pb2_grpc, tables_pb2, tables_pb2_grpc
from services.common import metrics, protojson, workers
from services.common.daemon import require_redis
from services.common.exposure import check_exposure
from services.common.fdlimit import raise_open_files
from services.common.gcpolicy import threshold_gauge, tune_gc
from services.common.interceptors import RpcInterceptor
from services.common.logs import configure_logging, get_logger
from services.common.loops import run_loop
from services.common.metrics_http import family_names, keep_all_but, process_registry, serve_metrics_http
from services.common.reflection import enable_reflection
from services.common.registry import engine_for
from services.common.settings import ServiceSettings
from services.games.store import GameStore
from services.identity.rpcs import IdentityServicer
from services.identity.settings import IdentitySettings
from services.identity.verifier import verifier_for
from services.rating.ledger import Ledger
from services.rules.positions import DEFAULT_CAPACITY
from services.rules.rendered import SERVICE_NAME as RENDERED_SERVICE_NAME
from services.rules.rendered import RenderedRulesServicer
from services.rules.service import RulesServicer
from services.rules.tables import TableServicer
from services.streaming.hub import EventHub, HubLimits

SERVICE_NAME = rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name
TABLE_SERVICE_NAME = tables_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
IDENTITY_SERVICE_NAME = identity_pb2.DESCRIPTOR.services_by_name["IdentityService"].full_name
log = get_logger("server")


# How long a call may wait for this process's loop to take it up before gRPC itself cancels it
# (``grpc.server_max_unrequested_time_in_server``; gRPC's default is 30 s).  A burst of thousands of
# streams opening at once (every player reconnecting) can keep a loop that busy: at 30 s the
# cancellation raced the gateway's own deadline for opening a stream or answering a call
# (``CHAIWALA_RPC_TIMEOUT_SECONDS``, 30 s), and the calls it won came back as a bare CANCELLED, which
# the gateway answered 503 ``service_unavailable`` (55 of 10,000 player streams in one run,
# docs/lab/many-listeners.md).  Above the gateway's deadline, the gateway decides: 504 ``timeout``,
# named and retried; a call taken up late but in time is served.  Keep it above the gateway's deadline.
UNREQUESTED_SECONDS = 120
# Calls gRPC holds for this process before taking them up; past the soft limit (gRPC's default 1,000)
# it cancels the newest, past the hard one (3,000) every new one, each with a bare CANCELLED (503
# ``service_unavailable`` at the gateway).  A burst of player streams opening at once is that many
# calls: of 3,000 opened together 715 were cancelled, of 6,000 2,986 (docs/lab/many-listeners.md).
# They cost a little memory each while they wait; the deadline above still bounds the wait.
PENDING_CALLS = 100_000


def server_options() -> list[tuple[str, int]]:
    """The gRPC options of a rules service's server (:func:`create_server`)."""
    return [
        ("grpc.max_receive_message_length", 4 * 1024 * 1024),
        # Clients reconnect now and then, so calls rebalance onto new or scaled-out instances.
        ("grpc.max_connection_age_ms", 5 * 60 * 1000),
        ("grpc.max_connection_age_grace_ms", 60 * 1000),
        # Every process of a service binds the same port (services.common.workers).
        ("grpc.so_reuseport", 1),
        # No BDP probe PINGs from this side either (see gateway.backends.CHANNEL_OPTIONS).
        ("grpc.http2.bdp_probe", 0),
        # gRPC cancels a call this process has not taken up within this time (a bare CANCELLED,
        # which the gateway can only answer 503 service_unavailable): see UNREQUESTED_SECONDS.
        ("grpc.server_max_unrequested_time_in_server", UNREQUESTED_SECONDS),
        # ... and does not cancel a burst of calls for their number alone: see PENDING_CALLS.
        ("grpc.server.max_pending_requests", PENDING_CALLS),
        ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS),
    ]


async def create_server(
    game_type: str,
    store: GameStore,
    addr: str = "127.0.0.1:0",
    api_keys: frozenset[str] = frozenset(),
    live_limits: HubLimits | None = None,
    identity: IdentitySettings | None = None,
    kept_positions: int = DEFAULT_CAPACITY,
) -> tuple[aio.Server, int, RulesServicer]:
    """Build and start a rules service for ``game_type`` on ``addr``; return it and its bound port.

    ``addr`` may use port 0 for an ephemeral port (tests do); ``live_limits`` bound the
    live-event fan-out (:mod:`services.streaming.hub`); ``identity`` (default: the environment)
    names the trusted issuers and the guest issuer's settings (:mod:`services.identity`).
    """
    engine = engine_for(game_type)
    protojson.load_game_protos(game_type)
    # Player tokens: this process's verifier (kept per Redis client; services.identity.verifier);
    # every call's bearer is verified once, by the interceptor, before any handler reads it.
    verifier = verifier_for(store.redis, identity)
    server = aio.server(
        interceptors=[RpcInterceptor(game_type, identify=verifier.player)],
        options=server_options(),
    )
    # One stream mux per process reads every live game and every connected player's feed.
    live = EventHub.for_store(store, game_type, live_limits)
    servicer = RulesServicer(engine, store, api_keys, live=live, ticket_seconds=verifier.settings.stream_ticket_seconds,
                             kept_positions=kept_positions)  # fmt: skip
    rules_pb2_grpc.add_RulesServiceServicer_to_server(servicer, server)
    tables_pb2_grpc.add_TableServiceServicer_to_server(TableServicer(servicer), server)
    rendered_pb2_grpc.add_RenderedRulesServicer_to_server(RenderedRulesServicer(servicer), server)
    identity_servicer = IdentityServicer(verifier, Ledger(store.redis), live.mux)
    identity_pb2_grpc.add_IdentityServiceServicer_to_server(identity_servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (SERVICE_NAME, TABLE_SERVICE_NAME, RENDERED_SERVICE_NAME, IDENTITY_SERVICE_NAME, health.SERVICE_NAME)
    enable_reflection(names, server)
    port = server.add_insecure_port(addr)
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port, servicer


async def _refresh_active_gauge(game_type: str, store: GameStore) -> None:
    """Keep ``chaiwala_games_active`` in line with Redis, which every instance shares."""
    while True:
        with contextlib.suppress(Exception):
            metrics.GAMES_ACTIVE.labels(game_type).set(await store.count_active(game_type))
        await asyncio.sleep(10)


def rules_registry(source: CollectorRegistry) -> CollectorRegistry:
    """What a rules service's metrics endpoint renders: everything it counts but the bots' moves
    (the conductor plays and exports those; see services.common.metrics)."""
    return process_registry(keep_all_but(family_names([metrics.BOT_MOVES])), source)


async def serve(game_type: str, settings: ServiceSettings) -> None:
    """Run until SIGTERM/SIGINT, then drain in-flight calls and stop."""
    check_exposure(f"the {game_type} rules service", settings.grpc_host, bool(settings.api_key_set()),
                   settings.insecure_open, log)
    require_redis(settings)  # a URL with a password, and the master key ring
    store = GameStore.from_url(
        settings.redis_url,
        cluster=settings.redis_cluster,
        max_connections=settings.redis_max_connections,
        pool_timeout=settings.redis_pool_timeout_seconds,
    )
    server, port, servicer = await create_server(
        game_type,
        store,
        f"{settings.grpc_host}:{settings.grpc_port}",
        settings.api_key_set(),
        HubLimits(games=settings.stream_games, buffer=settings.stream_buffer, connections=settings.stream_connections),
        kept_positions=settings.kept_positions,
    )
    if not workers.is_worker():  # a group's parent serves the sum
        serve_metrics_http(settings.metrics_port, settings.grpc_host, rules_registry(REGISTRY), settings.metrics_token)
    log.info("serving", game_type=game_type, port=port, metrics_port=settings.metrics_port)
    gauge = asyncio.create_task(_refresh_active_gauge(game_type, store))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping", game_type=game_type, watched_games=len(servicer.live.feeds))
    gauge.cancel()
    await shutdown(server, servicer, store, settings.shutdown_grace_seconds)


async def shutdown(server: aio.Server, servicer: RulesServicer, store: GameStore, grace: float | None) -> None:
    """Stop serving: end every open watch at once (its client reconnects elsewhere), give unary
    calls ``grace`` seconds, then close the store.  Open streams never hold a stop up."""
    await servicer.live.close()
    await server.stop(grace=grace)
    await store.close()


def main(argv: list[str]) -> None:
    """Entry point: ``python -m services.rules.server <game_type>``."""
    workers.join_group()  # a worker ends with its parent (services.common.workers)
    if len(argv) != 1:
        raise SystemExit("usage: python -m services.rules.server <game_type>")
    settings = ServiceSettings()
    configure_logging(settings.log_format, settings.log_level)
    raise_open_files()  # watches are gRPC streams on few connections, but calls' clients are files too
    count = workers.process_count(settings.grpc_processes)
    if count > 1 and not workers.is_worker():
        raise SystemExit(serve_group(argv[0], settings, count))
    tune_gc()  # the player streams' objects: no full collection every few seconds (services.common.gcpolicy)
    threshold_gauge(REGISTRY)  # what it now runs with, on its metrics
    run_loop(serve(argv[0], settings))


def serve_group(game_type: str, settings: ServiceSettings, count: int) -> int:
    """Run ``count`` processes of the service on one port; serve their summed metrics (see workers)."""
    group = workers.start_workers(count, "services.rules.server", [game_type])
    registry = rules_registry(workers.scrape_registry(CollectorRegistry()))
    serve_metrics_http(settings.metrics_port, settings.grpc_host, registry, settings.metrics_token)
    log.info("serving_group", game_type=game_type, processes=count, port=settings.grpc_port,
             metrics_port=settings.metrics_port)
    return workers.supervise(group)


if __name__ == "__main__":
    main(sys.argv[1:])
