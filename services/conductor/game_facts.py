"""Facts about whole games, counted once for the platform, from the outbox.

A game starts and ends in whichever process commits that step (a rules service for a seat's
move, a resignation or an abort; a conductor for a bot's last move, a clock or an idle abort),
so counting there would spread one series over several processes.  Instead every conductor
reads the outbox as consumer group :data:`GROUP`, which hands each event to exactly one of them,
and counts ``game.started``, ``game.finished`` and ``game.aborted`` here: the conductor is the
only process that exports these families (``docs/concepts/metrics.md``).

The group starts at the outbox's end when first created (a new deployment does not count the
retained history); like any outbox consumer it is at least once, so a conductor killed between
counting a batch and acknowledging it counts that batch again on another conductor.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from prometheus_client import Counter, Histogram

from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.outbox import OutboxEvent, ack, ensure_group, read_outbox
from services.outbox import events as game_events
from services.outbox.wait import wait_outbox

GROUP = "game-metrics"
POLL_SECONDS = 0.5  # the outbox poll on Redis Cluster, and the pause after a failure
log = get_logger("conductor")

GAMES_STARTED = Counter(
    "chaiwala_games_started", "Games that started (created full, or a lobby filled or started)", ["game_type"]
)
GAMES_ENDED = Counter(
    "chaiwala_games_ended",
    "Games that ended after starting, by how: normal, resign, timeout, abort (see docs/concepts/metrics.md)",
    ["game_type", "reason"],
)
GAMES_FINISHED = Counter("chaiwala_games_finished", "Games that ended with a result", ["game_type"])
GAME_DURATION = Histogram(
    "chaiwala_game_duration_seconds",
    "Wall-clock time from a game's start to its end (finished or aborted)",
    ["game_type"],
    buckets=(10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 43200, 86400, 259200),
)
GAME_LENGTH = Histogram(
    "chaiwala_game_length_moves",
    "Log entries of a finished game (moves, resignations, timeouts)",
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


def count(event: OutboxEvent) -> None:
    """Count one outbox event (events other than a game's start or end are not counted here)."""
    data: dict[str, Any] = event.data
    game_type = str(data.get("game_type", ""))
    if not game_type:
        return
    if event.type == game_events.GAME_STARTED:
        GAMES_STARTED.labels(game_type).inc()
    elif event.type == game_events.GAME_FINISHED:
        _ended(game_type, str(data.get("reason") or game_events.NORMAL), data)
        GAMES_FINISHED.labels(game_type).inc()
        GAME_LENGTH.labels(game_type).observe(int(data.get("version", 0)))
        result = data.get("result") or {}
        for score in result.get("scores", []):
            FINAL_SCORE.labels(game_type).observe(float(score))
        for seat in result.get("winners", []):
            WINS.labels(game_type, str(seat)).inc()
    elif event.type == game_events.GAME_ABORTED and data.get("started", True):  # not a lobby that never started
        _ended(game_type, game_events.ABORT, data)


def _ended(game_type: str, reason: str, data: dict[str, Any]) -> None:
    GAMES_ENDED.labels(game_type, reason).inc()
    if "duration_ms" in data:
        GAME_DURATION.labels(game_type).observe(int(data["duration_ms"]) / 1000)


async def prepare(redis: Any) -> bool:
    """Create the consumer group (at the outbox's end: only games from now on) unless it exists;
    ``False`` when Redis does not answer (:func:`run` tries again)."""
    try:
        await ensure_group(redis, GROUP, start="$")
    except Exception:  # Redis away at start-up: the conductor's loops wait for it anyway
        return False
    return True


async def run(redis: Any, consumer: str, stop: asyncio.Event, watch: StoreWatch, ready: bool = False) -> None:
    """Count game events from the outbox until ``stop``; acknowledge each batch once counted
    (``ready``: :func:`prepare` created the group already)."""
    while not stop.is_set():
        try:
            if not ready:
                await ensure_group(redis, GROUP, start="$")
                ready = True
            events = await read_outbox(redis, GROUP, consumer)
            if not events:  # idle: one blocking read until an event comes (services.outbox.wait)
                events = await wait_outbox(redis, GROUP, consumer, stop, POLL_SECONDS)
            for event in events:
                count(event)
            if events:
                await ack(redis, GROUP, events)
            watch.answered()
            continue
        except Exception as error:  # Redis away: the loop tries again; the events wait in the outbox
            if not watch.failed(error, "game_metrics"):
                log.exception("game_metrics_failed")
        with contextlib.suppress(TimeoutError):  # after a failure: pause before trying again
            await asyncio.wait_for(stop.wait(), POLL_SECONDS)
