"""The retention policy, from settings (``CHAIWALA_RETENTION_*``, ``CHAIWALA_IDLE_ABORT_SECONDS``).

* A finished or aborted game keeps its full log (snapshot, event stream) for
  ``CHAIWALA_RETENTION_FULL_LOG_SECONDS`` (default 7 days); then the conductor compacts it to its
  replay record (``CHAIWALA_RETENTION_MODE=compact``, the default) or deletes it (``delete``).
* An active game nobody moved in for ``CHAIWALA_IDLE_ABORT_SECONDS`` (default 30 days; 0 = never)
  is aborted by the conductor, with an ``idle`` entry in its log.

Every process that commits (rules services, conductors) reads the idle limit, because each
commit schedules the game's next attention (:func:`services.games.lifecycle.attention_due`).
"""

from __future__ import annotations

import os
from typing import Any

from pydantic_settings import BaseSettings, SettingsConfigDict

from services.common.attention import SHARD_COUNT, SHARD_TAGS, shard_of

DAY_SECONDS = 24 * 3600
MODES = ("compact", "delete")


class RetentionSettings(BaseSettings):
    """The conductor's retention settings."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_RETENTION_", extra="ignore")

    full_log_seconds: float = 7 * DAY_SECONDS
    mode: str = "compact"
    # How often a conductor looks for games due for compaction, and how many it takes per look.
    sweep_seconds: float = 60.0
    batch: int = 100

    def full_log_ms(self) -> int:
        """How long an ended game keeps its full log, in ms."""
        return int(self.full_log_seconds * 1000)


def idle_abort_ms() -> int:
    """How long an active game may go without a log entry before the conductor aborts it (0 = never).

    Read from the environment on every call (a dictionary look-up), so that every process that
    schedules attention agrees with the conductors without wiring a setting through each of them.
    """
    raw = os.environ.get("CHAIWALA_IDLE_ABORT_SECONDS", "")
    seconds = float(raw) if raw.strip() else 30.0 * DAY_SECONDS
    return max(0, int(seconds * 1000))


# Ended (finished or aborted) games still holding their full log, scored by when they ended (Unix ms):
# one sorted set per attention shard, so the commit that ends a game files it in the same atomic
# step (the game's keys, its queue shard and these share a Redis Cluster slot).
LEGACY_ENDED_INDEX = "chaiwala:retention:ended"
ENDED_STATUSES = frozenset({"finished", "aborted"})


def ended_key(shard: int) -> str:
    """The retention index of one shard."""
    return f"chaiwala:retention:{{{SHARD_TAGS[shard]}}}:ended"


def ended_key_for(game_id: str) -> str:
    """The retention index of a game's shard."""
    return ended_key(shard_of(game_id))


def ended_keys() -> list[str]:
    """Every shard's retention index."""
    return [ended_key(shard) for shard in range(SHARD_COUNT)]


def note_ended(pipe: Any, game_id: str, status: str, now_ms: int) -> None:
    """Queue the start of a game's retention clock on ``pipe`` when it ends (creation and the
    lobby file it there; a commit's script does it itself, see :mod:`services.games.scripts`)."""
    if status in ENDED_STATUSES:
        pipe.zadd(ended_key_for(game_id), {game_id: now_ms}, nx=True)
