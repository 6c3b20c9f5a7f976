"""The dispatcher's two loops: outbox -> deliveries (fan-out), due deliveries -> HTTP attempts.

Fan-out reads the outbox as consumer group :data:`GROUP`, creates one delivery per matching
subscription (idempotently: the delivery id is derived from event and subscription) and only
then acknowledges the outbox entry, so a dispatcher killed in between fans the event out again
and nothing is lost or doubled.  Deliveries are claimed with a lease (like the conductor's
games): a dispatcher killed mid-attempt leaves the delivery to be claimed again once the lease
runs out, with the same ``webhook-id`` — at-least-once, deduplicated by the receiver.

An idle dispatcher waits for the outbox until its next delivery is due (up to
:data:`services.outbox.wait.IDLE_SECONDS`); an operator's redelivery through this process's
WebhookService (:meth:`Dispatcher.nudge`) cuts that wait short, so a redelivered letter is tried
at once, not up to 20 s later.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
from dataclasses import replace
from typing import Any

import httpx

from services.clock import clock as clocks
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.identity.preferences import read_preferences
from services.outbox import OutboxEvent, ack, group_lag, read_outbox
from services.outbox.events import TURN_EVENT_TYPES, sequence_of
from services.outbox.wait import IDLE_SECONDS, wait_outbox
from services.webhook import metrics
from services.webhook.delivery import RetryPolicy, attempt
from services.webhook.settings import WebhookSettings
from services.webhook.store import Delivery, Subscription, WebhookStore, delivery_id
from services.webhook.targets import TargetPolicy

GROUP = "webhooks"
REPORT_SECONDS = 5.0
log = get_logger("webhook")


def consumer_name(settings: WebhookSettings) -> str:
    """This dispatcher's name in the outbox consumer group."""
    return settings.webhook_consumer or f"{socket.gethostname()}-{os.getpid()}"


def matches(subscription: Subscription, event: OutboxEvent) -> bool:
    """Whether ``subscription`` wants ``event`` (events from before it existed are not its)."""
    return event.type in subscription.events and event.ts_ms >= subscription.created_ms


def new_delivery(subscription: Subscription, event: OutboxEvent, now_ms: int) -> Delivery:
    """The delivery of ``event`` to ``subscription``: a game's event waits in its game's lane
    (see :mod:`services.webhook.store`), carrying the event's ``sequence`` in its game."""
    payload: dict[str, object] = {"id": event.id, "type": event.type, "ts_ms": event.ts_ms, "data": event.data}
    sequence = sequence_of(event.type, event.data)
    if sequence is not None:
        payload["sequence"] = sequence
    return Delivery(
        delivery_id=delivery_id(event.id, subscription.webhook_id),
        webhook_id=subscription.webhook_id,
        event=payload,
        created_ms=now_ms,
        window_ms=now_ms,
        next_ms=now_ms,
        lane=str(event.data["game_id"]) if sequence is not None else "",
    )


class Dispatcher:
    """Fans outbox events out to subscriptions and delivers them."""

    def __init__(self, redis: Any, settings: WebhookSettings) -> None:
        self.redis = redis
        self.store = WebhookStore(redis)
        self.settings = settings
        self.consumer = consumer_name(settings)
        self.targets = TargetPolicy(settings.webhook_allow_private, settings.webhook_allow_loopback)
        self.retry = RetryPolicy(
            settings.webhook_retry_base_s, settings.webhook_retry_cap_s, settings.webhook_retry_window_s
        )
        self.rng = random.Random()
        self.http = httpx.AsyncClient(timeout=settings.webhook_timeout_s, follow_redirects=False)
        self.in_flight: set[asyncio.Task[None]] = set()
        self.last_claim_ms = 0
        self.watch = StoreWatch(log)  # Redis away: one warning, not a traceback per poll
        self.nudged = asyncio.Event()  # set by nudge() and when stopping: an idle wait ends

    def nudge(self) -> None:
        """Something became due now (a redelivery): end an idle wait and look at the due deliveries."""
        self.nudged.set()

    async def close(self) -> None:
        """Wait for attempts in flight, then release the HTTP client."""
        if self.in_flight:
            await asyncio.wait(self.in_flight, timeout=self.settings.webhook_timeout_s + 1)
        await self.http.aclose()

    def _claim_idle_ms(self) -> int | None:
        """The outbox claim threshold, but only every quarter lease (a claim scans every shard's
        pending entries; looking more often would find nothing sooner)."""
        now = clocks.now_ms()
        if now - self.last_claim_ms < self.settings.webhook_lease_ms // 4:
            return None
        self.last_claim_ms = now
        return self.settings.webhook_lease_ms

    async def fan_out(self, recover: bool = False) -> int:
        """Turn one batch of outbox events into deliveries; return how many events were read."""
        events = await read_outbox(
            self.redis, GROUP, self.consumer, claim_idle_ms=self._claim_idle_ms(), recover=recover
        )
        return await self._fan_out(events)

    async def _fan_out(self, events: list[OutboxEvent]) -> int:
        if not events:
            return 0
        events = [await self._carry_preferences(event) for event in events]
        subscriptions = await self.store.subscriptions()
        now = clocks.now_ms()
        for subscription in subscriptions:
            wanted = [new_delivery(subscription, e, now) for e in events if matches(subscription, e)]
            if wanted:
                for item in await self.store.enqueue(subscription.webhook_id, wanted, now):
                    metrics.FANNED_OUT.labels(item.event["type"]).inc()
        await ack(self.redis, GROUP, events)
        return len(events)

    async def _carry_preferences(self, event: OutboxEvent) -> OutboxEvent:
        """A turn event with its player's notification preferences (``preferences``), so a platform
        pushing to its own apps can honour quiet hours and language as Web Push does."""
        player = event.data.get("external_id")
        if event.type not in TURN_EVENT_TYPES or not player:
            return event
        preferences = await read_preferences(self.redis, str(player))
        return replace(event, data={**event.data, "preferences": preferences.to_dict()})

    async def deliver_due(self) -> int:
        """Claim due deliveries up to the concurrency limit and start their attempts."""
        room = self.settings.webhook_concurrency - len(self.in_flight)
        if room <= 0:
            return 0
        claimed = await self.store.claim(clocks.now_ms(), self.settings.webhook_lease_ms, room)
        for delivery in claimed:
            task = asyncio.create_task(self._deliver(delivery))
            self.in_flight.add(task)
            task.add_done_callback(self.in_flight.discard)
        return len(claimed)

    async def _deliver(self, delivery: Delivery) -> None:
        try:
            await self._attempt(delivery)
        except Exception as error:  # a Redis hiccup: the lease runs out and the delivery is claimed again
            if not self.watch.failed(error, "delivery"):
                log.exception("delivery_failed", delivery_id=delivery.delivery_id)

    async def _attempt(self, delivery: Delivery) -> None:
        subscription = await self.store.subscription(delivery.webhook_id)
        if subscription is None:
            return  # deleted meanwhile: its deliveries went with it
        if not delivery.attempts:
            # The retry window starts with the first attempt: a delivery that waited behind an
            # earlier one of its game gets its whole window once its turn comes.
            delivery.window_ms = clocks.now_ms()
        with metrics.DELIVERY_SECONDS.time():
            outcome = await attempt(self.http, subscription.url, subscription.secret, delivery, self.targets)
        now = clocks.now_ms()
        delivery.record_attempt(outcome.as_dict(now))
        metrics.DELIVERIES.labels(outcome.outcome).inc()
        if outcome.outcome == "delivered":
            delivery.status, delivery.delivered_ms, delivery.next_ms = "delivered", now, 0
            await self.store.save(delivery, None, now)
            return
        due = self.retry.next_due(delivery, now, self.rng)
        if due is None:
            delivery.status, delivery.next_ms = "dead", 0
            metrics.DELIVERIES.labels("dead").inc()
            log.warning("delivery_dead", delivery_id=delivery.delivery_id, attempts=delivery.attempts)
            await self.store.save(delivery, None, now, dead=True)
            return
        delivery.status, delivery.next_ms = "pending", due
        await self.store.save(delivery, due, now)

    async def run(self, stop: asyncio.Event) -> None:
        """Fan out and deliver until ``stop`` is set."""
        recover = True
        stopping = asyncio.create_task(self._nudge_on(stop), name="webhook:stop-nudges")
        try:
            while not stop.is_set():
                if await self._round(recover):
                    recover = False
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), self.settings.webhook_poll_s)
        finally:
            stopping.cancel()

    async def _round(self, recover: bool) -> bool:
        """Fan out, start the due deliveries, and when there was nothing wait for the outbox or a
        nudge; ``False`` when Redis failed (said once)."""
        self.nudged.clear()  # before looking: a nudge from here on ends the wait below
        try:
            busy = await self.fan_out(recover) + await self.deliver_due()
            self.watch.answered()
            if not busy:  # idle: wait for an event (one blocking read), a nudge or the next due delivery
                events = await wait_outbox(self.redis, GROUP, self.consumer, self.nudged,
                                           self.settings.webhook_poll_s, await self._idle_seconds())  # fmt: skip
                await self._fan_out(events)
            return True
        except Exception as error:  # Redis away: say so (once) and try again after a pause
            if not self.watch.failed(error, "dispatch"):
                log.exception("dispatch_failed")
            return False

    async def _nudge_on(self, stop: asyncio.Event) -> None:
        await stop.wait()
        self.nudged.set()  # the idle wait ends at once when stopping, as before

    async def _idle_seconds(self) -> float:
        """How long an idle dispatcher may wait for the outbox: until the next delivery is due (at most
        :data:`services.outbox.wait.IDLE_SECONDS`), or the poll interval while attempts are in flight
        (one ending frees room for a due delivery)."""
        poll = self.settings.webhook_poll_s
        if self.in_flight:
            return poll
        due_ms = await self.store.next_due()
        until = IDLE_SECONDS if due_ms is None else (due_ms - clocks.now_ms()) / 1000
        return max(poll, min(IDLE_SECONDS, until))

    async def report(self, stop: asyncio.Event) -> None:
        """Keep the gauges (outbox lag, pending, dead letters) in line with Redis."""
        while not stop.is_set():
            with contextlib.suppress(Exception):
                events, age_ms = await group_lag(self.redis, GROUP)
                metrics.OUTBOX_LAG_EVENTS.labels(GROUP).set(events)
                metrics.OUTBOX_LAG_SECONDS.labels(GROUP).set(age_ms / 1000)
                pending, dead = await self.store.counts()
                metrics.PENDING.set(pending)
                metrics.DEAD_LETTERS.set(dead)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), REPORT_SECONDS)
