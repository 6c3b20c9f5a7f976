"""Routes for drawing tables: a game at a past version (the replay viewer) and static boards.

They forward to ``chaiwala.v1.TableService`` on the game's rules service (the gateway has no
game logic).  A board never changes while a deployment runs, so its answer carries an
``ETag`` (the board's digest) and may be cached for an hour; ``If-None-Match`` gets a 304, matched
as every tag of the gateway is (:func:`gateway.conditional.matching_tag`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from chaiwala.v1 import rules_pb2, tables_pb2, tables_pb2_grpc
from gateway.conditional import matching_tag
from gateway.problems import Problem
from gateway.resume import MAX_VERSION, counter
from gateway.routes import JSON, _backends, _call, _game_type, _language, _rpc
from services.common import protojson

router = APIRouter()
BOARD_CACHE = "public, max-age=3600"


def _tables(request: Request, game_type: str) -> tables_pb2_grpc.TableServiceStub:
    channel = _backends(request).channels.get(game_type)
    if channel is None:
        raise Problem(404, "unknown_game_type", f"unknown game type {game_type!r}")
    return tables_pb2_grpc.TableServiceStub(channel)


@router.get("/v1/games/{game_id}/versions/{version}")
async def game_at_version(game_id: str, version: str, request: Request) -> Response:
    """The game right after one version (0 = set-up) as the bearer may see it; finished games (operators: any)."""
    number = counter(version)
    if number is None:
        raise Problem(400, "bad_version", f"the version must be a number from 0 to {MAX_VERSION}")
    stub = _tables(request, _game_type(game_id))
    call = stub.GetGameAtVersion(tables_pb2.GetGameAtVersionRequest(game_id=game_id, version=number), **_call(request))
    answer = await _rpc(call)
    return JSON(protojson.to_dict(answer))


@router.get("/v1/game-types/{game_type}/board")
async def board(game_type: str, request: Request) -> Response:
    """The game type's static board (India Rails: the milepost map) as JSON, cacheable."""
    stub = _tables(request, game_type)
    answer = await _rpc(stub.GetBoard(tables_pb2.GetBoardRequest(), **_call(request)))
    etag = f'"{answer.digest}"'
    headers = {"ETag": etag, "Cache-Control": BOARD_CACHE}
    matched = matching_tag(request.headers.get("if-none-match", ""), etag)
    if matched is not None:
        return Response(status_code=304, headers={**headers, "ETag": matched})
    return Response(answer.json, media_type="application/json", headers=headers)


@router.get("/v1/game-types/{game_type}/rules")
async def rules(game_type: str, request: Request) -> Response:
    """The game type's rules as Markdown (a quick start, then a reference), in the language of ``Accept-Language``.

    One text per language holds both parts under two level-2 headings, so a client shows the whole
    text or cuts it at the second heading; there is no ``?part=`` parameter.
    """
    stub = _backends(request).stubs.get(game_type)
    if stub is None:
        raise Problem(404, "unknown_game_type", f"unknown game type {game_type!r}")
    answer = await _rpc(stub.GetRules(rules_pb2.GetRulesRequest(), metadata=_language(request), timeout=5))
    headers = {"Content-Language": answer.language, "Vary": "Accept-Language", "Cache-Control": BOARD_CACHE}
    return Response(answer.markdown, media_type="text/markdown; charset=utf-8", headers=headers)
