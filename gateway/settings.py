"""Gateway configuration from the environment (``CHAIWALA_*``)."""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from services.common import registry
from services.common.settings import RedisConnection

# The limits as the limits' metrics and refusals name them: the rate limits (``limits`` notation),
# each with the setting that holds it, and every other limit, named as its setting is.
RATE_LIMITS = {
    "rate_per_token": "rate_limit_per_token",
    "rate_per_address": "rate_limit_per_address",
    "create_quota": "create_limit",
    "session_quota": "session_limit",
    "auth_failures": "auth_failure_limit",
}
FIXED_LIMITS = (
    "max_body_bytes", "max_header_bytes", "max_header_field_bytes", "header_timeout_seconds", "body_timeout_seconds",
    "keep_alive_timeout_seconds", "sse_streams_per_token", "sse_streams_per_address", "sse_streams_per_process",
    "sse_stream_lease_seconds", "sse_upstreams_per_process", "sse_client_buffer",
)


class GatewaySettings(RedisConnection):
    """Where the rules services are, and the HTTP side's limits."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    # Loopback unless told otherwise; see gateway.exposure for binding anything wider.
    http_host: str = "127.0.0.1"
    http_port: int = 8000
    # uvicorn worker processes sharing the port (0 = one per core; services.common.workers).
    http_workers: int = 0
    # game_type -> host:port of its rules service.  Every registered game has one: this mapping
    # (``service_<game_type>=...`` as a keyword), else ``CHAIWALA_SERVICE_<GAME_TYPE>``, else
    # its slot's loopback port (services.common.registry.service_addresses).
    services: dict[str, str] = Field(default_factory=dict)
    # The tournament director (tournaments and ratings, services/tournament/).
    service_tournament: str = "127.0.0.1:50061"
    # The webhook dispatcher's WebhookService (python -m services.webhook), behind /v1/webhooks.
    service_webhook: str = "127.0.0.1:50060"
    # The matchmaker's MatchmakingService (python -m services.matchmaking), behind /v1/matchmaking.
    service_matchmaking: str = "127.0.0.1:50062"
    # The notification sender's NotifyService (python -m services.notify), behind /v1/me/push-* and preferences.
    service_notify: str = "127.0.0.1:50070"
    # Comma-separated list of game types to route; empty means every registered game.
    games: str = ""
    log_format: str = "json"
    log_level: str = "info"
    # When set, GET /metrics wants `Authorization: Bearer <token>` (401 unauthenticated without it).
    metrics_token: str = ""
    # A request body's own bound (413 body_too_large past it), apart from the head's: 1 MiB
    # holds the largest tournament (512 entrants, about 80 KB) many times over.
    max_body_bytes: int = 1024 * 1024
    rpc_timeout_seconds: float = 30.0
    # Answers of at least this many bytes are sent compressed (zstd, brotli or gzip, as the request
    # accepts) unless compression is off (say, a proxy in front compresses); never a live stream
    # (gateway.compression).
    compress: bool = True
    compress_min_bytes: int = Field(default=1024, ge=0)
    # REDIS_URL (services.common.settings.RedisConnection): where rate-limit counters live (shared
    # by every gateway; empty: this process's memory); the same Redis holds the games: GET
    # legal-moves reads the answers commits store there (services.legalmoves).
    # Rates in the `limits` notation ("100/second;3000/minute"), sliding windows.
    # Generous defaults (a test suite plays thousands of moves a minute from one address and
    # one token); a public deployment should lower them.
    rate_limit_per_token: str = "200/second"
    rate_limit_per_address: str = "1000/second"
    create_limit: str = "100/second;20000/hour"
    # Guest sessions (POST /v1/sessions) per client address: each mints a new player.
    session_limit: str = "20/minute;200/hour"
    # Slow clients: all request headers within this many seconds of the first byte (or of
    # connecting), the whole body within this many seconds of the headers.
    header_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 10.0
    # Request heads (gateway.server): the request line and headers together, and one header
    # line; past either, 431 headers_too_large and the connection closes.
    max_header_bytes: int = 32 * 1024
    max_header_field_bytes: int = 8 * 1024
    # Failed authentications (401, or a wrong operator key) per client address and per presented
    # credential, a stricter bucket of its own (gateway.auth_failures): past it, failures get 429,
    # and a credential past its own bucket is refused before any service sees it.
    auth_failure_limit: str = "20/minute"
    # Who may say who the client is: the proxies (addresses or CIDRs, comma-separated) whose
    # X-Forwarded-For the gateway believes. Empty (the default): none, every limit keyed by address
    # counts the connection's peer. Set it to the proxy or ingress in front of the gateway only.
    trusted_proxies: str = ""
    keep_alive_timeout_seconds: int = 5
    # Connections the kernel queues for accepting (per listening socket: one per worker); the
    # kernel caps it at net.core.somaxconn.  A burst of clients past it waits for SYN retries.
    listen_backlog: int = 4096
    # Open SSE streams: per credential and per client address across every gateway process (each
    # stream holds a lease in Redis, renewed every third of the lease time by one task per process;
    # a killed process's leases run out after sse_stream_lease_seconds: gateway.stream_caps), and
    # per gateway process.  Without a Redis URL all three count in this process only.
    sse_streams_per_token: int = 8
    sse_streams_per_address: int = 200
    sse_streams_per_process: int = 5000
    sse_stream_lease_seconds: float = 45.0
    # Live-event fan-out (gateway.fanout): upstream WatchEvents calls per process (one per game
    # and viewer, shared by its SSE clients), and how many events a client may fall behind.
    sse_upstreams_per_process: int = 2000
    sse_client_buffer: int = 256
    # SIGTERM: how long open connections (SSE streams too) get before they are closed.
    shutdown_grace_seconds: float = 5.0
    # Binding a non-loopback address while operator calls are open needs this set to 1.
    insecure_open: bool = False
    # Whether operator API keys guard the rules services (only their presence is read here).
    api_keys: str = ""

    def rate_limits(self) -> dict[str, str]:
        """Every rate limit by name, in ``limits`` notation."""
        return {name: str(getattr(self, setting)) for name, setting in RATE_LIMITS.items()}

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        _networks(value)  # a bad entry stops the gateway at start, naming the setting
        return value

    def trusted_proxy_networks(self) -> list[str]:
        """The trusted proxies as networks (``10.0.0.5`` is ``10.0.0.5/32``)."""
        return _networks(self.trusted_proxies)

    def fixed_limits(self) -> dict[str, float]:
        """Every other limit by name (sizes, seconds, stream counts)."""
        return {name: getattr(self, name) for name in FIXED_LIMITS}

    # Browser origins allowed by CORS, comma-separated ("*" = any, as `make run` sets); empty = none.
    cors_origins: str = ""

    @model_validator(mode="before")
    @classmethod
    def _services_by_keyword(cls, data: Any) -> Any:
        return registry.services_from_keywords(data)

    def service_addresses(self) -> dict[str, str]:
        """game_type -> host:port of its rules service, for every registered game (or those in ``games``)."""
        addresses = registry.service_addresses(self.services, os.environ)
        wanted = {g.strip() for g in self.games.split(",") if g.strip()}
        return {game: addr for game, addr in addresses.items() if not wanted or game in wanted}


def _networks(text: str) -> list[str]:
    """Comma-separated addresses or CIDRs as networks; ValueError naming the setting on a bad one."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(str(ipaddress.ip_network(entry, strict=False)))
        except ValueError:
            raise ValueError(f"CHAIWALA_TRUSTED_PROXIES: {entry!r} is not an address or CIDR") from None
    return networks
