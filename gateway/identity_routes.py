"""REST routes of player identity, forwarded to ``IdentityService`` (services/identity/).

``POST /v1/sessions`` (a new guest player), ``POST /v1/sessions/refresh`` (a new token for the
bearer's guest player), ``GET /v1/me`` (who the bearer's player token says the caller is) and
``GET /.well-known/jwks.json`` (the guest issuer's public keys).  Every rules service serves
``IdentityService``; a call goes to the first of them that is reachable, starting from a
rotating position so the calls spread.
"""

from __future__ import annotations

import itertools
from typing import Any

import grpc
from fastapi import APIRouter, Request
from fastapi.responses import Response
from google.protobuf import json_format
from google.protobuf.message import Message

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from gateway.lobby_routes import _body
from gateway.problems import Problem, problem_from_rpc
from gateway.routes import JSON, _backends, _call
from services.common import protojson
from services.common.errors import error_detail_from_metadata
from services.identity.quota import CLIENT_ADDRESS

router = APIRouter()
JWKS_CACHE = "public, max-age=60"  # a new key appears at each rotation; verifiers refetch on an unknown kid
_turns = itertools.count()


async def _identity(request: Request, method: str, message: Message, extra: list[tuple[str, str]] | None = None) -> Any:
    """Call ``method`` on one rules service's IdentityService, passing over unreachable ones.

    Each service is tried once without waiting for a connection; when none is reachable, the
    first is asked again, waiting (up to the call's deadline) as every other route does, so a
    restarting service is waited for rather than refused.
    """
    channels = [channel for _, channel in sorted(_backends(request).channels.items())]
    if not channels:
        raise Problem(503, "service_unavailable", "no rules service is configured", headers={"Retry-After": "1"})
    start = next(_turns) % len(channels)
    order = channels[start:] + channels[:start]
    options = _call(request)
    if extra:
        options["metadata"] = (*options["metadata"], *extra)
    for channel in order:
        try:
            return await _stub_call(channel, method, message, {**options, "wait_for_ready": False})
        except grpc.aio.AioRpcError as error:
            unreachable = error.code() == grpc.StatusCode.UNAVAILABLE
            if not unreachable or error_detail_from_metadata(error.trailing_metadata()) is not None:
                raise problem_from_rpc(error) from None
    try:
        return await _stub_call(order[0], method, message, options)
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None


async def _stub_call(channel: grpc.aio.Channel, method: str, message: Message, options: dict[str, Any]) -> Any:
    return await getattr(identity_pb2_grpc.IdentityServiceStub(channel), method)(message, **options)


@router.post("/v1/sessions")
async def create_session(request: Request) -> Response:
    """A new guest player: ``{"name"?}`` → 201 ``{"player_id", "token", "expires_at"}``."""
    body = await _body(request, identity_pb2.CreateSessionRequest(), required=False)
    # The gateway counted this session against its client (gateway.limits, session_quota): it says
    # whose it was, so the identity service does not count it again (services.identity.quota).
    client = request.client.host if request.client else "unknown"
    answer = await _identity(request, "CreateSession", body, [(CLIENT_ADDRESS, client)])
    return JSON(protojson.to_dict(answer), status_code=201)


@router.post("/v1/sessions/refresh")
async def refresh_session(request: Request) -> Response:
    """A fresh token for the bearer's guest player (send the current, still-valid token)."""
    answer = await _identity(request, "RefreshSession", identity_pb2.RefreshSessionRequest())
    return JSON(protojson.to_dict(answer))


@router.get("/v1/me")
async def me(request: Request) -> Response:
    """Who the bearer's player token says the caller is: ``{"player_id", "name", "issuer_alias", "ratings"}``."""
    answer = await _identity(request, "GetMe", identity_pb2.GetMeRequest())
    return JSON(protojson.to_dict(answer))


@router.get("/.well-known/jwks.json")
async def jwks(request: Request) -> Response:
    """The guest issuer's public keys (JWKS): verify guest tokens with them."""
    answer = await _identity(request, "GetJwks", identity_pb2.GetJwksRequest())
    document = json_format.MessageToDict(answer, preserving_proto_field_name=True)  # leaves out unused members
    return JSON({"keys": document.get("keys", [])}, headers={"Cache-Control": JWKS_CACHE})


@router.get("/v1/me/games")
async def my_games(request: Request) -> Response:
    """The bearer player's games, their turn first: ``{"games": [...], "next_page_token"}``."""
    message = identity_pb2.ListMyGamesRequest(page_token=request.query_params.get("page_token", ""))
    size = request.query_params.get("page_size", "")
    if size:
        if not size.isdigit() or not 1 <= int(size) <= 100:
            raise Problem(400, "bad_page_size", "page_size is 1-100")
        message.page_size = int(size)
    answer = await _identity(request, "ListMyGames", message)
    return JSON(protojson.to_dict(answer))
