"""REST routes of webhooks: ``/v1/webhooks`` and its delivery log, forwarded to the WebhookService.

The webhook dispatcher (``python -m services.webhook``, address ``CHAIWALA_SERVICE_WEBHOOK``)
decides everything, so REST and gRPC refuse the same requests with the same codes.  A call waits
for a dispatcher that is (re)starting for at most :data:`WAIT_SECONDS`, then answers 504: an
operator call, never a hang.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from chaiwala.v1 import webhooks_pb2, webhooks_pb2_grpc
from gateway.forward import Forward, add_forwards
from gateway.listing import page_size
from gateway.routes import JSON, _backends, _metadata, _parse, _read_json, _rpc, _settings
from services.common import protojson

router = APIRouter()
WAIT_SECONDS = 10.0


def _stub(request: Request) -> webhooks_pb2_grpc.WebhookServiceStub:
    """The WebhookService stub, on the gateway's channel to the dispatcher (gateway.backends)."""
    return _backends(request).webhooks


def _options(request: Request) -> dict[str, Any]:
    timeout = min(_settings(request).rpc_timeout_seconds, WAIT_SECONDS)
    return {"metadata": _metadata(request), "timeout": timeout, "wait_for_ready": True}


async def _call(request: Request, method: str, message: Any, status_code: int = 200) -> Response:
    answer = await _rpc(getattr(_stub(request), method)(message, **_options(request)))
    return JSON(protojson.to_dict(answer), status_code=status_code)


@router.post("/v1/webhooks", status_code=201)
async def create_webhook(request: Request) -> Response:
    """Subscribe a URL to event types (operators); the answer carries the signing secret, only here."""
    body = _parse(await _read_json(request, _settings(request).max_body_bytes), webhooks_pb2.CreateWebhookRequest())
    return await _call(request, "CreateWebhook", body, status_code=201)


add_forwards(
    router,
    _call,
    [
        Forward(
            "GET",
            "/v1/webhooks",
            "list_webhooks",
            "ListWebhooks",
            webhooks_pb2.ListWebhooksRequest,
            "Every subscription (operators).",
        ),
        Forward(
            "GET",
            "/v1/webhooks/{webhook_id}",
            "get_webhook",
            "GetWebhook",
            webhooks_pb2.GetWebhookRequest,
            "One subscription (operators); never its secret.",
        ),
        Forward(
            "DELETE",
            "/v1/webhooks/{webhook_id}",
            "delete_webhook",
            "DeleteWebhook",
            webhooks_pb2.DeleteWebhookRequest,
            "Remove a subscription with its delivery log and pending deliveries (operators).",
        ),
    ],
)


@router.get("/v1/webhooks/{webhook_id}/deliveries")
async def list_deliveries(webhook_id: str, request: Request) -> Response:
    """A subscription's deliveries, newest first; ``status`` = pending, delivered or dead (operators)."""
    message = webhooks_pb2.ListDeliveriesRequest(
        webhook_id=webhook_id,
        status=request.query_params.get("status", ""),
        page_size=page_size(request),
        page_token=request.query_params.get("page_token", ""),
    )
    return await _call(request, "ListDeliveries", message)


@router.post("/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")
async def redeliver(webhook_id: str, delivery_id: str, request: Request) -> Response:
    """Deliver one delivery again now, with the same webhook-id and a fresh retry window (operators)."""
    message = webhooks_pb2.RedeliverRequest(webhook_id=webhook_id, delivery_id=delivery_id)
    return await _call(request, "Redeliver", message, status_code=202)
