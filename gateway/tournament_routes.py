"""REST routes of tournaments and ratings, forwarded to the tournament director over gRPC.

``POST /v1/tournaments`` (operator key), ``GET /v1/tournaments``, ``/{id}``, ``/{id}/rounds``,
``/{id}/standings``, ``/{id}/table`` (entrant token), ``POST /{id}/withdraw`` (entrant token, or
operator key with ``{"external_id"}``), ``GET /v1/ratings/{game_type}``,
``GET /v1/players/{external_id}``.  Refusals come back from the director with the same codes
as on gRPC (problem+json).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from google.protobuf import json_format

from chaiwala.rating.v1 import rating_pb2
from chaiwala.tournament.v1 import tournament_pb2
from gateway.forward import Forward, add_forwards
from gateway.listing import page_size
from gateway.lobby_routes import _body
from gateway.messages import carry
from gateway.problems import Problem
from gateway.routes import JSON, _backends, _call, _pack_game_message, _rpc
from services.common import protojson

router = APIRouter()


def _tournaments(request: Request) -> Any:
    return _backends(request).tournaments


def _create_request(
    body: tournament_pb2.CreateTournamentBody, game_types: set[str]
) -> tournament_pb2.CreateTournamentRequest:
    grpc_request = carry(body, tournament_pb2.CreateTournamentRequest(), skip={"options"})
    if body.HasField("options"):
        if body.game_type not in game_types:
            raise Problem(400, "unknown_game_type", f"unknown game_type {body.game_type!r}")
        options = json_format.MessageToDict(body.options)
        grpc_request.options.CopyFrom(_pack_game_message(body.game_type, "Options", options, "bad_options"))
    return grpc_request


@router.post("/v1/tournaments")
async def create_tournament(request: Request) -> Response:
    """Create a tournament (operator key); the answer carries each entrant's token, once."""
    body = await _body(request, tournament_pb2.CreateTournamentBody())
    grpc_request = _create_request(body, set(_backends(request).stubs))
    answer = await _rpc(_tournaments(request).CreateTournament(grpc_request, **_call(request)))
    return JSON(protojson.to_dict(answer), status_code=201)


@router.get("/v1/tournaments")
async def list_tournaments(request: Request) -> Response:
    """Tournaments newest first: ``?status=running|finished&page_size=&page_token=``."""
    listing = tournament_pb2.ListTournamentsRequest(
        status=request.query_params.get("status", ""),
        page_size=page_size(request),
        page_token=request.query_params.get("page_token", ""),
    )
    return await _read(request, "ListTournaments", listing)


async def _read(request: Request, method: str, message: Any) -> Response:
    """Forward a read to the director and render its answer."""
    answer = await _rpc(getattr(_tournaments(request), method)(message, **_call(request)))
    return JSON(protojson.to_dict(answer))


add_forwards(
    router,
    _read,
    [
        Forward(
            "GET",
            "/v1/tournaments/{tournament_id}",
            "get_tournament",
            "GetTournament",
            tournament_pb2.GetTournamentRequest,
            "One tournament: format, status, entrants, rounds so far (the seed once it is over).",
        ),
        Forward(
            "GET",
            "/v1/tournaments/{tournament_id}/rounds",
            "tournament_rounds",
            "ListRounds",
            tournament_pb2.ListRoundsRequest,
            "Every round: tables, their games, seats, places and points.",
        ),
        Forward(
            "GET",
            "/v1/tournaments/{tournament_id}/standings",
            "tournament_standings",
            "GetStandings",
            tournament_pb2.GetStandingsRequest,
            '``{"round", "standings": [{"external_id", "name", "rank", "points", ...}]}`` after the finished rounds.',
        ),
        Forward(
            "GET",
            "/v1/tournaments/{tournament_id}/table",
            "my_table",
            "GetMyTable",
            tournament_pb2.GetMyTableRequest,
            "The bearer entrant's table in the current round: ``game_id`` and ``seat`` (or ``bye``).",
        ),
    ],
)


@router.post("/v1/tournaments/{tournament_id}/withdraw")
async def withdraw(tournament_id: str, request: Request) -> Response:
    """Withdraw the bearer entrant (or, with an operator key, ``{"external_id"}``): its seats resign."""
    body = await _body(request, tournament_pb2.WithdrawEntrantRequest(), required=False)
    if body.tournament_id:
        raise Problem(400, "invalid_request", "the tournament is named by the path")
    message = tournament_pb2.WithdrawEntrantRequest(tournament_id=tournament_id, external_id=body.external_id)
    return await _read(request, "WithdrawEntrant", message)


@router.get("/v1/ratings/{game_type}")
async def ratings(game_type: str, request: Request) -> Response:
    """The leaderboard, best ordinal first: ``{"ratings": [{"external_id", "name", "ordinal", "mu", "sigma",
    "games"}], "next_page_token"}``."""
    message = rating_pb2.ListRatingsRequest(
        game_type=game_type, page_size=page_size(request), page_token=request.query_params.get("page_token", "")
    )
    answer = await _rpc(_backends(request).ratings.ListRatings(message, **_call(request)))
    listing = protojson.to_dict(answer)
    for line in listing["ratings"]:
        line.pop("game_type", None)
    return JSON(listing)


@router.get("/v1/players/{external_id}")
async def player(external_id: str, request: Request) -> Response:
    """A player's rating per game type and recent rated games."""
    message = rating_pb2.GetPlayerRequest(external_id=external_id)
    return JSON(protojson.to_dict(await _rpc(_backends(request).ratings.GetPlayer(message, **_call(request)))))
