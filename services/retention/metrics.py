"""The retention sweep's metric (the sweep runs in the conductor's process, hence the name)."""

from __future__ import annotations

from prometheus_client import Counter

GAMES_COMPACTED = Counter(
    "chaiwala_conductor_games_compacted", "Ended games past their full-log retention, by what was done", ["mode"]
)
