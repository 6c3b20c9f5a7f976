"""Prometheus metrics of the matchmaker (the Grafana row "Matchmaking" reads them)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Seconds from a ticket's creation to its match: quick pools match in seconds, slow ones in minutes.
MATCH_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600)

SEARCHING = Gauge("chaiwala_matchmaking_searching", "Tickets searching, by pool", ["pool", "game_type"])
TIME_TO_MATCH = Histogram(
    "chaiwala_matchmaking_time_to_match_seconds", "Time from a ticket's creation to its match, by pool",
    ["pool", "game_type"], buckets=MATCH_BUCKETS,
)  # fmt: skip
GROUPS = Counter("chaiwala_matchmaking_groups", "Groups formed (games created), by pool and size",
                 ["pool", "game_type", "size"])  # fmt: skip
BOT_SEATS = Counter("chaiwala_matchmaking_bot_seats", "Seats filled by bots, by game type", ["game_type"])
ENDED = Counter("chaiwala_matchmaking_tickets_ended", "Tickets that ended unmatched: expired or cancelled",
                ["outcome"])  # fmt: skip
TAKEOVERS = Counter("chaiwala_matchmaking_takeovers", "Groups taken over from a matchmaker that died")
FORMING = Gauge("chaiwala_matchmaking_forming", "Groups whose game is being created")
