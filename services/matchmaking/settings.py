"""The matchmaker's settings (``CHAIWALA_*``, ``REDIS_URL``); the waits are settings so tests use short ones."""

from __future__ import annotations

import os
from typing import Any

from pydantic import Field, model_validator

from services.common import registry
from services.common.settings import ServiceSettings


class MatchmakingSettings(ServiceSettings):
    """A service's settings (Redis, gRPC host, metrics port, API keys, logs) plus the matching policy."""

    grpc_port: int = 50062
    metrics_port: int = 9162
    # Where the rules services are (the matchmaker creates its games through them): game_type ->
    # host:port, else CHAIWALA_SERVICE_<GAME_TYPE>, else the game's slot on loopback
    # (services.common.registry.service_addresses); ``service_<game_type>=`` works as a keyword.
    services: dict[str, str] = Field(default_factory=dict)
    # A ticket still searching after this long expires.
    matchmaking_ticket_ttl_s: float = 600.0
    # Searching tickets one player may hold in all pools (one per pool).
    matchmaking_max_tickets: int = 5
    # The rating band (in rating points, mu): base + per_second x seconds waited, at most max.
    matchmaking_band_base: float = 3.0
    matchmaking_band_per_second: float = 0.25
    matchmaking_band_max: float = 50.0
    # A group smaller than the largest size all accept forms once its players waited this long.
    matchmaking_smaller_after_s: float = 30.0
    # Players who were just seated together are not paired again until both waited this long.
    matchmaking_rematch_after_s: float = 60.0
    # How long "just seated together" lasts.
    matchmaking_recent_window_s: float = 900.0
    # How often each matchmaker looks at the pools, and how long it holds a pool (a lease).
    matchmaking_poll_s: float = 0.25
    matchmaking_lease_ms: int = 5_000
    # A group whose game is being created is taken over by another matchmaker after this long
    # (well above the rules services' answer time: see docs/concepts/matchmaking.md).
    matchmaking_forming_lease_ms: int = 30_000
    # The oldest tickets of a pool looked at per pass.
    matchmaking_pool_window: int = 10_000
    # Ended tickets stay readable this long.
    matchmaking_ended_ttl_s: int = 24 * 3600

    @model_validator(mode="before")
    @classmethod
    def _services_by_keyword(cls, data: Any) -> Any:
        return registry.services_from_keywords(data)

    def service_addresses(self) -> dict[str, str]:
        """game_type -> host:port of its rules service, for every registered game."""
        return registry.service_addresses(self.services, os.environ)

    def operator_key(self) -> str:
        """The key the matchmaker presents to the rules services ("" when none are configured)."""
        keys = sorted(self.api_key_set())
        return keys[0] if keys else ""
