"""What the rate limits (gateway.limits), the failed-login watch (gateway.auth_failures) and the
stream caps (gateway.stream_caps) share: a refusal and the limits' metrics, and how every gauge of
open event streams is declared (:func:`stream_gauge`, also the fan-out's, gateway.fanout).  Kept
apart so they import it, not each other (no circle inside the gateway)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import limits
from prometheus_client import CollectorRegistry, Counter, Gauge

from gateway.problems import Problem
from gateway.settings import GatewaySettings


def stream_gauge(name: str, documentation: str, registry: CollectorRegistry) -> Gauge:
    """A gauge of open event streams (streams, their shared upstreams, the clients on them): summed
    over the gateway's workers (``livesum``: a worker that stopped takes its count with it)."""
    return Gauge(name, documentation, registry=registry, multiprocess_mode="livesum")


@dataclass(frozen=True)
class Refusal:
    """Which limit refused a request, and when to come back."""

    name: str
    item: limits.RateLimitItem | None  # None: the limit could not be checked (its store failed)
    reset_at: float

    def problem(self) -> Problem:
        """The 429 problem with ``Retry-After`` and ``RateLimit-*`` headers (503 when the store failed)."""
        if self.item is None:  # its store failed
            detail, headers = f"the {self.name} limit cannot be checked now; retry shortly", {"Retry-After": "1"}
            return Problem(503, "store_unavailable", detail, headers=headers)
        wait = max(1, math.ceil(self.reset_at - time.time()))
        headers = {
            "Retry-After": str(wait),
            "RateLimit-Limit": str(self.item.amount),
            "RateLimit-Remaining": "0",
            "RateLimit-Reset": str(wait),
        }
        detail = f"{self.name} limit of {self.item} reached; retry in {wait}s"
        return Problem(429, "rate_limited", detail, headers=headers)


class LimitMetrics:
    """The configured limits as gauges, and how often each refused or failed."""

    def __init__(self, registry: CollectorRegistry, settings: GatewaySettings) -> None:
        self.configured = Gauge(
            "chaiwala_gateway_limit",
            "Configured gateway limits (requests per window, seconds, or streams)",
            ["limit", "window"],
            registry=registry,
            multiprocess_mode="max",  # the same configuration in every worker
        )
        self.refused = Counter(
            "chaiwala_gateway_limited", "Requests refused by a gateway limit", ["limit"], registry=registry
        )
        self.errors = Counter(
            "chaiwala_gateway_limit_errors", "Limit checks skipped because the limit store failed", registry=registry
        )
        self.streams = stream_gauge("chaiwala_gateway_sse_streams", "Open SSE streams (summed over workers)", registry)
        for name, text in settings.rate_limits().items():
            for item in limits.parse_many(text):
                self.configured.labels(name, f"{item.multiples} {item.GRANULARITY.name}").set(item.amount)
        for name, value in settings.fixed_limits().items():
            self.configured.labels(name, "").set(value)
