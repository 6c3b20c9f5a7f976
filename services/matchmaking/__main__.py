"""``python -m services.matchmaking``: the matchmaker (MatchmakingService over gRPC and the matching loop)
until SIGTERM/SIGINT.  Run as many as you like: they share the pools (see services.matchmaking.matcher)."""

from __future__ import annotations

from grpc import aio

from chaiwala.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from services.common.daemon import require_redis, run_daemon, work_until_stopped
from services.common.interceptors import RpcInterceptor
from services.common.logs import get_logger
from services.common.metrics_http import keep_prefixes
from services.common.reflection import serve_grpc
from services.games.store import GameStore
from services.identity.verifier import verifier_for
from services.matchmaking.games import RulesClients
from services.matchmaking.matcher import Matchmaker
from services.matchmaking.rpcs import MatchmakingServicer
from services.matchmaking.settings import MatchmakingSettings
from services.matchmaking.store import TicketStore

SERVICE_NAME = matchmaking_pb2.DESCRIPTOR.services_by_name["MatchmakingService"].full_name
log = get_logger("matchmaking")


async def start_server(store: TicketStore, settings: MatchmakingSettings) -> tuple[aio.Server, int]:
    """The MatchmakingService (with health and reflection) on the configured address."""
    # Every call names its player by a player token, verified here as the rules services do.
    server = aio.server(interceptors=[RpcInterceptor("matchmaking", identify=verifier_for(store.redis).player)])
    matchmaking_pb2_grpc.add_MatchmakingServiceServicer_to_server(MatchmakingServicer(store, settings), server)
    return server, await serve_grpc(server, SERVICE_NAME, settings.grpc_host, settings.grpc_port)


async def serve(settings: MatchmakingSettings) -> None:
    """Serve and match until asked to stop."""
    require_redis(settings)
    # No exposure check: every call needs a player token, and nothing is open to operator keys.
    redis = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster).redis
    store = TicketStore(redis, settings.matchmaking_ended_ttl_s, int(settings.matchmaking_recent_window_s))
    rules = RulesClients(settings.service_addresses(), settings.operator_key())
    matchmaker = Matchmaker(store, rules, settings)
    server, port = await start_server(store, settings)
    families = keep_prefixes("chaiwala_matchmaking_", "chaiwala_rpc_")
    await work_until_stopped(settings, log, "matching", families, matchmaker.run, server=server,
                             closers=(rules.close, redis.aclose), port=port, owner=matchmaker.owner)


def main() -> None:
    """Entry point."""
    run_daemon(MatchmakingSettings(), serve)


if __name__ == "__main__":
    main()
