"""REST routes of the match lifecycle: the listing, join, leave, kick, start, resign.

Each forwards to the game's rules service (``JoinGame``, ``LeaveGame``, ...), so
REST and gRPC refuse the same requests with the same codes.  ``GET /v1/games``
without ``game_type`` asks every rules service and merges their pages newest first.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from google.protobuf.message import Message

from chaiwala.v1 import rest_pb2, rules_pb2
from gateway.listing import page_size
from gateway.messages import carry
from gateway.problems import Problem
from gateway.routes import JSON, _backends, _body, _call, _forward, _forward_body, _rpc, _stub_for
from services.common import protojson
from services.lobby.listing import encode_cursor

router = APIRouter()


def _flag(request: Request, name: str) -> bool:
    text = request.query_params.get(name, "false").lower()
    if text not in ("true", "false", "1", "0"):
        raise Problem(400, f"bad_{name}", f"{name} is true or false")
    return text in ("true", "1")


def _listing_request(request: Request) -> rules_pb2.ListGamesRequest:
    return rules_pb2.ListGamesRequest(
        status=request.query_params.get("status", ""),
        open_seats=_flag(request, "open_seats"),
        visibility=request.query_params.get("visibility", ""),
        page_size=page_size(request),
        page_token=request.query_params.get("page_token", ""),
    )


def _created_ms(game: dict[str, Any]) -> int:
    return int(datetime.fromisoformat(game["created_at"]).timestamp() * 1000)


@router.get("/v1/games")
async def list_games(request: Request) -> Response:
    """Games newest first, filtered by type, status, open seats and visibility; cursor-paginated."""
    listing = _listing_request(request)
    stubs = _backends(request).stubs
    wanted = request.query_params.get("game_type", "")
    if wanted and wanted not in stubs:
        raise Problem(400, "unknown_game_type", f"unknown game_type {wanted!r}")
    chosen = [stubs[wanted]] if wanted else [stubs[name] for name in sorted(stubs)]
    answers = await asyncio.gather(*(_rpc(stub.ListGames(listing, **_call(request))) for stub in chosen))
    games = [protojson.to_dict(game) for answer in answers for game in answer.games]
    games.sort(key=lambda game: (_created_ms(game), game["game_id"]), reverse=True)
    more = len(games) > listing.page_size or any(answer.next_page_token for answer in answers)
    page = games[: listing.page_size]
    token = encode_cursor(_created_ms(page[-1]), page[-1]["game_id"]) if more and page else ""
    return JSON({"games": page, "next_page_token": token})


@router.post("/v1/games/{game_id}/join")
async def join(game_id: str, request: Request) -> Response:
    """Take an open seat: ``{"name", "invite"?, "seat"?}`` → ``{"seat", "token", "status"}`` (the token once)."""
    stub = _stub_for(request, game_id)
    options = _call(request)
    body = await _body(request, rest_pb2.JoinGameBody())
    grpc_request = carry(body, rules_pb2.JoinGameRequest(game_id=game_id))
    answer = await _rpc(stub.JoinGame(grpc_request, **options))
    return JSON({"seat": answer.seat, "token": answer.token, "status": answer.status})


@router.post("/v1/games/{game_id}/leave")
async def leave(game_id: str, request: Request) -> Response:
    """Free the bearer's seat of a waiting game."""
    return await _forward(request, game_id, "LeaveGame", rules_pb2.LeaveGameRequest(game_id=game_id))


@router.post("/v1/games/{game_id}/kick")
async def kick(game_id: str, request: Request) -> Response:
    """Host: free a filled seat of a waiting game (``{"seat"}``)."""
    def build(body: rest_pb2.KickSeatBody) -> Message:
        return rules_pb2.KickSeatRequest(game_id=game_id, seat=body.seat)

    return await _forward_body(request, game_id, "KickSeat", rest_pb2.KickSeatBody(), build)


@router.post("/v1/games/{game_id}/start")
async def start(game_id: str, request: Request) -> Response:
    """Host: start a waiting game with the seats filled so far."""
    return await _forward(request, game_id, "StartGame", rules_pb2.StartGameRequest(game_id=game_id))


@router.post("/v1/games/{game_id}/resign")
async def resign(game_id: str, request: Request) -> Response:
    """The bearer's seat resigns; a bot plays its remaining turns."""
    return await _forward(request, game_id, "ResignGame", rules_pb2.ResignGameRequest(game_id=game_id))
