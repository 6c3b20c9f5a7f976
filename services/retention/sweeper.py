"""The conductor's retention task: compact (or delete) ended games whose full-log time is over.

Any number of conductors may sweep at once: compaction is guarded by the version it read and
deletion only touches an ended game, so the work is done once and a lost race writes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.games.store import GameStore
from services.retention import archive, metrics
from services.retention.policy import RetentionSettings

log = get_logger("retention")


async def sweep(store: GameStore, settings: RetentionSettings, now_ms: int) -> list[archive.Outcome]:
    """One pass: every ended game due (up to the batch size), compacted or deleted."""
    outcomes = []
    for game_id in await archive.due_games(store, now_ms, settings.full_log_ms(), settings.batch):
        outcome = await archive.apply_policy(store, game_id, settings.mode)
        if outcome.action in ("compacted", "deleted"):
            metrics.GAMES_COMPACTED.labels(outcome.action).inc()
            log.info("game_retention", game_id=game_id, action=outcome.action)
        outcomes.append(outcome)
    return outcomes


async def run(
    store: GameStore, settings: RetentionSettings, stop: asyncio.Event, watch: StoreWatch | None = None
) -> None:
    """Sweep every ``sweep_seconds`` (at once again while a full batch came back) until ``stop``;
    ``watch`` (the process's) is told of Redis outages, logged once each."""
    watch = watch or StoreWatch(log)
    while not stop.is_set():
        done = 0
        try:
            done = len(await sweep(store, settings, int(time.time() * 1000)))
        except Exception as error:
            if not watch.failed(error, "retention_sweep"):  # e.g. Redis away: try again next time
                log.exception("retention_sweep_failed")
        else:
            watch.answered()
        if done >= settings.batch:
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.sweep_seconds)
