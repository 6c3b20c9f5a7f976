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

from services.clock import clock as clocks
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.identity.preferences import read_many_preferences
from services.outbox import OutboxEvent, group_lag
from services.outbox.events import TURN_EVENT_TYPES, sequence_of
from services.outbox.reader import OutboxReader
from services.outbox.wait import IDLE_SECONDS
from services.webhook import metrics
from services.webhook.delivery import RetryPolicy, attempt, new_session
from services.webhook.settings import WebhookSettings
from services.webhook.store import Delivery, Subscription, WebhookStore, delivery_id
from services.webhook.targets import TargetPolicy

GROUP = "webhooks"
REPORT_SECONDS = 5.0
# A busy outbox is read at most this often (services.outbox.reader): a few events per read, not one.
LINGER_SECONDS = 0.05
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
        self.http = new_session(settings.webhook_timeout_s, settings.webhook_concurrency)
        self.in_flight: set[asyncio.Task[None]] = set()
        self.reader = OutboxReader(redis, GROUP, self.consumer, poll_seconds=settings.webhook_poll_s,
                                   claim_idle_ms=settings.webhook_lease_ms, linger_seconds=LINGER_SECONDS)  # fmt: skip
        self._stop = asyncio.Event()  # run's, once it runs
        self._wake = asyncio.Event()  # set when deliveries may have become due (or room freed)
        self._recount = asyncio.Event()  # set when the dead letters changed: the gauges are read again
        self.watch = StoreWatch(log)  # Redis away: one warning, not a traceback per poll

    def nudge(self) -> None:
        """Something became due now (a redelivery): end the deliveries' idle wait and look at what is due."""
        self._wake.set()
        self._recount.set()  # a redelivered dead letter left the dead ones

    async def close(self) -> None:
        """Wait for attempts in flight, then release the HTTP client."""
        if self.in_flight:
            await asyncio.wait(self.in_flight, timeout=self.settings.webhook_timeout_s + 1)
        await self.http.close()

    async def fan_out(self) -> int:
        """Turn the outbox events waiting now into deliveries; return how many events were read."""
        return await self._fan_out(await self.reader.read(self._stop))

    async def _fan_out(self, events: list[OutboxEvent]) -> int:
        if not events:
            return 0
        subscriptions = await self.store.subscriptions()
        # Events no subscription wants are acknowledged as they are: no preferences read for them.
        wanted = [e for e in events if any(matches(s, e) for s in subscriptions)]
        wanted = await self._carry_preferences(wanted)
        now = clocks.now_ms()
        for subscription in subscriptions:
            deliveries = [new_delivery(subscription, e, now) for e in wanted if matches(subscription, e)]
            if deliveries:
                for item in await self.store.enqueue(subscription.webhook_id, deliveries, now):
                    metrics.FANNED_OUT.labels(item.event["type"]).inc()
                self._wake.set()  # new deliveries may be due now
        await self.reader.ack(events)
        return len(events)

    async def _carry_preferences(self, events: list[OutboxEvent]) -> list[OutboxEvent]:
        """Turn events with their player's notification preferences (``preferences``), so a platform
        pushing to its own apps can honour quiet hours and language as Web Push does (one round
        trip for the batch)."""
        players = {_turn_player(e) for e in events} - {""}
        if not players:
            return events
        found = await read_many_preferences(self.redis, players)
        return [replace(e, data={**e.data, "preferences": found[p].to_dict()}) if (p := _turn_player(e)) else e
                for e in events]  # fmt: skip

    async def deliver_due(self) -> int:
        """Claim due deliveries up to the concurrency limit and start their attempts."""
        room = self.settings.webhook_concurrency - len(self.in_flight)
        if room <= 0:
            return 0
        claimed = await self.store.claim(clocks.now_ms(), self.settings.webhook_lease_ms, room)
        # Their subscriptions in one read (a subscription deleted meanwhile took its deliveries with it).
        subscriptions = await self.store.subscriptions_of({d.webhook_id for d in claimed}) if claimed else {}
        for delivery in claimed:
            task = asyncio.create_task(self._deliver(delivery, subscriptions.get(delivery.webhook_id)))
            self.in_flight.add(task)
            task.add_done_callback(self._attempted)
        return len(claimed)

    def _attempted(self, task: asyncio.Task[None]) -> None:
        """An attempt ended: its room is free, and the next delivery of its game may be due now."""
        self.in_flight.discard(task)
        self._wake.set()

    async def _deliver(self, delivery: Delivery, subscription: Subscription | None) -> None:
        try:
            await self._attempt(delivery, subscription)
        except Exception as error:  # a Redis hiccup: the lease runs out and the delivery is claimed again
            if not self.watch.failed(error, "delivery"):
                log.exception("delivery_failed", delivery_id=delivery.delivery_id)

    async def _attempt(self, delivery: Delivery, subscription: Subscription | None) -> None:
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
            self._recount.set()
            return
        delivery.status, delivery.next_ms = "pending", due
        await self.store.save(delivery, due, now)

    async def run(self, stop: asyncio.Event) -> None:
        """Fan out and deliver until ``stop`` is set: two loops, so neither waits for the other — the
        fan-out waits in one blocking read of the outbox, the deliveries wake when an attempt ends
        (room for the next, and its game's next delivery due) or new deliveries were queued."""
        self._stop = stop
        await asyncio.gather(self._fan_out_loop(stop), self._delivery_loop(stop))

    async def _fan_out_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            # A read waits up to IDLE_SECONDS for an event and only then reports Redis back: during
            # an outage it waits the poll interval, or the outage's end came up to 20 s late.
            wait = self.settings.webhook_poll_s if self.watch.down else IDLE_SECONDS
            try:
                await self._fan_out(await self.reader.read(stop, wait))
                self.watch.answered()
                continue
            except Exception as error:  # Redis away: say so (once) and try again after a pause
                if not self.watch.failed(error, "dispatch"):
                    log.exception("dispatch_failed")
            await _pause(stop, self.settings.webhook_poll_s)

    async def _delivery_loop(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self._wake.clear()
            try:
                room = self.settings.webhook_concurrency - len(self.in_flight)
                claimed = await self.deliver_due()
                self.watch.answered()
                if claimed and claimed == room:
                    continue  # more may be due: look again once an attempt frees room
                busy = self.in_flight or claimed or self.watch.down  # down: the other loop saw an outage
                wait = self.settings.webhook_poll_s if busy else await self._idle_seconds()
            except Exception as error:
                if not self.watch.failed(error, "dispatch"):
                    log.exception("dispatch_failed")
                wait = self.settings.webhook_poll_s
            await _pause(self._wake, wait, stop)

    async def _idle_seconds(self) -> float:
        """How long idle deliveries may sleep: until the next delivery is due (at most
        :data:`services.outbox.wait.IDLE_SECONDS`); new deliveries wake them sooner."""
        due_ms = await self.store.next_due()
        until = IDLE_SECONDS if due_ms is None else (due_ms - clocks.now_ms()) / 1000
        return max(self.settings.webhook_poll_s, min(IDLE_SECONDS, until))

    async def report(self, stop: asyncio.Event) -> None:
        """Keep the gauges (outbox lag, pending, dead letters) in line with Redis: every
        :data:`REPORT_SECONDS`, and at once when a delivery died or a dead letter was redelivered."""
        while not stop.is_set():
            self._recount.clear()
            with contextlib.suppress(Exception):
                events, age_ms = await group_lag(self.redis, GROUP)
                metrics.OUTBOX_LAG_EVENTS.labels(GROUP).set(events)
                metrics.OUTBOX_LAG_SECONDS.labels(GROUP).set(age_ms / 1000)
                pending, dead = await self.store.counts()
                metrics.PENDING.set(pending)
                metrics.DEAD_LETTERS.set(dead)
            await _pause(self._recount, REPORT_SECONDS, stop)


def _turn_player(event: OutboxEvent) -> str:
    """The player a turn event is for ("" for any other event, or a seat without one)."""
    return str(event.data.get("external_id") or "") if event.type in TURN_EVENT_TYPES else ""


async def _pause(event: asyncio.Event, seconds: float, stop: asyncio.Event | None = None) -> None:
    """Wait until ``event`` (or ``stop``) is set, at most ``seconds``."""
    waits = [asyncio.ensure_future(event.wait())]
    if stop is not None:
        waits.append(asyncio.ensure_future(stop.wait()))
    try:
        await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiting in waits:
            waiting.cancel()
