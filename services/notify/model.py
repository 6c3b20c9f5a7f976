"""Plain data of notifications: subscriptions, preferences, notices and the messages sent.

Notice types (the decrypted payload's ``type``): ``your_turn``, ``deadline_near``, ``invited``,
``match_found``, ``game_finished``.  Preferences say which a player wants, their quiet hours
(``HH:MM`` to ``HH:MM`` in their IANA time zone; a notice due inside them waits until they end)
and their language (``en`` or ``es``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from services.common import errors

NOTICE_TYPES = ("your_turn", "deadline_near", "invited", "match_found", "game_finished")
LANGUAGES = ("en", "es")
_HHMM = re.compile(r"([01]\d|2[0-3]):([0-5]\d)")
MAX_ENDPOINT = 2048
MAX_TIME_ZONE = 64


@dataclass(frozen=True)
class Subscription:
    """One browser's push subscription (``PushSubscription.toJSON()``), owned by one player."""

    subscription_id: str
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    expiration_time: float | None = None
    created_ms: int = 0

    def info(self) -> dict[str, Any]:
        """The subscription as ``pywebpush`` takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


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


def _key_bytes(value: str, name: str, size: int) -> None:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size or (name == "p256dh" and raw[:1] != b"\x04"):
        raise errors.invalid("bad_subscription", f"keys.{name} is the browser's base64url key ({size} bytes)")


def check_subscription(player_id: str, endpoint: str, p256dh: str, auth: str, expiration: float | None,
                       now_ms: int) -> Subscription:  # fmt: skip
    """A browser subscription as registered (its endpoint is checked against the target policy
    separately); its id is derived from player and endpoint, so registering again is idempotent."""
    if not endpoint.startswith("https://") and not endpoint.startswith("http://"):
        raise errors.invalid("bad_subscription", "endpoint is the push service's http(s) URL")
    if len(endpoint) > MAX_ENDPOINT:
        raise errors.invalid("bad_subscription", f"endpoint is at most {MAX_ENDPOINT} characters")
    _key_bytes(p256dh, "p256dh", 65)
    _key_bytes(auth, "auth", 16)
    subscription_id = "psub_" + hashlib.sha256(f"{player_id}|{endpoint}".encode()).hexdigest()[:24]
    return Subscription(subscription_id, player_id, endpoint, p256dh, auth, expiration, now_ms)


@dataclass(frozen=True)
class Notice:
    """One thing to tell one player about one game, from one outbox fact."""

    notice_id: str
    type: str
    game_id: str
    data: dict[str, Any] = field(default_factory=dict)
    fact_ms: int = 0  # when the fact happened (for the delivery latency; never sent)


@dataclass(frozen=True)
class Message:
    """What one push carries: one notice, or several of one type collapsed (``game_ids``)."""

    message_id: str
    payload: dict[str, Any]
    notice_ids: tuple[str, ...]
