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
from services.outbox import OutboxEvent, ack, read_outbox
from services.outbox.wait import IDLE_SECONDS, wait_outbox
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
        self._recover = True

    async def start(self) -> VapidKeys:
        """Load (or make, on the very first start) the VAPID key pair."""
        self.keys = await load_keys(self.store)
        return self.keys

    # ---- fan-out ----------------------------------------------------------------------------

    async def fan_out(self) -> int:
        """Queue the notices of the next outbox facts; how many facts were read."""
        events = await read_outbox(self.redis, GROUP, self.consumer, recover=self._recover)
        self._recover = False
        await self._take_all(events)
        return len(events)

    async def _take_all(self, events: list[OutboxEvent]) -> None:
        for event in events:
            await self.take(event)
        if events:  # acknowledged only once every notice is queued: a crash before reads them again
            await ack(self.redis, GROUP, events)

    async def take(self, event: OutboxEvent) -> None:
        """Queue one fact's notices, as each player's preferences allow."""
        now = clocks.now_ms()
        for player, notice in notices.notices_for(event):
            preferences = await self.store.preferences(player)
            if notice.type not in preferences.notices:
                continue
            due = max(now + self.settings.notify_gather_ms, preferences.held_until(now))
            if await self.store.queue(player, event.id, notice, due):
                metrics.QUEUED.labels(notice.type).inc()

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
        """Fan out and deliver until ``stop`` is set; a Redis outage is waited out, not fatal."""
        poll = self.settings.notify_poll_s
        while not stop.is_set():
            try:
                busy = await self.fan_out() + await self.deliver()
                metrics.DUE.set(await self.store.due_count(clocks.now_ms()))
                if not busy:  # idle: wait for a fact (one blocking read) or the next due player
                    await self._take_all(await wait_outbox(self.redis, GROUP, self.consumer, stop, poll,
                                                           await self._idle_seconds()))  # fmt: skip
                continue
            except Exception:  # Redis away or a bad record: say so and try again after a pause
                log.exception("notify_loop_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), poll)

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
