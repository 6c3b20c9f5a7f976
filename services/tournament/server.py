"""Bootstrap of the tournament director: gRPC (TournamentService, RatingService), health,
reflection, metrics, and the director's loops (outbox consumer, sweep)."""

from __future__ import annotations

import asyncio
import contextlib

from grpc import aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from pydantic_settings import SettingsConfigDict

from chaiwala.rating.v1 import rating_pb2, rating_pb2_grpc
from chaiwala.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from services.common.interceptors import RpcInterceptor
from services.common.reflection import enable_reflection
from services.games.store import GameStore
from services.identity.verifier import verifier_for
from services.rules.clients import RulesClientSettings
from services.tournament.director import Director
from services.tournament.rpcs import RatingServicer, TournamentServicer
from services.tournament.tables import RulesClients

TOURNAMENT_SERVICE = tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name
RATING_SERVICE = rating_pb2.DESCRIPTOR.services_by_name["RatingService"].full_name


class DirectorSettings(RulesClientSettings):
    """A rules service's settings (Redis, bind, metrics, keys, logs) plus where the rules services are."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    grpc_port: int = 50061
    # Whether leaderboards and player pages are public; off, they need an operator key or a player
    # token (a player page: that player's own), see services.tournament.rpcs.RatingServicer.
    public_ratings: bool = True


async def create_server(
    director: Director, addr: str, api_keys: frozenset[str], public_ratings: bool = True
) -> tuple[aio.Server, int]:
    """Build and start the director's gRPC server on ``addr`` (port 0 = ephemeral); return it and its port."""
    # A player token names the caller (player pages show a player's private games only to them).
    verifier = verifier_for(director.redis)
    server = aio.server(interceptors=[RpcInterceptor("tournament", identify=verifier.player)])
    tournament_pb2_grpc.add_TournamentServiceServicer_to_server(TournamentServicer(director, api_keys), server)
    rating_pb2_grpc.add_RatingServiceServicer_to_server(RatingServicer(director, api_keys, public_ratings), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection((TOURNAMENT_SERVICE, RATING_SERVICE, health.SERVICE_NAME), server)
    port = server.add_insecure_port(addr)
    await server.start()
    for name in ("", TOURNAMENT_SERVICE, RATING_SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port


class RunningDirector:
    """A director with its server and loops, until :meth:`stop`."""

    def __init__(self, settings: DirectorSettings) -> None:
        self.settings = settings
        self.store = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster)
        self.rules = RulesClients(settings.service_addresses(), settings.operator_key())
        self.director = Director(self.store, self.rules)
        self.stop_event = asyncio.Event()
        self.loops: list[asyncio.Task[None]] = []
        self.server: aio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        """Serve and run the loops."""
        addr = f"{self.settings.grpc_host}:{self.settings.grpc_port}"
        self.server, self.port = await create_server(
            self.director, addr, self.settings.api_key_set(), self.settings.public_ratings
        )
        self.loops = [
            asyncio.create_task(self.director.consume(self.stop_event)),
            asyncio.create_task(self.director.sweep(self.stop_event)),
        ]

    async def stop(self) -> None:
        """Stop the loops, drain calls, close connections."""
        self.stop_event.set()
        for loop in self.loops:
            with contextlib.suppress(asyncio.CancelledError):
                await loop
        if self.server is not None:
            await self.server.stop(grace=5)
        await self.rules.close()
        await self.store.close()
