"""Gateway configuration from the environment (``CHAIWALA_*``)."""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class GatewaySettings(BaseSettings):
    """Where the rules services are, and the HTTP side's limits."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    http_host: str = "0.0.0.0"
    http_port: int = 8000
    service_alubari: str = "127.0.0.1:50051"
    service_darjeeling: str = "127.0.0.1:50052"
    service_tea_rum: str = "127.0.0.1:50053"
    service_india_rails: str = "127.0.0.1:50054"
    # Comma-separated list of game types to route; empty means all four.
    games: str = ""
    log_format: str = "json"
    log_level: str = "info"
    max_body_bytes: int = 256 * 1024
    rpc_timeout_seconds: float = 30.0
    # Browser origins allowed by CORS, comma-separated ("*" = any, as `make run` sets); empty = none.
    cors_origins: str = ""

    def service_addresses(self) -> dict[str, str]:
        """game_type -> host:port of its rules service."""
        addresses = {
            "alubari": self.service_alubari,
            "darjeeling": self.service_darjeeling,
            "tea_rum": self.service_tea_rum,
            "india_rails": self.service_india_rails,
        }
        wanted = {g.strip() for g in self.games.split(",") if g.strip()}
        return {game: addr for game, addr in addresses.items() if not wanted or game in wanted}
