"""The runtime contract the deployment files are checked against (process commands, env, ports, metrics).

Mirrors the team's runtime contract: the platform code implements exactly these names, so the compose
file, the Kubernetes manifests and the Grafana dashboard may use nothing else.
"""

from __future__ import annotations

from pathlib import Path

from services.common.registry import game_types

ROOT = Path(__file__).resolve().parents[2]

# The registered games (services/games_registry.py): the deploy files must list exactly these.
GAME_TYPES: tuple[str, ...] = tuple(game_types())
RULES_SERVICE_MODULE = "services.rules.server"
GATEWAY_MODULE = "gateway"
CONDUCTOR_MODULE = "services.conductor"
DIRECTOR_MODULE = "services.tournament"
DIRECTOR_SERVICE_NAMES = ("chaiwala.tournament.v1.TournamentService", "chaiwala.rating.v1.RatingService")
WEBHOOK_MODULE = "services.webhook"
WEBHOOK_SERVICE_NAME = "chaiwala.v1.WebhookService"
WEBHOOK_GRPC_PORT = 50060
MATCHMAKER_MODULE = "services.matchmaking"
MATCHMAKER_SERVICE_NAME = "chaiwala.v1.MatchmakingService"
NOTIFY_MODULE = "services.notify"
NOTIFY_SERVICE_NAME = "chaiwala.v1.NotifyService"
NOTIFY_GRPC_PORT = 50070
RULES_SERVICE_NAME = "chaiwala.v1.RulesService"

# Environment variables by consumer.
ENV_RULES: frozenset[str] = frozenset(
    {
        "REDIS_URL",
        "CHAIWALA_REDIS_CLUSTER",
        "CHAIWALA_GRPC_HOST",
        "CHAIWALA_GRPC_PORT",
        "CHAIWALA_METRICS_PORT",
        "CHAIWALA_API_KEYS",
        "CHAIWALA_INSECURE_OPEN",
        "CHAIWALA_LOG_FORMAT",
        "CHAIWALA_LOG_LEVEL",
        # Processes sharing the gRPC port (services.common.workers) and the idle limit (services.retention).
        "CHAIWALA_GRPC_PROCESSES",
        "CHAIWALA_IDLE_ABORT_SECONDS",
        # Turn reminders (services.clock.reminders): read wherever attention is scheduled.
        "CHAIWALA_TURN_REMINDERS_S",
        "CHAIWALA_TURN_REMINDER_MIN_CLOCK_S",
        # The metrics endpoint's optional bearer token (services.common.metrics_http).
        "CHAIWALA_METRICS_TOKEN",
        # Gateways whose relayed guest sessions are counted already (services.identity.quota).
        "CHAIWALA_TRUSTED_GATEWAYS",
        # How long a stream ticket opens its stream (services.identity.settings).
        "CHAIWALA_STREAM_TICKET_SECONDS",
        # Redis's password from a mounted secret, and the master key ring (services.common.settings,
        # services.common.sealing).
        "CHAIWALA_REDIS_PASSWORD_FILE",
        "CHAIWALA_REDIS_ALLOW_NO_PASSWORD",
        "CHAIWALA_SECRET_KEYS_FILE",
    }
)
ENV_GATEWAY: frozenset[str] = frozenset(
    {
        "CHAIWALA_LOG_FORMAT",
        "CHAIWALA_LOG_LEVEL",
        "CHAIWALA_HTTP_HOST",
        "CHAIWALA_HTTP_PORT",
        "CHAIWALA_CORS_ORIGINS",
        "CHAIWALA_HTTP_WORKERS",
        *(f"CHAIWALA_SERVICE_{game.upper()}" for game in GAME_TYPES),
        "CHAIWALA_SERVICE_TOURNAMENT",
        "CHAIWALA_SERVICE_WEBHOOK",
        "CHAIWALA_SERVICE_MATCHMAKING",
        "CHAIWALA_SERVICE_NOTIFY",
        "CHAIWALA_METRICS_TOKEN",
        # The proxies whose X-Forwarded-For names the client (gateway.settings).
        "CHAIWALA_TRUSTED_PROXIES",
    }
)
# The conductor reads the rules services' settings (it commits like them) but checks no API keys.
ENV_CONDUCTOR: frozenset[str] = (ENV_RULES - {"CHAIWALA_API_KEYS"}) | {
    "CHAIWALA_CONDUCTOR_LEASE_MS",
    # Worker processes of the search bots (services/conductor/search_pool.py).
    "CHAIWALA_CONDUCTOR_SEARCH_WORKERS",
    # The retention policy the conductor applies (services.retention.policy).
    "CHAIWALA_RETENTION_FULL_LOG_SECONDS",
    "CHAIWALA_RETENTION_MODE",
    "CHAIWALA_RETENTION_SWEEP_SECONDS",
    "CHAIWALA_RETENTION_BATCH",
}
# The webhook dispatcher: a service's settings plus its delivery policy (services/webhook/settings.py).
ENV_WEBHOOK: frozenset[str] = ENV_RULES | {
    "CHAIWALA_WEBHOOK_ALLOW_PRIVATE",
    "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK",
    "CHAIWALA_WEBHOOK_RETRY_BASE_S",
    "CHAIWALA_WEBHOOK_RETRY_CAP_S",
    "CHAIWALA_WEBHOOK_RETRY_WINDOW_S",
    "CHAIWALA_WEBHOOK_TIMEOUT_S",
    "CHAIWALA_WEBHOOK_CONCURRENCY",
    "CHAIWALA_WEBHOOK_LEASE_MS",
    "CHAIWALA_WEBHOOK_POLL_S",
    "CHAIWALA_WEBHOOK_CONSUMER",
}
# The notification sender: a service's settings, the webhooks' target switches and its push policy
# (services/notify/settings.py).
ENV_NOTIFY: frozenset[str] = ENV_RULES | {
    "CHAIWALA_WEBHOOK_ALLOW_PRIVATE",
    "CHAIWALA_WEBHOOK_ALLOW_LOOPBACK",
    *(f"CHAIWALA_NOTIFY_{name}" for name in ("GATHER_MS", "RETRY_BASE_S", "RETRY_CAP_S", "RETRY_WINDOW_S",
                                             "TIMEOUT_S", "LEASE_MS", "POLL_S", "TTL_S", "VAPID_SUBJECT",
                                             "BASE_URL", "CONSUMER")),
}
# The tournament director: a rules service's settings plus where the rules services are (it creates games).
ENV_DIRECTOR: frozenset[str] = ENV_RULES | {f"CHAIWALA_SERVICE_{game.upper()}" for game in GAME_TYPES}
# The matchmaker: the director's (it creates games) plus its policy (services/matchmaking/settings.py).
ENV_MATCHMAKER: frozenset[str] = ENV_DIRECTOR | {
    f"CHAIWALA_MATCHMAKING_{name}"
    for name in (
        "TICKET_TTL_S", "MAX_TICKETS", "BAND_BASE", "BAND_PER_SECOND", "BAND_MAX",
        "SMALLER_AFTER_S", "REMATCH_AFTER_S", "RECENT_WINDOW_S", "POLL_S", "LEASE_MS", "FORMING_LEASE_MS",
        "POOL_WINDOW", "ENDED_TTL_S",
    )
}  # fmt: skip
ENV_ALL: frozenset[str] = (ENV_RULES | ENV_GATEWAY | ENV_CONDUCTOR | ENV_WEBHOOK | ENV_NOTIFY | ENV_DIRECTOR
                            | ENV_MATCHMAKER)  # fmt: skip
# Each platform process by role: the module its command runs (``python -m <module>``; a rules
# service adds its game) and the settings it may be given.
ROLES: dict[str, tuple[str, frozenset[str]]] = {
    "rules": (RULES_SERVICE_MODULE, ENV_RULES),
    "gateway": (GATEWAY_MODULE, ENV_GATEWAY),
    "conductor": (CONDUCTOR_MODULE, ENV_CONDUCTOR),
    "director": (DIRECTOR_MODULE, ENV_DIRECTOR),
    "webhook": (WEBHOOK_MODULE, ENV_WEBHOOK),
    "matchmaker": (MATCHMAKER_MODULE, ENV_MATCHMAKER),
    "notify": (NOTIFY_MODULE, ENV_NOTIFY),
}


def role_of(command: list[str]) -> tuple[str, str | None] | None:
    """(role, game) of a container's command, the game for a rules service only; None when the
    command runs no platform process (or a process with arguments it takes none of)."""
    for role, (module, _) in ROLES.items():
        if command[:3] != ["python", "-m", module]:
            continue
        if role == "rules":
            assert len(command) == 4, f"expected exactly one game type argument: {command}"
            return role, command[3]
        return (role, None) if len(command) == 3 else None
    return None


DEFAULTS: dict[str, str] = {
    "CHAIWALA_GRPC_PORT": "50051",
    "CHAIWALA_METRICS_PORT": "9090",
    "CHAIWALA_HTTP_PORT": "8000",
}
GATEWAY_PORT = 8000

# Metric name -> (type, label names).
METRICS: dict[str, tuple[str, frozenset[str]]] = {
    "chaiwala_http_requests_total": ("counter", frozenset({"method", "route", "status"})),
    "chaiwala_http_request_duration_seconds": ("histogram", frozenset({"method", "route"})),
    "chaiwala_rpc_requests_total": ("counter", frozenset({"game_type", "method", "code"})),
    "chaiwala_rpc_duration_seconds": ("histogram", frozenset({"game_type", "method"})),
    # Moves seats submitted (rules services); bots' moves are chaiwala_bot_moves_total (conductor).
    "chaiwala_moves_accepted_total": ("counter", frozenset({"game_type"})),
    "chaiwala_moves_rejected_total": ("counter", frozenset({"game_type", "code"})),
    "chaiwala_bot_moves_total": ("counter", frozenset({"game_type", "bot"})),
    "chaiwala_games_created_total": ("counter", frozenset({"game_type"})),
    "chaiwala_games_active": ("gauge", frozenset({"game_type"})),
    "chaiwala_engine_apply_seconds": ("histogram", frozenset({"game_type"})),
    "chaiwala_lobby_joins_total": ("counter", frozenset({"game_type"})),
    # Whole games, counted once from the outbox by the conductor (services/conductor/game_facts.py).
    "chaiwala_games_started_total": ("counter", frozenset({"game_type"})),
    "chaiwala_games_ended_total": ("counter", frozenset({"game_type", "reason"})),
    "chaiwala_games_finished_total": ("counter", frozenset({"game_type"})),
    "chaiwala_game_duration_seconds": ("histogram", frozenset({"game_type"})),
    "chaiwala_game_length_moves": ("histogram", frozenset({"game_type"})),
    "chaiwala_final_score": ("histogram", frozenset({"game_type"})),
    "chaiwala_wins_total": ("counter", frozenset({"game_type", "seat"})),
    # The conductor's own.
    "chaiwala_conductor_queue_depth": ("gauge", frozenset()),
    "chaiwala_conductor_queue_lag_seconds": ("gauge", frozenset()),
    "chaiwala_conductor_bot_move_seconds": ("histogram", frozenset({"game_type"})),
    "chaiwala_conductor_timeouts_total": ("counter", frozenset({"game_type", "policy"})),
    "chaiwala_conductor_claims_total": ("counter", frozenset({"game_type"})),
    "chaiwala_conductor_claims_reclaimed_total": ("counter", frozenset()),
    "chaiwala_conductor_commits_dropped_total": ("counter", frozenset({"game_type"})),
    # The tournament director's own (services/tournament/metrics.py).
    "chaiwala_tournaments_running": ("gauge", frozenset()),
    "chaiwala_tournaments_created_total": ("counter", frozenset({"game_type", "format"})),
    "chaiwala_tournaments_finished_total": ("counter", frozenset({"game_type", "format"})),
    "chaiwala_tournament_rounds_started_total": ("counter", frozenset({"game_type"})),
    "chaiwala_tournament_games_created_total": ("counter", frozenset({"game_type"})),
    "chaiwala_ratings_updated_total": ("counter", frozenset({"game_type"})),
    # The webhook dispatcher's own.
    "chaiwala_webhook_deliveries_total": ("counter", frozenset({"outcome"})),
    "chaiwala_webhook_delivery_seconds": ("histogram", frozenset()),
    "chaiwala_webhook_pending": ("gauge", frozenset()),
    "chaiwala_webhook_dead_letters": ("gauge", frozenset()),
    "chaiwala_webhook_fanned_out_total": ("counter", frozenset({"event_type"})),
    "chaiwala_outbox_lag_events": ("gauge", frozenset({"group"})),
    "chaiwala_outbox_lag_seconds": ("gauge", frozenset({"group"})),
    # The matchmaker's own (services/matchmaking/metrics.py).
    "chaiwala_matchmaking_searching": ("gauge", frozenset({"pool", "game_type"})),
    "chaiwala_matchmaking_time_to_match_seconds": ("histogram", frozenset({"pool", "game_type"})),
    "chaiwala_matchmaking_groups_total": ("counter", frozenset({"pool", "game_type", "size"})),
    "chaiwala_matchmaking_bot_seats_total": ("counter", frozenset({"game_type"})),
    "chaiwala_matchmaking_tickets_ended_total": ("counter", frozenset({"outcome"})),
    "chaiwala_matchmaking_takeovers_total": ("counter", frozenset()),
    "chaiwala_matchmaking_forming": ("gauge", frozenset()),
    "chaiwala_conductor_idle_aborts_total": ("counter", frozenset({"game_type"})),
    "chaiwala_conductor_games_compacted_total": ("counter", frozenset({"mode"})),
    "chaiwala_conductor_turn_reminders_total": ("counter", frozenset({"game_type"})),
    # The notification sender's own (services/notify/metrics.py).
    "chaiwala_notify_sent_total": ("counter", frozenset({"type"})),
    "chaiwala_notify_failed_total": ("counter", frozenset({"reason"})),
    "chaiwala_notify_subscriptions_removed_total": ("counter", frozenset({"reason"})),
    "chaiwala_notify_dropped_total": ("counter", frozenset()),
    "chaiwala_notify_queued_total": ("counter", frozenset({"type"})),
    "chaiwala_notify_delivery_seconds": ("histogram", frozenset()),
    "chaiwala_notify_due_players": ("gauge", frozenset()),
}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def exposed_series_names() -> dict[str, str]:
    """Every series name Prometheus can see (histograms expand to _bucket/_sum/_count) -> metric name."""
    names: dict[str, str] = {}
    for metric, (kind, _labels) in METRICS.items():
        if kind == "histogram":
            for suffix in HISTOGRAM_SUFFIXES:
                names[metric + suffix] = metric
        else:
            names[metric] = metric
    return names
