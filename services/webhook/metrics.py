"""Prometheus metrics of the webhook dispatcher."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from services.common.metrics import LATENCY_BUCKETS

DELIVERIES = Counter(
    "chaiwala_webhook_deliveries",
    "Delivery attempts by outcome: delivered, failed (will retry), refused (target not allowed), dead",
    ["outcome"],
)
DELIVERY_SECONDS = Histogram(
    "chaiwala_webhook_delivery_seconds", "Time one delivery attempt took", buckets=LATENCY_BUCKETS
)
PENDING = Gauge(
    "chaiwala_webhook_pending",
    "Deliveries due for their first or next attempt (not those waiting behind an earlier one of their game)",
)
DEAD_LETTERS = Gauge(
    "chaiwala_webhook_dead_letters", "Deliveries on the dead-letter list (retries exhausted, not redelivered)"
)
FANNED_OUT = Counter("chaiwala_webhook_fanned_out", "Deliveries created from outbox events", ["event_type"])
OUTBOX_LAG_EVENTS = Gauge(
    "chaiwala_outbox_lag_events", "Outbox events a consumer group has not processed yet", ["group"]
)
OUTBOX_LAG_SECONDS = Gauge(
    "chaiwala_outbox_lag_seconds", "Age of the oldest outbox event a consumer group has not processed", ["group"]
)
