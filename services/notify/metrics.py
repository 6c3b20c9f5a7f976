"""Prometheus metrics of the notification sender."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

SENT = Counter("chaiwala_notify_sent", "Pushes accepted by a push service, by notice type", ["type"])
FAILED = Counter("chaiwala_notify_failed", "Pushes that failed (retried later), by reason", ["reason"])
REMOVED = Counter(
    "chaiwala_notify_subscriptions_removed", "Subscriptions removed: gone (404/410) or refused target", ["reason"]
)
DROPPED = Counter("chaiwala_notify_dropped", "Notices dropped after failing for the whole retry window")
QUEUED = Counter("chaiwala_notify_queued", "Notices queued from outbox facts, by notice type", ["type"])
LATENCY = Histogram(
    "chaiwala_notify_delivery_seconds",
    "From the fact (the commit) to the push service accepting the push (quiet hours and gathering included)",
    buckets=(0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600),
)
DUE = Gauge("chaiwala_notify_due_players", "Players with notices due now")
