"""The matchmaker's settings (``CHAIWALA_*``, ``REDIS_URL``); the waits are settings so tests use short ones."""

from __future__ import annotations

from services.rules.clients import RulesClientSettings


class MatchmakingSettings(RulesClientSettings):
    """A service's settings (Redis, gRPC host, metrics port, API keys, logs) plus the matching policy."""

    grpc_port: int = 50062
    metrics_port: int = 9162
    # ``services``: where the rules services are (the matchmaker creates its games through them).
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
