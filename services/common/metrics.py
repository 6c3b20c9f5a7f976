"""Prometheus metrics of the rules services: the service itself and the games it runs."""

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
MOVES_ACCEPTED = Counter("chaiwala_moves_accepted", "Moves accepted (human and bot)", ["game_type"])
MOVES_REJECTED = Counter("chaiwala_moves_rejected", "Moves refused, by stable error code", ["game_type", "code"])
BOT_MOVES = Counter("chaiwala_bot_moves", "Moves played by server-side bots", ["game_type", "bot"])
GAMES_CREATED = Counter("chaiwala_games_created", "Games created", ["game_type"])
GAMES_FINISHED = Counter("chaiwala_games_finished", "Games that reached their end", ["game_type"])
# Every process reads the same count from Redis: with several processes the scrape takes the max.
GAMES_ACTIVE = Gauge(
    "chaiwala_games_active", "Games created and not yet finished or aborted", ["game_type"], multiprocess_mode="max"
)
GAME_LENGTH = Histogram(
    "chaiwala_game_length_moves",
    "Moves in a finished game",
    ["game_type"],
    buckets=(10, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400),
)
FINAL_SCORE = Histogram(
    "chaiwala_final_score",
    "Final score of each seat",
    ["game_type"],
    buckets=(-20, 0, 10, 20, 40, 60, 80, 100, 120, 150, 200, 300, 500),
)
WINS = Counter("chaiwala_wins", "Wins by seat position", ["game_type", "seat"])
ENGINE_APPLY = Histogram(
    "chaiwala_engine_apply_seconds",
    "Time in the rules engine per accepted move",
    ["game_type"],
    buckets=LATENCY_BUCKETS,
)


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
