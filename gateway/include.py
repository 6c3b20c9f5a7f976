"""``?include=legal_moves``: a game's answer with the bearer seat's legal moves inside.

A client plays a move with one request and renders the answer (``POST /v1/games/{id}/moves``),
and reads a game it has not seen with one request (``GET /v1/games/{id}``): both answers can
carry the seat's next legal moves as ``legal_moves``, printed exactly as ``GET legal-moves``
prints them, so the client never reads them separately (docs/guides/frontend.md, "One request
per move").

Where they come from: the answer the commit stored for this very token (services.legalmoves),
read from Redis — for a ``GET`` in the limits' own round trip (``routes.legal_moves_rider``), for
a ``POST`` right after its commit — or else the rules service's ``ListLegalMoves``.  They are
added only while the game is active and the bearer holds a seat; their ``version`` says which
position they belong to (a bot may have moved since: a newer version means the answer is stale).
Listing them is best effort after a move: a refusal there leaves them out, the move stands.
"""

from __future__ import annotations

import re
from typing import Any

import grpc
import orjson
from fastapi import Request
from starlette.types import Scope

from chaiwala.v1 import rules_pb2
from gateway.problems import Problem
from services.common.logs import get_logger
from services.legalmoves.reader import RIDDEN, LegalMovesReader
from services.legalmoves.render import listing_json

log = get_logger("gateway")

LEGAL_MOVES = "legal_moves"
INCLUDES = frozenset({LEGAL_MOVES})  # what ``include`` may name
_MAX_INCLUDE = 256
GAME_PATH = re.compile(r"/v1/games/(?P<game_id>[^/]+)")


def game_read(scope: Scope) -> re.Match[str] | None:
    """A ``GET`` of a game that may include its legal moves (the route checks ``include`` itself):
    the limits' Redis round trip reads the stored answer for it (``routes.legal_moves_rider``)."""
    if scope["method"] != "GET" or LEGAL_MOVES.encode() not in scope.get("query_string", b""):
        return None
    return GAME_PATH.fullmatch(scope["path"])


def included(request: Request) -> frozenset[str]:
    """The parts ``?include=`` asks for (one name a value; repeatable); anything else is 400 ``bad_include``."""
    if not request.scope.get("query_string"):
        return frozenset()  # most requests have no query: nothing to parse
    values = request.query_params.getlist("include")
    if sum(len(v) for v in values) > _MAX_INCLUDE:
        raise Problem(400, "bad_include", f"include names at most {_MAX_INCLUDE} characters")
    # Each value names one part exactly, as the schema's enum says: an empty or comma-joined value is
    # refused rather than read loosely (the server is no laxer than its schema).
    unknown = [value for value in values if value not in INCLUDES]
    if unknown:
        raise Problem(400, "bad_include", f"include takes {', '.join(sorted(INCLUDES))}, not {unknown[0]!r}")
    return frozenset(values)


def _version_of(listing: bytes) -> int:
    try:
        version = orjson.loads(listing).get("version", 0)
    except (orjson.JSONDecodeError, AttributeError):
        return -1
    return version if isinstance(version, int) else -1


async def legal_moves_of(
    request: Request, stub: Any, options: dict[str, Any], game_id: str, version: int
) -> bytes | None:
    """The bearer's legal moves as ``GET legal-moves`` prints them, at ``version`` or newer; ``None``
    when the rules service refuses them (the answer they would ride in stands without them)."""
    reader: LegalMovesReader = request.app.state.legal_moves
    stored = await reader.read(game_id, options["metadata"], request.scope.get(RIDDEN))
    # A stored answer read before this answer's own call (the limits' round trip) may be older.
    if stored is None or _version_of(stored) < version:
        listing = rules_pb2.ListLegalMovesRequest(game_id=game_id)
        try:
            stored = listing_json(await stub.ListLegalMoves(listing, **options))
        except grpc.aio.AioRpcError as error:
            log.warning("included_legal_moves_failed", game_id=game_id, code=error.code().name)
            return None
    return stored


async def with_legal_moves(
    request: Request, printed: dict[str, Any], stub: Any, options: dict[str, Any], game_id: str, seated: bool
) -> dict[str, Any]:
    """``printed`` (a game or a move's answer), with ``legal_moves`` while the game is active and the bearer seated."""
    if seated and printed.get("status") == "active":
        legal = await legal_moves_of(request, stub, options, game_id, int(printed.get("version", 0)))
        if legal is not None:
            printed[LEGAL_MOVES] = orjson.Fragment(legal)
    return printed


async def with_legal_moves_json(
    request: Request, printed: bytes, status: str, version: int, stub: Any, options: dict[str, Any], game_id: str
) -> bytes:
    """A seat's answer printed whole (a move's, ``printed``: a JSON object; its ``status`` and ``version``),
    with ``legal_moves`` as its last member while the game is active: the bytes
    :func:`with_legal_moves` and printing give, without parsing the answer."""
    if status != "active":
        return printed
    legal = await legal_moves_of(request, stub, options, game_id, version)
    if legal is None:
        return printed
    # orjson prints no spaces: the object's last byte is its closing brace.
    comma = b"," if printed != b"{}" else b""
    return b"".join((printed[:-1], comma, b'"', LEGAL_MOVES.encode(), b'":', legal, b"}"))
