"""REST routes of Web Push notifications, forwarded to the NotifyService.

``POST/GET /v1/me/push-subscriptions``, ``DELETE /v1/me/push-subscriptions/{subscription_id}``,
``GET /v1/push/vapid-public-key`` and ``GET/PUT /v1/me/preferences``.  The notification sender
(``python -m services.notify``, address ``CHAIWALA_SERVICE_NOTIFY``) decides everything, so REST and
gRPC refuse the same requests with the same codes; the player is the one of the bearer's token.
A call waits for a sender that is (re)starting for at most :data:`WAIT_SECONDS`, then answers 504.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from chaiwala.v1 import notify_pb2
from gateway.routes import JSON, _backends, _metadata, _parse, _read_json, _rpc, _settings
from services.common import protojson

router = APIRouter()
WAIT_SECONDS = 10.0


async def _call(request: Request, method: str, message: Any, status_code: int = 200) -> Response:
    timeout = min(_settings(request).rpc_timeout_seconds, WAIT_SECONDS)
    options = {"metadata": _metadata(request), "timeout": timeout, "wait_for_ready": True}
    answer = await _rpc(getattr(_backends(request).notify, method)(message, **options))
    return JSON(protojson.to_dict(answer), status_code=status_code)


@router.post("/v1/me/push-subscriptions", status_code=201)
async def create_push_subscription(request: Request) -> Response:
    """Register the bearer's browser: the body is ``PushSubscription.toJSON()`` as it is."""
    body = await _read_json(request, _settings(request).max_body_bytes)
    for name in ("expirationTime", "expiration_time"):  # browsers send null for "never": that is no value
        if name in body and body[name] is None:
            del body[name]
    message = _parse(body, notify_pb2.CreatePushSubscriptionRequest())
    return await _call(request, "CreatePushSubscription", message, status_code=201)


@router.get("/v1/me/push-subscriptions")
async def list_push_subscriptions(request: Request) -> Response:
    """The bearer's subscriptions."""
    return await _call(request, "ListPushSubscriptions", notify_pb2.ListPushSubscriptionsRequest())


@router.delete("/v1/me/push-subscriptions/{subscription_id}")
async def delete_push_subscription(subscription_id: str, request: Request) -> Response:
    """Forget one of the bearer's subscriptions."""
    message = notify_pb2.DeletePushSubscriptionRequest(subscription_id=subscription_id)
    return await _call(request, "DeletePushSubscription", message)


@router.get("/v1/push/vapid-public-key")
async def vapid_public_key(request: Request) -> Response:
    """The server's VAPID public key (``applicationServerKey`` for ``pushManager.subscribe``)."""
    return await _call(request, "GetVapidPublicKey", notify_pb2.GetVapidPublicKeyRequest())


@router.get("/v1/me/preferences")
async def get_preferences(request: Request) -> Response:
    """The bearer's notification preferences."""
    return await _call(request, "GetPreferences", notify_pb2.GetPreferencesRequest())


@router.put("/v1/me/preferences")
async def set_preferences(request: Request) -> Response:
    """Replace the bearer's preferences: ``notices``, ``quiet_hours`` {start, end}, ``time_zone``, ``language``."""
    body = _parse(await _read_json(request, _settings(request).max_body_bytes), notify_pb2.Preferences())
    return await _call(request, "SetPreferences", body)
