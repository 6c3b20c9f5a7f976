"""Prometheus metrics of the tournament director (on its ``CHAIWALA_METRICS_PORT``)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

TOURNAMENTS_RUNNING = Gauge("chaiwala_tournaments_running", "Tournaments running now")
TOURNAMENTS_CREATED = Counter(
    "chaiwala_tournaments_created_total", "Tournaments created", ["game_type", "format"]
)
TOURNAMENTS_FINISHED = Counter(
    "chaiwala_tournaments_finished_total", "Tournaments that played their last round", ["game_type", "format"]
)
ROUNDS_STARTED = Counter("chaiwala_tournament_rounds_started_total", "Tournament rounds started", ["game_type"])
GAMES_CREATED = Counter("chaiwala_tournament_games_created_total", "Games created for tournament tables", ["game_type"])
RATINGS_UPDATED = Counter("chaiwala_ratings_updated_total", "Finished rated games applied to ratings", ["game_type"])
