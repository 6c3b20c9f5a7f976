"""The webhook dispatcher's settings (``CHAIWALA_*``, ``REDIS_URL``)."""

from __future__ import annotations

from services.common.settings import ServiceSettings


class TargetSettings(ServiceSettings):
    """A service's settings plus the target checks (services.webhook.targets.TargetPolicy), the same
    variables in every process that calls addresses outsiders named (webhooks, push endpoints)."""

    # SSRF guard: targets resolving to private, link-local or otherwise non-public addresses are
    # refused unless allowed here; loopback has its own switch (`make run` turns it on).
    webhook_allow_private: bool = False
    webhook_allow_loopback: bool = False


class WebhookSettings(TargetSettings):
    """A service's settings (Redis, gRPC host, metrics port, API keys, logs) plus delivery policy."""

    grpc_port: int = 50060
    metrics_port: int = 9160
    # Retries: exponential backoff from the base delay, doubled per attempt up to the cap, each
    # delay jittered (50-100 % of it), until the first attempt is this old; then the dead-letter list.
    webhook_retry_base_s: float = 5.0
    webhook_retry_cap_s: float = 3600.0
    webhook_retry_window_s: float = 24 * 3600.0
    # One attempt's HTTP timeout, and how many deliveries run at once per dispatcher.
    webhook_timeout_s: float = 10.0
    webhook_concurrency: int = 16
    # A claimed delivery whose dispatcher died is claimed again after this long.
    webhook_lease_ms: int = 60_000
    # How often an idle dispatcher looks at the outbox and at due deliveries.
    webhook_poll_s: float = 0.25
    # Consumer name in the outbox group (default: host name and process id).
    webhook_consumer: str = ""
