"""``chaiwala.v1.NotifyService``: thin handlers over :mod:`services.notify.store` and the model.

The caller is the verified player of the call's token (published by the RPC interceptor in
:data:`services.common.interceptors.PLAYER`); nobody names the player they act for.
"""

from __future__ import annotations

from typing import Any

import grpc
from grpc import aio

from chaiwala.v1 import notify_pb2, notify_pb2_grpc
from services.clock import clock as clocks
from services.common import errors
from services.common.interceptors import PLAYER
from services.common.logs import get_logger
from services.identity.preferences import Preferences, check_preferences
from services.notify.model import Subscription, check_subscription
from services.notify.store import MAX_SUBSCRIPTIONS, NotifyStore
from services.notify.vapid import VapidKeys
from services.webhook.targets import TargetPolicy, TargetRefused, check_target

log = get_logger("notify")


def _player_id() -> str:
    player = PLAYER.get()
    if player is None:
        raise errors.unauthenticated("send a player token as 'Authorization: Bearer <token>'")
    return str(player.player_id)


def _message(subscription: Subscription) -> notify_pb2.PushSubscription:
    message = notify_pb2.PushSubscription(subscription_id=subscription.subscription_id,
                                          endpoint=subscription.endpoint,
                                          created_at=clocks.rfc3339(subscription.created_ms))  # fmt: skip
    if subscription.expiration_time is not None:
        message.expiration_time = subscription.expiration_time
    return message


def _preferences(preferences: Preferences) -> notify_pb2.Preferences:
    message = notify_pb2.Preferences(notices=list(preferences.notices), time_zone=preferences.time_zone,
                                     language=preferences.language)  # fmt: skip
    if preferences.quiet_start:
        message.quiet_hours.start = preferences.quiet_start
        message.quiet_hours.end = preferences.quiet_end
    return message


class NotifyServicer(notify_pb2_grpc.NotifyServiceServicer):
    """NotifyService over the notification store."""

    def __init__(self, store: NotifyStore, keys: VapidKeys, targets: TargetPolicy) -> None:
        self.store = store
        self.keys = keys
        self.targets = targets

    async def CreatePushSubscription(
        self, request: notify_pb2.CreatePushSubscriptionRequest, context: aio.ServicerContext
    ) -> notify_pb2.PushSubscription:
        """Register the bearer's browser subscription (checked like a webhook URL)."""
        player = _player_id()
        expiration = request.expiration_time if request.HasField("expiration_time") else None
        subscription = check_subscription(player, request.endpoint, request.keys.p256dh, request.keys.auth,
                                          expiration, clocks.now_ms())  # fmt: skip
        try:
            await check_target(subscription.endpoint, self.targets)
        except TargetRefused as refusal:
            raise errors.invalid(refusal.code, refusal.message) from None
        if not await self.store.add_subscription(subscription):
            message = f"at most {MAX_SUBSCRIPTIONS} subscriptions per player"
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_subscriptions", message)
        log.info("push_subscribed", subscription_id=subscription.subscription_id)
        return _message(subscription)

    async def ListPushSubscriptions(
        self, request: notify_pb2.ListPushSubscriptionsRequest, context: aio.ServicerContext
    ) -> notify_pb2.ListPushSubscriptionsResponse:
        """The bearer's subscriptions, oldest first."""
        found = await self.store.subscriptions(_player_id())
        return notify_pb2.ListPushSubscriptionsResponse(subscriptions=[_message(item) for item in found])

    async def DeletePushSubscription(
        self, request: notify_pb2.DeletePushSubscriptionRequest, context: aio.ServicerContext
    ) -> notify_pb2.DeletePushSubscriptionResponse:
        """Forget one of the bearer's subscriptions (another player's is not found)."""
        if not await self.store.remove_subscription(_player_id(), request.subscription_id[:64]):
            raise errors.not_found("no such push subscription")
        return notify_pb2.DeletePushSubscriptionResponse()

    async def GetVapidPublicKey(
        self, request: notify_pb2.GetVapidPublicKeyRequest, context: aio.ServicerContext
    ) -> notify_pb2.VapidPublicKey:
        """The key browsers subscribe with."""
        return notify_pb2.VapidPublicKey(public_key=self.keys.public_key)

    async def GetPreferences(
        self, request: notify_pb2.GetPreferencesRequest, context: aio.ServicerContext
    ) -> notify_pb2.Preferences:
        """The bearer's preferences (the defaults until set)."""
        return _preferences(await self.store.preferences(_player_id()))

    async def SetPreferences(self, request: notify_pb2.Preferences, context: aio.ServicerContext) -> Any:
        """Replace the bearer's preferences (checked whole: a bad field changes nothing)."""
        player = _player_id()
        preferences = check_preferences(list(request.notices), request.quiet_hours.start, request.quiet_hours.end,
                                        request.time_zone, request.language)  # fmt: skip
        await self.store.set_preferences(player, preferences)
        return _preferences(preferences)
