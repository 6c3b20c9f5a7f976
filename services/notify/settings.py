"""The notification sender's settings (``CHAIWALA_*``, ``REDIS_URL``)."""

from __future__ import annotations

from services.webhook.settings import TargetSettings


class NotifySettings(TargetSettings):
    """A service's settings (Redis, gRPC host, metrics port, API keys, logs), the webhooks' target checks
    (push endpoints pass them, under the same variables) and the push policy."""

    grpc_port: int = 50070
    metrics_port: int = 9170
    # A notice waits this long before it goes, so turns due at nearly the same time collapse into one.
    notify_gather_ms: int = 3000
    # Failed pushes: exponential backoff from the base, doubled per attempt up to the cap, until a
    # player's notices have failed for this long; then they are dropped (a stale "your turn" helps nobody).
    notify_retry_base_s: float = 5.0
    notify_retry_cap_s: float = 600.0
    notify_retry_window_s: float = 6 * 3600.0
    notify_timeout_s: float = 10.0
    # A claimed player whose sender died is claimed again after this long.
    notify_lease_ms: int = 30_000
    notify_poll_s: float = 0.25
    # How long a push service keeps an undelivered message (the push's TTL header).
    notify_ttl_s: int = 24 * 3600
    # The VAPID "sub" claim: how a push service can reach the operator.
    notify_vapid_subject: str = "mailto:notifications@chaiwala.invalid"
    # Where the web client lives, for the links in notifications ('' = the same origin: /play/...).
    notify_base_url: str = ""
    # Consumer name in the outbox group (default: host name and process id).
    notify_consumer: str = ""
