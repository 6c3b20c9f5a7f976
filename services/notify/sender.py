"""The sender's loops: outbox facts -> pending notices (fan-out), due players -> pushes.

Fan-out reads the outbox as consumer group :data:`GROUP` and queues each fact's notices once per
fact and player (:meth:`NotifyStore.queue`) before acknowledging it, so a sender killed in between
reads the fact again and queues nothing twice.  A notice waits for the gathering window (turns due
together collapse into one push) or the end of the player's quiet hours.

Delivery claims due players with a lease (a sender killed mid-send leaves them to be claimed
again), builds their messages (:mod:`services.notify.notices`) and pushes each to each of the
player's subscriptions not reached yet: a subscription is marked reached the moment its push
service accepts, so a message sent again after a crash skips it; the push ``Topic`` and the
notification ``tag`` follow from the message, so even a push repeated in that instant replaces
its copy instead of showing twice.  Nothing here runs in a request: a move only wrote its fact.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from typing import Any

import httpx

from services.clock import clock as clocks
from services.common.logs import get_logger
from services.notify import metrics, notices
from services.notify.model import Message, Notice, Subscription
from services.notify.push import push
from services.notify.settings import NotifySettings
from services.notify.store import NotifyStore
from services.notify.vapid import VapidKeys, load_keys
from services.outbox import OutboxEvent
from services.outbox.reader import OutboxReader
from services.outbox.wait import IDLE_SECONDS
from services.webhook.targets import TargetPolicy

GROUP = "notify"
CLAIM_LIMIT = 50
log = get_logger("notify")


class Sender:
    """Turns facts into notices and notices into pushes."""

    def __init__(self, redis: Any, settings: NotifySettings) -> None:
        self.redis = redis
        self.store = NotifyStore(redis)
        self.settings = settings
        self.consumer = settings.notify_consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.targets = TargetPolicy(settings.webhook_allow_private, settings.webhook_allow_loopback)
        self.http = httpx.AsyncClient(timeout=settings.notify_timeout_s, follow_redirects=False)
        self.keys: VapidKeys | None = None
        # Facts may gather for a poll interval before they are read: a notice waits seconds anyway.
        self.reader = OutboxReader(redis, GROUP, self.consumer, notices.KINDS, settings.notify_poll_s,
                                   linger_seconds=settings.notify_poll_s)  # fmt: skip
        self._stop = asyncio.Event()  # run's, once it runs

    async def start(self) -> VapidKeys:
        """Load (or make, on the very first start) the VAPID key pair."""
        self.keys = await load_keys(self.store)
        return self.keys

    # ---- fan-out ----------------------------------------------------------------------------

    async def fan_out(self) -> int:
        """Queue the notices of the outbox facts waiting now; how many facts were read."""
        events = await self.reader.read(self._stop)
        await self.take_batch(events)
        await self.reader.ack(events)  # only once every notice is queued: a crash before reads them again
        return len(events)

    async def take_batch(self, events: list[OutboxEvent]) -> int | None:
        """Queue a batch's notices (the caller acknowledges the batch after); when the first of them
        is due (``None``: nothing was queued)."""
        # Only players with a push subscription get notices (one round trip for the batch): a
        # notice for anyone else would be dropped when it fell due, after costing its queueing.
        players = {player for event in events for player, _ in notices.notices_for(event)}
        subscribed = await self.store.subscribed(players) if players else set()
        due = [when for event in events if (when := await self.take(event, subscribed)) is not None]
        return min(due, default=None)

    async def take(self, event: OutboxEvent, only: set[str] | None = None) -> int | None:
        """Queue one fact's notices (for the players in ``only``, when given), as each player's
        preferences allow; when the first of them is due (``None``: nothing was queued)."""
        now, first = clocks.now_ms(), None
        for player, notice in notices.notices_for(event):
            if only is not None and player not in only:
                continue
            preferences = await self.store.preferences(player)
            if notice.type not in preferences.notices:
                continue
            due = max(now + self.settings.notify_gather_ms, preferences.held_until(now))
            if await self.store.queue(player, event.id, notice, due):
                metrics.QUEUED.labels(notice.type).inc()
                first = due if first is None else min(first, due)
        return first

    # ---- delivery ---------------------------------------------------------------------------

    async def deliver(self) -> int:
        """Push to the players due now; how many were attended."""
        players = await self.store.claim(clocks.now_ms(), self.settings.notify_lease_ms, CLAIM_LIMIT)
        for player in players:
            await self.attend(player)
        return len(players)

    async def attend(self, player: str) -> None:
        """Push a player's pending notices to every subscription, then release the player."""
        pending = await self.store.pending(player)
        preferences = await self.store.preferences(player)
        wanted = [notice for notice in pending if notice.type in preferences.notices]
        subscriptions = await self.store.subscriptions(player)
        failed = False
        for message in notices.messages(wanted, preferences.language, self.settings.notify_base_url):
            failed |= not await self._send(message, subscriptions, wanted)
        if not failed:
            await self.store.set_failures(player, 0, 0)
            await self.store.release(player, pending, clocks.now_ms())
            return
        await self._retry_later(player, pending)

    async def _send(self, message: Message, subscriptions: list[Subscription], wanted: list[Notice]) -> bool:
        """Push one message to every subscription it has not reached; whether none failed."""
        assert self.keys is not None
        reached = await self.store.reached(message.message_id)
        body, ok = notices.encode(message), True
        for subscription in subscriptions:
            if subscription.subscription_id in reached:
                continue
            outcome = await push(self.http, self.keys, self.settings.notify_vapid_subject, self.targets,
                                 subscription, body, notices.topic(message), self.settings.notify_ttl_s)  # fmt: skip
            if outcome.kind == "sent":
                await self.store.mark_reached(message.message_id, subscription.subscription_id)
                metrics.SENT.labels(str(message.payload["type"])).inc()
                _observe_latency(message, wanted)
            elif outcome.kind in ("gone", "refused"):
                await self.store.remove_subscription(subscription.player_id, subscription.subscription_id)
                metrics.REMOVED.labels(outcome.kind).inc()
                log.info("push_subscription_removed", reason=outcome.kind, status=outcome.status)
            else:
                metrics.FAILED.labels(str(outcome.status or "network")).inc()
                ok = False
        return ok

    async def _retry_later(self, player: str, pending: list[Notice]) -> None:
        """Back off (exponentially, up to the cap); past the retry window the notices are dropped."""
        count, first = await self.store.failures(player)
        now = clocks.now_ms()
        first = first or now
        if now - first > self.settings.notify_retry_window_s * 1000:
            metrics.DROPPED.inc(len(pending))
            await self.store.set_failures(player, 0, 0)
            await self.store.release(player, pending, now)
            return
        await self.store.set_failures(player, count + 1, first)
        delay = min(self.settings.notify_retry_cap_s, self.settings.notify_retry_base_s * 2**count)
        await self.store.release(player, [], now + int(delay * 1000))

    # ---- the loop ---------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Fan out and deliver until ``stop`` is set; a Redis outage is waited out, not fatal.

        The outbox is read as facts come (one blocking read); due players are looked for when the
        first may be due (the earliest queued, or :meth:`_idle_seconds`), not after every fact."""
        self._stop = stop
        check_at = 0.0  # monotonic time of the next look for due players
        while not stop.is_set():
            try:
                if time.monotonic() >= check_at:
                    attended = await self.deliver()
                    metrics.DUE.set(await self.store.due_count(clocks.now_ms()))
                    check_at = time.monotonic() + (0.0 if attended else await self._idle_seconds())
                events = await self.reader.read(stop, max(0.0, check_at - time.monotonic()))
                due_ms = await self.take_batch(events)
                await self.reader.ack(events)  # only once every notice is queued
                if due_ms is not None:
                    check_at = min(check_at, time.monotonic() + max(0, due_ms - clocks.now_ms()) / 1000)
                continue
            except Exception:  # Redis away or a bad record: say so and try again after a pause
                log.exception("notify_loop_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.notify_poll_s)

    async def _idle_seconds(self) -> float:
        """Until the next player is due (at most :data:`IDLE_SECONDS`, at least the poll interval)."""
        next_ms = await self.store.next_due()
        if next_ms is None:
            return IDLE_SECONDS
        return max(self.settings.notify_poll_s, min(IDLE_SECONDS, (next_ms - clocks.now_ms()) / 1000))

    async def close(self) -> None:
        """Close the HTTP client."""
        await self.http.aclose()


def _observe_latency(message: Message, wanted: list[Notice]) -> None:
    now = time.time() * 1000
    for notice in wanted:
        if notice.notice_id in message.notice_ids and notice.fact_ms:
            metrics.LATENCY.observe(max(0.0, (now - notice.fact_ms) / 1000))
