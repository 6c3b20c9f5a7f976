"""Service configuration from the environment (``CHAIWALA_*``, ``REDIS_URL``)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ServiceSettings(BaseSettings):
    """Settings of one rules service process."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    redis_url: str = Field(default="", validation_alias=AliasChoices("REDIS_URL", "CHAIWALA_REDIS_URL"))
    redis_cluster: bool = False
    # Loopback unless told otherwise (see services.common.exposure).
    grpc_host: str = "127.0.0.1"
    grpc_port: int = 50051
    metrics_port: int = 9090
    # When set, the metrics endpoint wants `Authorization: Bearer <token>` (/healthz stays open).
    metrics_token: str = ""
    # Processes of this service sharing the gRPC port (0 = one per core; services.common.workers).
    grpc_processes: int = 0
    api_keys: str = ""
    # Serving a non-loopback address with no API keys needs this set on purpose.
    insecure_open: bool = False
    log_format: str = "json"
    log_level: str = "info"
    # Redis connections for calls (per node on a cluster), and how long a call waits for a free
    # one before it fails as unavailable (503 store_unavailable, Retry-After).
    redis_max_connections: int = 100
    redis_pool_timeout_seconds: float = 2.0
    # Live events (services.streaming): games one process follows at once (one Redis connection
    # each, apart from the calls' pool), and how many log entries a watcher may fall behind.
    stream_readers: int = 1000
    stream_buffer: int = 1024
    # SIGTERM: open watches end at once (UNAVAILABLE shutting_down), in-flight calls get this long.
    shutdown_grace_seconds: float = 5.0

    def api_key_set(self) -> frozenset[str]:
        """The configured operator keys; empty means the service is open (local dev)."""
        return frozenset(key.strip() for key in self.api_keys.split(",") if key.strip())
