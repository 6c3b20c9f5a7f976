"""One Web Push request: the payload encrypted for the subscription (RFC 8291, ``aes128gcm``),
signed with VAPID (RFC 8292) and posted to its push service (RFC 8030).

The endpoint passes the webhooks' target checks (:mod:`services.webhook.targets`) before every
request, as a webhook URL does; redirects are never followed.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from pywebpush import WebPusher

from services.notify.model import Subscription
from services.notify.vapid import VapidKeys
from services.webhook.targets import TargetPolicy, TargetRefused, check_target

GONE = (404, 410)  # the push service says the subscription is no more


@dataclass(frozen=True)
class Outcome:
    """How one push went: ``sent``, ``gone`` (remove the subscription), ``refused`` (the target is
    not allowed: remove it too) or ``failed`` (try again later)."""

    kind: str
    status: int = 0


def encrypt(subscription: Subscription, payload: bytes) -> bytes:
    """The request body: ``payload`` encrypted to the browser's keys."""
    body = WebPusher(subscription.info()).encode(payload, "aes128gcm")["body"]
    return bytes(body)


async def push(http: httpx.AsyncClient, keys: VapidKeys, subject: str, policy: TargetPolicy,
               subscription: Subscription, payload: bytes, topic: str, ttl_s: int) -> Outcome:  # fmt: skip
    """Send ``payload`` to one subscription; ``topic`` lets the push service replace an undelivered
    earlier copy of the same message (so a resend after a crash is not shown twice)."""
    try:
        await check_target(subscription.endpoint, policy)
    except TargetRefused:
        return Outcome("refused")
    headers = {
        **keys.headers(subscription.endpoint, subject),
        "TTL": str(ttl_s),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "Urgency": "high",
        "Topic": topic,
    }
    try:
        answer = await http.post(subscription.endpoint, content=encrypt(subscription, payload), headers=headers)
    except httpx.HTTPError:
        return Outcome("failed")
    if 200 <= answer.status_code < 300:
        return Outcome("sent", answer.status_code)
    if answer.status_code in GONE:
        return Outcome("gone", answer.status_code)
    return Outcome("failed", answer.status_code)
