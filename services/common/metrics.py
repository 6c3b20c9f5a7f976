"""Prometheus metrics of the rules services: the service itself and the moves it takes.

Facts about whole games (started, ended and how, duration, length, scores, wins) are counted
once, from the outbox, by the conductor (``services.conductor.game_facts``); moves played by
server-side bots by the conductor too (``chaiwala_bot_moves_total``).  So
``chaiwala_moves_accepted_total`` counts the moves seats submitted through the rules service.
:data:`RULES_SERVICE_ONLY` lists the families only a rules service exports
(:mod:`services.common.metrics_http`).
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RPC_REQUESTS = Counter(
    "chaiwala_rpc_requests", "RPCs handled, by method and gRPC status code", ["game_type", "method", "code"]
)
RPC_DURATION = Histogram(
    "chaiwala_rpc_duration_seconds", "RPC latency", ["game_type", "method"], buckets=LATENCY_BUCKETS
)
MOVES_ACCEPTED = Counter(
    "chaiwala_moves_accepted",
    "Moves seats submitted that were accepted (bots' moves: chaiwala_bot_moves)",
    ["game_type"],
)
MOVES_REJECTED = Counter("chaiwala_moves_rejected", "Moves refused, by stable error code", ["game_type", "code"])
# Moves tried on the position a rules process kept (services.rules.positions): committed at once,
# refused by the commit's guard (another process, the conductor or an operator moved the game;
# the load follows), or left to the load by a check on the kept position (a refusal it may not give).
KEPT_MOVES = Counter(
    "chaiwala_kept_moves", "Submissions tried on a kept position, by outcome", ["game_type", "outcome"]
)
BOT_MOVES = Counter("chaiwala_bot_moves", "Moves played by server-side bots", ["game_type", "bot"])
GAMES_CREATED = Counter("chaiwala_games_created", "Games created", ["game_type"])
LOBBY_JOINS = Counter("chaiwala_lobby_joins", "Seats taken in waiting games (JoinGame)", ["game_type"])
# Every process reads the same count from Redis: with several processes the scrape takes the max.
GAMES_ACTIVE = Gauge(
    "chaiwala_games_active", "Games created and not yet finished or aborted", ["game_type"], multiprocess_mode="max"
)
ENGINE_APPLY = Histogram(
    "chaiwala_engine_apply_seconds",
    "Time in the rules engine per accepted move",
    ["game_type"],
    buckets=LATENCY_BUCKETS,
)

# Families only a rules service exports: other processes that import the rules service (the
# conductor runs its commits) count into them too, but do not export them.
RULES_SERVICE_ONLY = (
    RPC_REQUESTS, RPC_DURATION, MOVES_ACCEPTED, MOVES_REJECTED, GAMES_CREATED, GAMES_ACTIVE, LOBBY_JOINS, ENGINE_APPLY,
    KEPT_MOVES,
)  # fmt: skip


class Children:
    """A labelled metric's children, each bound once: ``labels`` on every use is a lock and a lookup.

    ``fixed`` label values come first (e.g. the game type); the call gives the rest.
    """

    def __init__(self, metric: MetricWrapperBase, *fixed: str) -> None:
        self.metric = metric
        self.fixed = fixed
        self._bound: dict[tuple[str, ...], Any] = {}

    def __call__(self, *labels: str) -> Any:
        """The child of ``fixed + labels``."""
        child = self._bound.get(labels)
        if child is None:
            child = self._bound[labels] = self.metric.labels(*self.fixed, *labels)
        return child
