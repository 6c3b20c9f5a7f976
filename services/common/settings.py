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
    # Processes of this service sharing the gRPC port (0 = one per core; services.common.workers).
    grpc_processes: int = 0
    api_keys: str = ""
    # Serving a non-loopback address with no API keys needs this set on purpose.
    insecure_open: bool = False
    log_format: str = "json"
    log_level: str = "info"

    def api_key_set(self) -> frozenset[str]:
        """The configured operator keys; empty means the service is open (local dev)."""
        return frozenset(key.strip() for key in self.api_keys.split(",") if key.strip())
