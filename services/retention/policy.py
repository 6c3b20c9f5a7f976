"""The retention policy, from settings (``CHAIWALA_RETENTION_*``, ``CHAIWALA_IDLE_ABORT_SECONDS``).

* A finished or aborted game keeps its full log (snapshot, event stream) for
  ``CHAIWALA_RETENTION_FULL_LOG_SECONDS`` (default 7 days); then the conductor compacts it to its
  replay record (``CHAIWALA_RETENTION_MODE=compact``, the default) or deletes it (``delete``).
* An active game nobody moved in for ``CHAIWALA_IDLE_ABORT_SECONDS`` (default 30 days; 0 = never)
  is aborted by the conductor, with an ``idle`` entry in its log.

The idle limit is read where the game's next attention is scheduled, by every process that
commits (:func:`services.games.lifecycle.idle_abort_ms`); the ended games' index is
:func:`services.filing.store.ended_key_for`'s.
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict

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
