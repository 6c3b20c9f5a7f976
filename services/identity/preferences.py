"""A player's notification preferences: which notices they want, their quiet hours and language.

Owned here, below both readers: the notification sender (:mod:`services.notify`) honours them, and
the webhook dispatcher carries them in ``turn.started`` / ``turn.reminder`` so a platform pushing
to its own apps can honour them too.  ``chaiwala:push:{push}:prefs:<player>`` holds them as JSON
(absent: the defaults).

Notice types: ``your_turn``, ``deadline_near``, ``invited``, ``match_found``, ``game_finished``.
Quiet hours run ``HH:MM`` to ``HH:MM`` in the player's IANA time zone (past midnight when the end
comes first); a notice due inside them waits until they end.  Languages: ``en``, ``es``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson

from services.common import errors

NOTICE_TYPES = ("your_turn", "deadline_near", "invited", "match_found", "game_finished")
LANGUAGES = ("en", "es")
_HHMM = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
MAX_TIME_ZONE = 64


def prefs_key(player: str) -> str:
    """A player's preferences."""
    return f"chaiwala:push:{{push}}:prefs:{player}"


@dataclass(frozen=True)
class Preferences:
    """What a player wants to hear, when and in which language."""

    notices: tuple[str, ...] = NOTICE_TYPES
    quiet_start: str = ""
    quiet_end: str = ""
    time_zone: str = "UTC"
    language: str = "en"

    def to_dict(self) -> dict[str, Any]:
        """As stored and as the API shows it."""
        data: dict[str, Any] = {"notices": list(self.notices), "time_zone": self.time_zone, "language": self.language}
        if self.quiet_start:
            data["quiet_hours"] = {"start": self.quiet_start, "end": self.quiet_end}
        return data

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Preferences:
        """Stored preferences (already checked when set)."""
        quiet = data.get("quiet_hours") or {}
        return Preferences(
            notices=tuple(data.get("notices", NOTICE_TYPES)),
            quiet_start=str(quiet.get("start", "")),
            quiet_end=str(quiet.get("end", "")),
            time_zone=str(data.get("time_zone") or "UTC"),
            language=str(data.get("language") or "en"),
        )

    def held_until(self, now_ms: int) -> int:
        """When a notice due at ``now_ms`` may go: ``now_ms``, or the end of the quiet hours it falls in."""
        if not self.quiet_start or self.quiet_start == self.quiet_end:
            return now_ms
        zone = ZoneInfo(self.time_zone)
        local = datetime.fromtimestamp(now_ms / 1000, zone)
        start, end = _minutes(self.quiet_start), _minutes(self.quiet_end)
        minute = local.hour * 60 + local.minute
        inside = start <= minute < end if start < end else minute >= start or minute < end
        if not inside:
            return now_ms
        days = 1 if start > end and minute >= start else 0
        ends = (local + timedelta(days=days)).replace(hour=end // 60, minute=end % 60, second=0, microsecond=0)
        return max(now_ms, int(ends.timestamp() * 1000))


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def check_preferences(notices: list[str], start: str, end: str, time_zone: str, language: str) -> Preferences:
    """Preferences as a player sets them, or ``invalid`` (a stable code) and nothing changes."""
    unknown = [name for name in notices if name not in NOTICE_TYPES]
    if unknown or len(set(notices)) != len(notices):
        raise errors.invalid("bad_notices", f"notices are distinct names among {', '.join(NOTICE_TYPES)}")
    if bool(start) != bool(end) or any(value and not _HHMM.fullmatch(value) for value in (start, end)):
        raise errors.invalid("bad_quiet_hours", "quiet_hours has a start and an end, each HH:MM (24 h)")
    zone = time_zone or "UTC"
    try:
        if len(zone) > MAX_TIME_ZONE:
            raise ValueError(zone)
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise errors.invalid("bad_time_zone", "time_zone is an IANA time zone name, e.g. Europe/Madrid") from None
    if (language or "en") not in LANGUAGES:
        raise errors.invalid("bad_language", f"language is one of {', '.join(LANGUAGES)}")
    return Preferences(tuple(notices), start, end, zone, language or "en")




async def read_preferences(redis: Any, player: str) -> Preferences:
    """A player's preferences (the defaults until they set some)."""
    raw = await redis.get(prefs_key(player))
    return Preferences.from_dict(orjson.loads(raw)) if raw else Preferences()


async def read_many_preferences(redis: Any, players: set[str]) -> dict[str, Preferences]:
    """Several players' preferences in one round trip (the defaults for those who set none)."""
    order = sorted(players)
    raw = await redis.mget([prefs_key(player) for player in order]) if order else []
    return {player: Preferences.from_dict(orjson.loads(item)) if item else Preferences()
            for player, item in zip(order, raw, strict=True)}  # fmt: skip


async def write_preferences(redis: Any, player: str, preferences: Preferences) -> None:
    """Replace a player's preferences."""
    await redis.set(prefs_key(player), orjson.dumps(preferences.to_dict()))
