"""Plain data of notifications: subscriptions, notices and the messages sent.

Notice types (the decrypted payload's ``type``) and the players' preferences are the identity
domain's (:mod:`services.identity.preferences`): the webhook dispatcher reads them too, to carry
them in turn events.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field
from typing import Any

from services.common import errors

MAX_ENDPOINT = 2048


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
