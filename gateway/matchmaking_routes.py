"""REST routes of quick play, forwarded to the matchmaker's MatchmakingService over gRPC.

``POST /v1/matchmaking/tickets``, ``GET`` and ``DELETE /v1/matchmaking/tickets/{ticket_id}``,
``GET /v1/me/tickets``; every call with a player token.  The matchmaker decides everything, so
REST and gRPC refuse the same requests with the same codes (``ticket_exists`` 409,
``too_many_tickets`` 429, ``identity_not_rated`` 403, ...).  A call waits for a matchmaker that is
(re)starting for at most :data:`WAIT_SECONDS`, then answers 504, never a hang.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from chaiwala.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from gateway.routes import JSON, _backends, _metadata, _parse, _read_json, _rpc, _settings
from services.common import protojson

router = APIRouter()
WAIT_SECONDS = 10.0


def _stub(request: Request) -> matchmaking_pb2_grpc.MatchmakingServiceStub:
    """The MatchmakingService stub, on the gateway's channel to the matchmakers (gateway.backends)."""
    return _backends(request).matchmaking


async def _call(request: Request, method: str, message: Any, status_code: int = 200) -> Response:
    timeout = min(_settings(request).rpc_timeout_seconds, WAIT_SECONDS)
    options = {"metadata": _metadata(request), "timeout": timeout, "wait_for_ready": True}
    answer = await _rpc(getattr(_stub(request), method)(message, **options))
    return JSON(protojson.to_dict(answer), status_code=status_code)


@router.post("/v1/matchmaking/tickets", status_code=201)
async def create_ticket(request: Request) -> Response:
    """Start searching for a game (player token): the ticket, status ``searching``."""
    limit = _settings(request).max_body_bytes
    body = _parse(await _read_json(request, limit), matchmaking_pb2.CreateTicketRequest())
    return await _call(request, "CreateTicket", body, status_code=201)


@router.get("/v1/matchmaking/tickets/{ticket_id}")
async def get_ticket(ticket_id: str, request: Request) -> Response:
    """One of the bearer's tickets: its status, and once matched its ``game_id`` and ``seat``."""
    return await _call(request, "GetTicket", matchmaking_pb2.GetTicketRequest(ticket_id=ticket_id))


@router.delete("/v1/matchmaking/tickets/{ticket_id}")
async def cancel_ticket(ticket_id: str, request: Request) -> Response:
    """Stop searching: the ticket, status ``cancelled``."""
    return await _call(request, "CancelTicket", matchmaking_pb2.CancelTicketRequest(ticket_id=ticket_id))


@router.get("/v1/me/tickets")
async def my_tickets(request: Request) -> Response:
    """The bearer's tickets, newest first."""
    return await _call(request, "ListMyTickets", matchmaking_pb2.ListMyTicketsRequest())
