"""REST and SSE routes: parse, forward to the game's rules service over gRPC, render.

The gateway holds no game state and no game logic.  A game id names its game type
(``<game_type>-<hex>``), which is how requests find their rules service.  Handlers are
module-level functions; what they share (settings, channels, metrics) lives on
``app.state`` and is set up by :func:`gateway.app.create_app`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import orjson
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from google.protobuf import json_format
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.types import Scope

from chaiwala.v1 import rest_pb2, rules_pb2
from gateway import jsonbody, posted
from gateway.backends import Backends
from gateway.edge import Metrics
from gateway.fanout import LiveEvents, ViewerKey, live_stream
from gateway.include import game_read, included, with_legal_moves, with_legal_moves_json
from gateway.limits import Rider, RiderFor
from gateway.messages import carry
from gateway.nulls import refuse_nulls
from gateway.problems import Problem, problem_from_rpc
from gateway.resume import MAX_VERSION, last_event
from gateway.settings import GatewaySettings
from gateway.stream_tickets import ticket_body, ticket_param
from services.common import protojson
from services.common.answerjson import answer_json
from services.common.callmeta import PRINT_ANSWER, PRINT_EVENTS
from services.common.logs import get_logger
from services.common.metrics_http import authorised
from services.common.workers import scrape_registry
from services.filing.keys import game_type_of
from services.filing.store import is_ended
from services.legalmoves.reader import RIDDEN, LegalMovesReader, answer_field
from services.legalmoves.render import listing_json

log = get_logger("gateway")
LANGUAGES = ("en", "es")  # the values ?lang= may take
router = APIRouter()
METADATA = "chaiwala.metadata"  # the request's gRPC metadata, in its scope (_metadata)
LEGAL_MOVES_PATH = re.compile(r"/v1/games/(?P<game_id>[^/]+)/legal-moves")
# What a move's call asks the rules service to print: its events (rules services since
# events_json) and its whole answer (since answer_json).
_PRINTING = ((PRINT_EVENTS, "1"), (PRINT_ANSWER, "1"))


class JSON(JSONResponse):
    """JSON rendered with orjson (fast, and exact for floats)."""

    def render(self, content: Any) -> bytes:
        """Serialise ``content`` with orjson."""
        return orjson.dumps(content)


def _language(request: Request) -> tuple[tuple[str, str], ...]:
    """``?lang=`` or else ``Accept-Language`` as gRPC metadata (the rules service picks English or Spanish).

    ``lang`` is for ``EventSource``, which cannot set headers (the browser sends its own
    ``Accept-Language``, which may not be the language the page was switched to).
    """
    # Most requests have no query: nothing to parse then.
    chosen = request.query_params.get("lang", "") if request.scope.get("query_string") else ""
    header = (chosen if chosen in LANGUAGES else request.headers.get("accept-language", ""))[:256]
    if not header or not (header.isascii() and header.isprintable()):
        return ()
    return (("accept-language", header),)


def _metadata(request: Request) -> tuple[tuple[str, str], ...]:
    """The bearer and the language as gRPC metadata; worked out once per request (a GET legal-moves
    needs it in the limits' rider, then in the route), a refusal each time it is asked."""
    kept: tuple[tuple[str, str], ...] | None = request.scope.get(METADATA)
    if kept is None:
        kept = request.scope[METADATA] = _metadata_of(request)
    return kept


def _metadata_of(request: Request) -> tuple[tuple[str, str], ...]:
    header = request.headers.get("authorization", "")
    if not header:
        return _language(request)
    # gRPC metadata must be printable ASCII; anything else cannot be a token we issued.
    printable = header.isascii() and header.isprintable()
    if not printable or not header.lower().startswith("bearer ") or len(header) > 4096:
        raise Problem(401, "unauthenticated", "use 'Authorization: Bearer <token>'")
    return (("authorization", header), *_language(request))


async def _rpc(call: Awaitable[Any]) -> Any:
    try:
        return await call
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None


async def _read_json(request: Request, limit: int, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object, within ``limit`` bytes, or a problem."""
    declared = request.headers.get("content-length")
    if declared and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise Problem(413, "body_too_large", f"bodies are limited to {limit} bytes")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Problem(413, "body_too_large", f"bodies are limited to {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        if required:
            raise Problem(400, "empty_body", "a JSON object body is required")
        return {}
    content_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if content_type != "application/json" and not content_type.endswith("+json"):
        raise Problem(415, "unsupported_media_type", "send application/json")
    data = jsonbody.loads(raw)
    if not isinstance(data, dict):
        raise Problem(400, "invalid_request", "the body must be a JSON object")
    return data


def _parse(data: dict[str, Any], message: Message) -> Message:
    refuse_nulls(data, message.DESCRIPTOR)
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except (json_format.ParseError, TypeError, ValueError, RecursionError) as error:
        raise Problem(400, "invalid_request", str(error)) from None
    return message


def _game_type(game_id: str) -> str:
    game_type = game_type_of(game_id)
    if not game_type:
        raise Problem(404, "game_not_found", f"no game {game_id!r}")
    return game_type


def _pack_game_message(game_type: str, name: str, data: dict[str, Any], code: str) -> Any:
    """Parse the JSON of one of the game's messages; an ``@type`` from our own output is allowed."""
    data = dict(data)
    type_url = data.pop("@type", None)
    if type_url is not None and type_url != f"type.googleapis.com/chaiwala.{game_type}.v1.{name}":
        raise Problem(400, code, f"expected a chaiwala.{game_type}.v1.{name}, got {type_url}")
    try:
        return posted.pack(game_type, name, data)
    except protojson.BadMessage as error:
        raise Problem(400, code, str(error)) from None


def _posted_move(move: Message | dict[str, Any]) -> dict[str, Any]:
    """A posted move as JSON (a ``Struct`` or the body's own dict, copied); the sentence and the
    price an element of legal-moves carries (``text``, ``costs``) are ignored."""
    data = dict(move) if isinstance(move, dict) else json_format.MessageToDict(move)
    if isinstance(data.get("text"), str):
        del data["text"]
    if isinstance(data.get("costs"), list):
        del data["costs"]
    return data


UINT32_MAX = 2**32 - 1


def _backends(request: Request) -> Backends:
    backends: Backends = request.app.state.backends
    return backends


def _settings(request: Request) -> GatewaySettings:
    settings: GatewaySettings = request.app.state.settings
    return settings


def _call(request: Request) -> dict[str, Any]:
    """Per-call options: the bearer, a deadline, and waiting through a service restart."""
    timeout = _settings(request).rpc_timeout_seconds
    return {"metadata": _metadata(request), "timeout": timeout, "wait_for_ready": True}


def _stub_for(request: Request, game_id: str) -> Any:
    return _backends(request).stub(_game_type(game_id))


async def _forward(request: Request, game_id: str, method: str, message: Message) -> Response:
    """Pass one call with no body through to the game's rules service and render its answer."""
    stub = _stub_for(request, game_id)
    answer = await _rpc(getattr(stub, method)(message, **_call(request)))
    return JSON(protojson.to_dict(answer))


async def _body(request: Request, message: Any, required: bool = True) -> Any:
    """The JSON body (within the body limit) parsed into ``message``, or a problem."""
    return _parse(await _read_json(request, _settings(request).max_body_bytes, required=required), message)


async def _forward_body(
    request: Request, game_id: str, method: str, body: Message, build: Callable[[Any], Message], required: bool = True
) -> Response:
    """Pass one call made by ``build`` from the JSON body parsed into ``body`` and render its answer;
    the game's service and the credential are settled before the body is read."""
    stub = _stub_for(request, game_id)
    options = _call(request)
    answer = await _rpc(getattr(stub, method)(build(await _body(request, body, required)), **options))
    return JSON(protojson.to_dict(answer))


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    """Readiness: every configured rules service reports SERVING."""
    channels = _backends(request).channels

    async def check(game_type: str) -> tuple[str, str]:
        stub = health_pb2_grpc.HealthStub(channels[game_type])
        try:
            answer = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
        except grpc.aio.AioRpcError as error:
            return game_type, error.code().name
        return game_type, health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)

    results = dict(await asyncio.gather(*(check(g) for g in channels)))
    ready = bool(results) and all(status == "SERVING" for status in results.values())
    return JSON({"ready": ready, "services": results}, status_code=200 if ready else 503)


@router.get("/metrics")
async def prometheus(request: Request) -> Response:
    """The gateway's Prometheus metrics (behind ``CHAIWALA_METRICS_TOKEN`` when it is set)."""
    token = request.app.state.settings.metrics_token
    if not authorised(request.headers.get("authorization", ""), token):
        raise Problem(401, "unauthenticated", "metrics need the bearer token", headers={"WWW-Authenticate": "Bearer"})
    metrics: Metrics = request.app.state.metrics
    # With several workers, the sum over all of them (services.common.workers).
    return Response(generate_latest(scrape_registry(metrics.registry)), media_type=CONTENT_TYPE_LATEST)


@router.get("/v1/game-types")
async def game_types(request: Request) -> Response:
    """Every game type whose rules service answers."""
    found = []
    for game_type, stub in sorted(_backends(request).stubs.items()):
        try:
            answer = await stub.GetGameType(rules_pb2.GetGameTypeRequest(), metadata=_language(request), timeout=5)
        except grpc.aio.AioRpcError:
            log.warning("game_type_unavailable", game_type=game_type)
            continue
        found.append(_stable_terms(protojson.to_dict(answer)))
    return JSON(found)


def _stable_terms(printed: dict[str, Any]) -> dict[str, Any]:
    """``terms`` and each group's ``words`` in key order.  A proto map prints in the order of its hash
    table, which is seeded per process, so two gateway workers (or a restart) gave this public,
    cached answer different bytes and ETags; sorted, every process prints the same."""
    terms = printed.get("terms")
    if isinstance(terms, dict):
        printed["terms"] = {
            group: {**words, "words": dict(sorted(words["words"].items()))} if "words" in words else words
            for group, words in sorted(terms.items())
        }
    return printed


@router.post("/v1/games", status_code=201)
async def create_game(request: Request) -> Response:
    """Create a game; the answer carries each seat's token, once."""
    body = _parse(await _read_json(request, _settings(request).max_body_bytes), rest_pb2.CreateGameBody())
    assert isinstance(body, rest_pb2.CreateGameBody)
    stub = _backends(request).stubs.get(body.game_type)
    if stub is None:
        raise Problem(400, "unknown_game_type", f"unknown game_type {body.game_type!r}")
    grpc_request = carry(body, rules_pb2.CreateGameRequest(), skip={"options"})
    if body.HasField("options"):
        options = json_format.MessageToDict(body.options)
        grpc_request.options.CopyFrom(_pack_game_message(body.game_type, "Options", options, "bad_options"))
    answer = await _rpc(stub.CreateGame(grpc_request, **_call(request)))
    return JSON(protojson.to_dict(answer), status_code=201)


@router.get("/v1/games/{game_id}")
async def get_game(game_id: str, request: Request) -> Response:
    """The game as the bearer may see it; ``?include=legal_moves`` adds the seat's legal moves (gateway.include)."""
    if not included(request):
        return await _forward(request, game_id, "GetGame", rules_pb2.GetGameRequest(game_id=game_id))
    stub, options = _stub_for(request, game_id), _call(request)
    answer = await _rpc(stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), **options))
    seated = answer.HasField("viewer_seat")
    return JSON(await with_legal_moves(request, protojson.to_dict(answer), stub, options, game_id, seated))


@router.get("/v1/games/{game_id}/legal-moves")
async def legal_moves(game_id: str, request: Request) -> Response:
    """The bearer's legal moves, each with its sentence as ``text`` beside the move's fields."""
    stub = _stub_for(request, game_id)
    options = _call(request)
    # The answer the game's last commit stored for this very token, if still current
    # (services.legalmoves), usually read already with the limits (legal_moves_rider).
    reader: LegalMovesReader = request.app.state.legal_moves
    stored = await reader.read(game_id, options["metadata"], request.scope.get(RIDDEN))
    if stored is None:
        listing = rules_pb2.ListLegalMovesRequest(game_id=game_id)
        stored = listing_json(await _rpc(stub.ListLegalMoves(listing, **options)))
    return Response(stored, media_type=JSON.media_type)


def legal_moves_rider(reader: LegalMovesReader) -> RiderFor:
    """The stored-answer read of a ``GET legal-moves`` (or a game with them), in the limits' Redis round trip."""
    if reader.client is None:
        return lambda scope: None
    source = reader.script_source()

    def rider(scope: Scope) -> Rider | None:
        found = (LEGAL_MOVES_PATH.fullmatch(scope["path"]) if scope["method"] == "GET" else None) or game_read(scope)
        if found is None:
            return None
        try:
            field = answer_field(_metadata(Request(scope)))
        except Problem:  # the route refuses it before reading anything
            return None
        if not field:
            return None
        game_id = found["game_id"]
        return Rider(source, reader.script_keys(game_id), [field], RIDDEN, (game_id, field))

    return rider


@router.post("/v1/games/{game_id}/moves")
async def submit_moves(game_id: str, request: Request) -> Response:
    """One move or an atomic batch, with an optional expected version and idempotency key."""
    game_type = _game_type(game_id)
    _backends(request).require_known(game_type)  # before the credential and the body are read
    wanted = included(request)
    options = _call(request)  # a bad credential is refused before the body is read
    data = await _read_json(request, _settings(request).max_body_bytes)
    posted, expected = _one_move(data) or _moves_of(data)
    moves = [_pack_game_message(game_type, "Move", _posted_move(m), "malformed_move") for m in posted]
    grpc_request = rules_pb2.SubmitMovesRequest(
        game_id=game_id,
        moves=moves,
        idempotency_key=request.headers.get("idempotency-key", ""),
    )
    if expected is not None:
        grpc_request.expected_version = expected
    # The whole answer comes printed by the rules service (services.rules.rendered), answered as it
    # comes.  Every rules service serves RenderedRules (it came before this gateway's release), so
    # one RPC: no fallback; what it prints is asked for, so an older gateway still gets the answer
    # message, and an older rules service answers the state and events printed apart (or the
    # events packed), which the gateway prints around them with the same printer.
    printing = {**options, "metadata": (*options["metadata"], *_PRINTING)}
    rendered = await _rpc(_backends(request).rendered[game_type].SubmitMoves(grpc_request, **printing))
    answer = rendered.answer
    body = rendered.answer_json or answer_json(answer, rendered.state_json, rendered.events_json)
    if wanted:
        # The next legal moves ride in the answer (gateway.include): the client needs no other read.
        stub = _backends(request).stub(game_type)
        body = await with_legal_moves_json(request, body, answer.status, answer.version, stub, options, game_id)
    return Response(body, media_type=JSON.media_type)


def _one_move(data: dict[str, Any]) -> tuple[list[dict[str, Any]], int | None] | None:
    """The common body, ``{"move": {...}}`` with an optional integer ``expected_version``, read
    straight from its JSON; ``None`` for any other body (:func:`_moves_of` parses it fully).

    What the full parse would do to it: a move is a ``Struct`` that goes back to the same JSON,
    and a ``uint32`` version in range stays itself; so the move is parsed once, into the game's
    own ``Move`` message (``protojson.pack``).
    """
    move, version = data.get("move"), data.get("expected_version")
    if type(move) is not dict or not data.keys() <= {"move", "expected_version"}:
        return None
    if "expected_version" in data and not (type(version) is int and 0 <= version <= UINT32_MAX):
        return None
    return [move], version


def _moves_of(data: dict[str, Any]) -> tuple[list[Any], int | None]:
    """The moves and the expected version of any body, through the ``SubmitMovesBody`` message."""
    body = _parse(data, rest_pb2.SubmitMovesBody())
    assert isinstance(body, rest_pb2.SubmitMovesBody)
    if body.HasField("move") == bool(body.moves):
        raise Problem(400, "invalid_request", "give exactly one of 'move' and 'moves'")
    moves = [body.move] if body.HasField("move") else list(body.moves)
    return moves, body.expected_version if body.HasField("expected_version") else None


@router.get("/v1/games/{game_id}/events")
async def events(game_id: str, request: Request) -> Response:
    """Events after a version: a JSON list, or a live SSE stream when asked for one (gateway.fanout)."""
    stub = _stub_for(request, game_id)
    metadata = _metadata(request)
    ticket = ticket_param(request)
    after, index = last_event(request)
    listing = rules_pb2.ListEventsRequest(game_id=game_id, after=after, ticket=ticket)
    if index is not None:
        listing.after_index = index
    if "text/event-stream" not in request.headers.get("accept", ""):
        answer = await _rpc(stub.ListEvents(listing, **_call(request)))
        return JSON([protojson.to_dict(e) for e in answer.events])
    # Check the id and the credential before committing to a 200 stream; its version is where
    # a new shared upstream starts.  Open streams are counted and capped by the limits middleware.
    check = rules_pb2.ListEventsRequest(game_id=game_id, after=MAX_VERSION, ticket=ticket)
    probe = await _rpc(stub.ListEvents(check, **_call(request)))
    if is_ended(probe.status) and not (await _rpc(stub.ListEvents(listing, **_call(request)))).events:
        # Over, and the client has seen everything: 204 tells an EventSource to stop reconnecting.
        return Response(status_code=204)
    watcher = _backends(request).watch_stub(_game_type(game_id))
    batches = _backends(request).watch_batches[_game_type(game_id)]

    def open_watch(resume: tuple[int, int] | None, batched: bool) -> Any:
        watch = rules_pb2.WatchEventsRequest(game_id=game_id, after=probe.version, ticket=ticket)
        if resume is not None:
            watch.after, watch.after_index = resume
        opened = batches.WatchEventBatches if batched else watcher.WatchEvents
        return opened(watch, metadata=metadata, wait_for_ready=True)

    live: LiveEvents = request.app.state.live_events
    last = (after, MAX_VERSION if index is None else index)
    listener = await live.subscribe(ViewerKey.of(game_id, metadata, ticket), open_watch, last)
    try:
        history = await _rpc(stub.ListEvents(listing, **_call(request)))  # after subscribing: see gateway.fanout
    except BaseException:
        listener.on_leave()
        raise
    return live_stream(listener, list(history.events))


@router.post("/v1/games/{game_id}/stream-tickets", status_code=201)
async def create_stream_ticket(game_id: str, request: Request) -> Response:
    """A short-lived, read-only ticket of this game for the bearer's seat, to open an event stream with."""
    stub = _stub_for(request, game_id)
    grpc_request = rules_pb2.CreateStreamTicketRequest(game_id=game_id)
    answer = await _rpc(stub.CreateStreamTicket(grpc_request, **_call(request)))
    return JSON(ticket_body(answer), status_code=201, headers={"Cache-Control": "no-store"})


@router.get("/v1/games/{game_id}/replay")
async def replay(game_id: str, request: Request) -> Response:
    """Every move and event from the start (operators, or anyone once the game is over)."""
    return await _forward(request, game_id, "GetReplay", rules_pb2.GetReplayRequest(game_id=game_id))


@router.post("/v1/games/{game_id}/abort")
async def abort(game_id: str, request: Request) -> Response:
    """End a game without a result (operators)."""
    def build(body: rest_pb2.AbortGameBody) -> Message:
        return rules_pb2.AbortGameRequest(game_id=game_id, reason=body.reason)

    return await _forward_body(request, game_id, "AbortGame", rest_pb2.AbortGameBody(), build, required=False)
