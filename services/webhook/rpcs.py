"""``WebhookService``: operators manage subscriptions, read delivery logs and redeliver."""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Callable

import grpc
from grpc import aio

from chaiwala.v1 import webhooks_pb2, webhooks_pb2_grpc
from services.clock import clock as clocks
from services.common import errors
from services.common.offsets import requested_page_size
from services.common.operators import OperatorKeys
from services.outbox.events import GAME_EVENT_TYPES, TURN_EVENT_TYPES
from services.webhook.store import LOG_LIMIT, Delivery, Subscription, WebhookStore
from services.webhook.targets import TargetPolicy, TargetRefused, check_target

# What a subscription may ask for: the game domain's events and the tournament/rating domain's.
EVENT_TYPES = (
    *GAME_EVENT_TYPES,
    *TURN_EVENT_TYPES,
    "tournament.round_started",
    "tournament.finished",
    "rating.updated",
)
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
MAX_SUBSCRIPTIONS = 1000
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
DELIVERY_STATUSES = ("pending", "delivered", "dead")


def new_secret() -> str:
    """A fresh Standard Webhooks secret."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _check_secret(secret: str) -> None:
    """A given secret is ``whsec_`` + base64 of 24 to 64 bytes, as the standard recommends."""
    if not secret.startswith(SECRET_PREFIX):
        raise errors.invalid("bad_secret", f"secret starts with {SECRET_PREFIX!r} (or leave it out to get one)")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except (binascii.Error, ValueError):
        raise errors.invalid("bad_secret", "secret is whsec_ followed by base64") from None
    if not 24 <= len(key) <= 64:
        raise errors.invalid("bad_secret", "the secret's key is 24 to 64 bytes")


def _check_events(events: list[str]) -> list[str]:
    if not events:
        raise errors.invalid("bad_events", f"name at least one event type: {', '.join(EVENT_TYPES)}")
    unknown = [e for e in events if e not in EVENT_TYPES]
    if unknown:
        raise errors.invalid("bad_events", f"unknown event type {unknown[0][:60]!r}; one of {', '.join(EVENT_TYPES)}")
    return sorted(set(events))


def not_found(webhook_id: str) -> errors.ServiceError:
    """No such subscription (404)."""
    return errors.ServiceError(grpc.StatusCode.NOT_FOUND, "webhook_not_found", f"no webhook {webhook_id[:80]!r}")


def webhook_message(subscription: Subscription) -> webhooks_pb2.Webhook:
    """A subscription as the API shows it (never its secret)."""
    return webhooks_pb2.Webhook(
        webhook_id=subscription.webhook_id,
        url=subscription.url,
        events=subscription.events,
        created_at=clocks.rfc3339(subscription.created_ms),
    )


def delivery_message(delivery: Delivery) -> webhooks_pb2.Delivery:
    """A delivery record as the API shows it."""
    message = webhooks_pb2.Delivery(
        delivery_id=delivery.delivery_id,
        webhook_id=delivery.webhook_id,
        event_id=str(delivery.event.get("id", "")),
        event_type=str(delivery.event.get("type", "")),
        status=delivery.status,
        attempts=delivery.attempts,
        created_at=clocks.rfc3339(delivery.created_ms),
        next_attempt_at=clocks.rfc3339(delivery.next_ms) if delivery.status == "pending" else "",
        delivered_at=clocks.rfc3339(delivery.delivered_ms) if delivery.delivered_ms else "",
    )
    for item in delivery.recent:
        message.recent_attempts.append(
            webhooks_pb2.DeliveryAttempt(
                at=clocks.rfc3339(int(item["at_ms"])),
                status_code=int(item["status_code"]),
                outcome=str(item["outcome"]),
                error=str(item["error"]),
                duration_ms=int(item["duration_ms"]),
            )
        )
    return message


def _page(request: webhooks_pb2.ListDeliveriesRequest) -> tuple[int, int]:
    if request.status and request.status not in DELIVERY_STATUSES:
        raise errors.invalid("bad_status", f"status is one of {', '.join(DELIVERY_STATUSES)}")
    size = requested_page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    token = request.page_token or "0"
    if not (token.isascii() and token.isdigit()) or int(token) > LOG_LIMIT:
        raise errors.invalid("bad_page_token", "that page_token was not handed out by this listing")
    return size, int(token)


class WebhookServicer(webhooks_pb2_grpc.WebhookServiceServicer):
    """Subscriptions and their delivery logs; every call needs an operator key (when keys are set)."""

    def __init__(
        self,
        store: WebhookStore,
        api_keys: frozenset[str],
        targets: TargetPolicy,
        due_now: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.operators = OperatorKeys(api_keys)
        self.targets = targets
        self.due_now = due_now  # the process's dispatcher looks at the due deliveries at once

    def _require_operator(self) -> None:
        self.operators.require("managing webhooks")

    async def _subscription(self, webhook_id: str) -> Subscription:
        found = await self.store.subscription(webhook_id) if webhook_id.isascii() else None
        if found is None:
            raise not_found(webhook_id)
        return found

    async def CreateWebhook(
        self, request: webhooks_pb2.CreateWebhookRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.CreateWebhookResponse:
        """Subscribe a URL (checked against the SSRF policy) to event types."""
        self._require_operator()
        events = _check_events(list(request.events))
        if request.secret:
            _check_secret(request.secret)
        try:
            await check_target(request.url, self.targets)
        except TargetRefused as refused:
            raise errors.invalid(refused.code, refused.message) from None
        if len(await self.store.subscriptions()) >= MAX_SUBSCRIPTIONS:
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_webhooks", "remove one first")
        subscription = Subscription(
            webhook_id=f"wh_{secrets.token_hex(12)}",
            url=request.url,
            events=events,
            secret=request.secret or new_secret(),
            created_ms=clocks.now_ms(),
        )
        await self.store.add_subscription(subscription)
        return webhooks_pb2.CreateWebhookResponse(
            webhook_id=subscription.webhook_id, secret=subscription.secret, webhook=webhook_message(subscription)
        )

    async def ListWebhooks(
        self, request: webhooks_pb2.ListWebhooksRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.ListWebhooksResponse:
        """Every subscription, oldest first."""
        self._require_operator()
        return webhooks_pb2.ListWebhooksResponse(
            webhooks=[webhook_message(s) for s in await self.store.subscriptions()]
        )

    async def GetWebhook(
        self, request: webhooks_pb2.GetWebhookRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.Webhook:
        """One subscription."""
        self._require_operator()
        return webhook_message(await self._subscription(request.webhook_id))

    async def DeleteWebhook(
        self, request: webhooks_pb2.DeleteWebhookRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.DeleteWebhookResponse:
        """Remove a subscription, its delivery log and its pending deliveries."""
        self._require_operator()
        if not request.webhook_id.isascii() or not await self.store.delete_subscription(request.webhook_id):
            raise not_found(request.webhook_id)
        return webhooks_pb2.DeleteWebhookResponse(webhook_id=request.webhook_id)

    async def ListDeliveries(
        self, request: webhooks_pb2.ListDeliveriesRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.ListDeliveriesResponse:
        """The subscription's deliveries, newest first, optionally of one status."""
        self._require_operator()
        await self._subscription(request.webhook_id)
        size, offset = _page(request)
        found: list[Delivery] = []
        while len(found) < size and offset < LOG_LIMIT:
            batch = await self.store.log_page(request.webhook_id, offset, MAX_PAGE_SIZE)
            if not batch:
                offset = LOG_LIMIT
                break
            for item in batch:
                offset += 1
                if not request.status or item.status == request.status:
                    found.append(item)
                if len(found) == size:
                    break
        more = len(found) == size and offset < LOG_LIMIT
        return webhooks_pb2.ListDeliveriesResponse(
            deliveries=[delivery_message(d) for d in found], next_page_token=str(offset) if more else ""
        )

    async def Redeliver(
        self, request: webhooks_pb2.RedeliverRequest, context: aio.ServicerContext
    ) -> webhooks_pb2.Delivery:
        """Queue a delivery again now, with a fresh retry window (a dead letter too: it leaves the
        dead-letter list); one waiting behind an earlier delivery of its game keeps waiting."""
        self._require_operator()
        await self._subscription(request.webhook_id)
        delivery = await self.store.delivery(request.delivery_id) if request.delivery_id.isascii() else None
        if delivery is None or delivery.webhook_id != request.webhook_id:
            raise errors.ServiceError(
                grpc.StatusCode.NOT_FOUND, "delivery_not_found", f"no delivery {request.delivery_id[:80]!r}"
            )
        now = clocks.now_ms()
        delivery.status, delivery.window_ms, delivery.next_ms = "pending", now, now
        await self.store.redeliver(delivery, now)
        self.due_now()  # this process's dispatcher tries it now, not after its idle wait
        return delivery_message(delivery)
