"""Prometheus metrics of the conductor."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

from services.common.metrics import LATENCY_BUCKETS

QUEUE_DEPTH = Gauge("chaiwala_conductor_queue_depth", "Games due for attention now (bots to move, clocks run out)")
QUEUE_LAG = Gauge("chaiwala_conductor_queue_lag_seconds", "How long the oldest due game has been waiting")
BOT_MOVE_LATENCY = Histogram(
    "chaiwala_conductor_bot_move_seconds", "Time a bot took to choose and play one move", ["game_type"],
    buckets=LATENCY_BUCKETS,
)  # fmt: skip
TIMEOUTS = Counter("chaiwala_conductor_timeouts", "Clock timeouts fired, by policy", ["game_type", "policy"])
CLAIMS = Counter("chaiwala_conductor_claims", "Games claimed for attention", ["game_type"])
CLAIMS_RECLAIMED = Counter(
    "chaiwala_conductor_claims_reclaimed", "Claims taken over after another conductor's lease ran out"
)
COMMITS_DROPPED = Counter(
    "chaiwala_conductor_commits_dropped", "Conductor commits that lost a version race (dropped)", ["game_type"]
)
IDLE_ABORTS = Counter("chaiwala_conductor_idle_aborts", "Active games aborted after going idle too long", ["game_type"])
REMINDERS = Counter("chaiwala_conductor_turn_reminders", "turn.reminder facts written to the outbox", ["game_type"])
