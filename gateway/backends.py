"""One gRPC channel and stub per game type, shared by every request."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from chaiwala.rating.v1 import rating_pb2_grpc
from chaiwala.tournament.v1 import tournament_pb2_grpc
from chaiwala.v1 import rules_pb2_grpc
from gateway.problems import Problem
from gateway.settings import GatewaySettings
from services.common import protojson
from services.common.logs import get_logger

log = get_logger("gateway")

# Spread calls over every address the name resolves to (e.g. a headless Kubernetes Service);
# the rules services cap connection age, so new pods are picked up as connections renew.
# A restarted rules service is found again within a second: gRPC's default reconnect back-off
# grows to minutes, during which every call would wait although the service is back.
CHANNEL_OPTIONS = [
    ("grpc.lb_policy_name", "round_robin"),
    ("grpc.enable_retries", 1),
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


def _target(address: str) -> str:
    """A host:port as a DNS target, so the channel sees every address behind the name."""
    return (
        address if "://" in address or address.startswith(("dns:", "unix:", "ipv4:", "ipv6:")) else f"dns:///{address}"
    )


class Backends:
    """One gRPC channel and stub per game type."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        self.addresses = settings.service_addresses()
        self.channels: dict[str, grpc.aio.Channel] = {}
        self.stubs: dict[str, rules_pb2_grpc.RulesServiceStub] = {}
        self.files: list[Any] = []
        for game_type, address in self.addresses.items():
            try:
                protojson.load_game_protos(game_type)
            except ImportError:
                log.warning("no_protos", game_type=game_type)
                continue
            channel = grpc.aio.insecure_channel(_target(address), options=CHANNEL_OPTIONS)
            self.channels[game_type] = channel
            self.stubs[game_type] = rules_pb2_grpc.RulesServiceStub(channel)
            self.files.append(protojson.message_class(game_type, "State").DESCRIPTOR.file)
        # The tournament director: not a game type, so not in ``stubs`` (nor in /readyz).
        self.director_channel = grpc.aio.insecure_channel(_target(settings.service_tournament), options=CHANNEL_OPTIONS)
        self.tournaments = tournament_pb2_grpc.TournamentServiceStub(self.director_channel)
        self.ratings = rating_pb2_grpc.RatingServiceStub(self.director_channel)

    def stub(self, game_type: str) -> rules_pb2_grpc.RulesServiceStub:
        """The stub for ``game_type``; unknown types are a 404 for ids, a 400 for bodies."""
        stub = self.stubs.get(game_type)
        if stub is None:
            raise Problem(404, "game_not_found", "no such game")
        return stub

    async def close(self) -> None:
        """Close every channel."""
        await asyncio.gather(*(channel.close() for channel in [*self.channels.values(), self.director_channel]))
