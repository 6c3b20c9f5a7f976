"""One gRPC channel and stub per game type, shared by every request."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from chaiwala.rating.v1 import rating_pb2_grpc
from chaiwala.tournament.v1 import tournament_pb2_grpc
from chaiwala.v1 import matchmaking_pb2_grpc, notify_pb2_grpc, rendered_pb2_grpc, rules_pb2_grpc, webhooks_pb2_grpc
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
    # No HTTP/2 BDP probes: each is a PING the peer must answer, i.e. extra syscalls and wake-ups on
    # both sides of nearly every call of the move path (small messages, where no window grows).
    ("grpc.http2.bdp_probe", 0),
]
# Live-event upstreams (gateway.fanout) get a channel of their own per game type: a local subchannel
# pool makes it a separate HTTP/2 connection, so long-lived streams and their concurrent-stream
# budget never compete with ordinary calls.
WATCH_CHANNEL_OPTIONS = [*CHANNEL_OPTIONS, ("grpc.use_local_subchannel_pool", 1)]


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
        # The move path's SubmitMoves with the state pre-rendered (services.rules.rendered), same channel.
        self.rendered: dict[str, rendered_pb2_grpc.RenderedRulesStub] = {}
        self.watch_channels: dict[str, grpc.aio.Channel] = {}
        self.watch_stubs: dict[str, rules_pb2_grpc.RulesServiceStub] = {}
        # WatchEventBatches (one message per log entry) on the watch channel.
        self.watch_batches: dict[str, rendered_pb2_grpc.RenderedRulesStub] = {}
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
            self.rendered[game_type] = rendered_pb2_grpc.RenderedRulesStub(channel)
            watch_channel = grpc.aio.insecure_channel(_target(address), options=WATCH_CHANNEL_OPTIONS)
            self.watch_channels[game_type] = watch_channel
            self.watch_stubs[game_type] = rules_pb2_grpc.RulesServiceStub(watch_channel)
            self.watch_batches[game_type] = rendered_pb2_grpc.RenderedRulesStub(watch_channel)
            self.files.append(protojson.message_class(game_type, "State").DESCRIPTOR.file)
        # The tournament director: not a game type, so not in ``stubs`` (nor in /readyz).
        self.director_channel = grpc.aio.insecure_channel(_target(settings.service_tournament), options=CHANNEL_OPTIONS)
        self.tournaments = tournament_pb2_grpc.TournamentServiceStub(self.director_channel)
        self.ratings = rating_pb2_grpc.RatingServiceStub(self.director_channel)
        # The webhook dispatcher's WebhookService (operator calls only), likewise outside ``stubs``.
        self.webhook_channel = grpc.aio.insecure_channel(_target(settings.service_webhook), options=CHANNEL_OPTIONS)
        self.webhooks = webhooks_pb2_grpc.WebhookServiceStub(self.webhook_channel)
        # The matchmaker's MatchmakingService (player calls), likewise outside ``stubs``.
        self.matchmaking_channel = grpc.aio.insecure_channel(
            _target(settings.service_matchmaking), options=CHANNEL_OPTIONS
        )
        self.matchmaking = matchmaking_pb2_grpc.MatchmakingServiceStub(self.matchmaking_channel)
        # The notification sender's NotifyService (player calls), likewise outside ``stubs``.
        self.notify_channel = grpc.aio.insecure_channel(_target(settings.service_notify), options=CHANNEL_OPTIONS)
        self.notify = notify_pb2_grpc.NotifyServiceStub(self.notify_channel)

    def require_known(self, game_type: str) -> None:
        """Refuse a game id whose type no rules service here plays: 404, as for any unknown game."""
        if game_type not in self.stubs:
            raise Problem(404, "game_not_found", "no such game")

    def stub(self, game_type: str) -> rules_pb2_grpc.RulesServiceStub:
        """The stub for ``game_type`` (an unknown type: 404, see :meth:`require_known`)."""
        self.require_known(game_type)
        return self.stubs[game_type]

    def watch_stub(self, game_type: str) -> rules_pb2_grpc.RulesServiceStub:
        """The stub for live-event upstreams of ``game_type`` (its own connection)."""
        self.require_known(game_type)
        return self.watch_stubs[game_type]

    async def close(self) -> None:
        """Close every channel."""
        channels = [*self.channels.values(), *self.watch_channels.values(), self.director_channel, self.webhook_channel,
                    self.matchmaking_channel, self.notify_channel]  # fmt: skip
        await asyncio.gather(*(channel.close() for channel in channels))
