"""REST and SSE routes: parse, forward to the game's rules service over gRPC, render.

The gateway holds no game state and no game logic.  A game id names its game type
(``<game_type>-<hex>``), which is how requests find their rules service.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import grpc
import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from google.protobuf import json_format
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from sse_starlette.sse import EventSourceResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from chaiwala.v1 import rest_pb2, rules_pb2, rules_pb2_grpc
from gateway.openapi import build_openapi
from gateway.problems import Problem, problem_from_rpc, problem_response
from gateway.settings import GatewaySettings
from services.common import protojson
from services.common.logs import get_logger
from services.common.store import game_type_of

log = get_logger("gateway")


class JSON(JSONResponse):
    """JSON rendered with orjson (fast, and exact for floats)."""

    def render(self, content: Any) -> bytes:
        """Serialise ``content`` with orjson."""
        return orjson.dumps(content)


def message_json(message: Message) -> dict[str, Any]:
    """A proto message as REST JSON: proto field names, every field printed."""
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


class Metrics:
    """The gateway's own Prometheus registry (separate from any in-process services)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "chaiwala_http_requests", "HTTP requests", ["method", "route", "status"], registry=self.registry
        )
        self.duration = Histogram(
            "chaiwala_http_request_duration_seconds",
            "HTTP request latency",
            ["method", "route"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )


class EdgeMiddleware:
    """Counts and times every request by route template, and is the last resort for crashes.

    Pure ASGI, so SSE streams pass through untouched.  An unexpected exception becomes
    a problem+json 500 here rather than reaching the server, which would drop the
    connection without an answer.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Time and count one HTTP request; turn anything that escaped into a problem+json 500."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def remember_status(message: AsgiMessage) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        started_response = False

        async def tracking_send(message: AsgiMessage) -> None:
            nonlocal started_response
            started_response = started_response or message["type"] == "http.response.start"
            await remember_status(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            log.exception("request_failed", path=scope.get("path", ""))
            if started_response:
                return
            response = problem_response(Problem(500, "internal", "internal error"), scope.get("path", ""))
            await response(scope, receive, remember_status)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.requests.labels(scope["method"], route, str(status)).inc()
            self.metrics.duration.labels(scope["method"], route).observe(time.perf_counter() - started)


# Spread calls over every address the name resolves to (e.g. a headless Kubernetes Service);
# the rules services cap connection age, so new pods are picked up as connections renew.
CHANNEL_OPTIONS = [("grpc.lb_policy_name", "round_robin"), ("grpc.enable_retries", 1)]


def _target(address: str) -> str:
    """A host:port as a DNS target, so the channel sees every address behind the name."""
    return (
        address if "://" in address or address.startswith(("dns:", "unix:", "ipv4:", "ipv6:")) else f"dns:///{address}"
    )


class Backends:
    """One gRPC channel and stub per game type."""

    def __init__(self, settings: GatewaySettings) -> None:
        self.settings = settings
        self.addresses = settings.service_addresses()
        self.channels: dict[str, grpc.aio.Channel] = {}
        self.stubs: dict[str, rules_pb2_grpc.RulesServiceStub] = {}
        self.files: list[Any] = []
        for game_type, address in self.addresses.items():
            try:
                protojson.load_game_protos(game_type)
            except ImportError:
                log.warning("no_protos", game_type=game_type)
                continue
            channel = grpc.aio.insecure_channel(_target(address), options=CHANNEL_OPTIONS)
            self.channels[game_type] = channel
            self.stubs[game_type] = rules_pb2_grpc.RulesServiceStub(channel)
            self.files.append(protojson.message_class(game_type, "State").DESCRIPTOR.file)

    def stub(self, game_type: str) -> rules_pb2_grpc.RulesServiceStub:
        """The stub for ``game_type``; unknown types are a 404 for ids, a 400 for bodies."""
        stub = self.stubs.get(game_type)
        if stub is None:
            raise Problem(404, "game_not_found", "no such game")
        return stub

    async def close(self) -> None:
        """Close every channel."""
        await asyncio.gather(*(channel.close() for channel in self.channels.values()))


def _metadata(request: Request) -> tuple[tuple[str, str], ...]:
    header = request.headers.get("authorization", "")
    if not header:
        return ()
    # gRPC metadata must be printable ASCII; anything else cannot be a token we issued.
    printable = header.isascii() and header.isprintable()
    if not printable or not header.lower().startswith("bearer ") or len(header) > 4096:
        raise Problem(401, "unauthenticated", "use 'Authorization: Bearer <token>'")
    return (("authorization", header),)


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
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise Problem(400, "malformed_json", f"the body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise Problem(400, "invalid_request", "the body must be a JSON object")
    return data


def _parse(data: dict[str, Any], message: Message) -> Message:
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=False)
    except (json_format.ParseError, TypeError, ValueError) as error:
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
        return protojson.pack(game_type, name, data)
    except protojson.BadMessage as error:
        raise Problem(400, code, str(error)) from None


MAX_VERSION = 2**31


def _counter(text: str) -> int | None:
    """A non-negative version or index written in ASCII digits, within range; else ``None``."""
    if not text or len(text) > 10 or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= MAX_VERSION else None


def _last_event(request: Request) -> tuple[int, int | None]:
    """Resume point from ``Last-Event-ID`` ("<version>:<index>") or ``?after=<version>``."""
    last = request.headers.get("last-event-id", "").strip()
    if last:
        version_text, separator, index_text = last.partition(":")
        version = _counter(version_text)
        index = _counter(index_text) if separator else None
        if version is None or (separator and index is None):
            raise Problem(400, "bad_last_event_id", "Last-Event-ID must look like '<version>:<index>'")
        return version, index
    after = _counter(request.query_params.get("after", "0"))
    if after is None:
        raise Problem(400, "bad_after", f"'after' must be a version number from 0 to {MAX_VERSION}")
    return after, None


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    """The gateway application."""
    settings = settings or GatewaySettings()
    metrics = Metrics()
    holder: dict[str, Backends] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        holder["backends"] = Backends(settings)
        yield
        await holder["backends"].close()

    app = FastAPI(title="Chaiwala", lifespan=lifespan, docs_url="/docs", redoc_url=None)

    def backends() -> Backends:
        return holder["backends"]

    def call(request: Request) -> dict[str, Any]:
        """Per-call options: the bearer, a deadline, and waiting through a service restart."""
        return {"metadata": _metadata(request), "timeout": settings.rpc_timeout_seconds, "wait_for_ready": True}

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            b = backends()
            app.openapi_schema = build_openapi(sorted(b.stubs), b.files)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.exception_handler(Problem)
    async def on_problem(request: Request, problem: Problem) -> Response:
        return problem_response(problem, request.url.path)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, error: StarletteHTTPException) -> Response:
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
        return problem_response(Problem(error.status_code, code, str(error.detail)), request.url.path)

    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, error: RequestValidationError) -> Response:
        return problem_response(Problem(400, "invalid_request", str(error.errors())), request.url.path)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz")
    async def readyz() -> Response:
        async def check(game_type: str) -> tuple[str, str]:
            stub = health_pb2_grpc.HealthStub(backends().channels[game_type])
            try:
                answer = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2)
            except grpc.aio.AioRpcError as error:
                return game_type, error.code().name
            return game_type, health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)

        results = dict(await asyncio.gather(*(check(g) for g in backends().channels)))
        ready = bool(results) and all(status == "SERVING" for status in results.values())
        return JSON({"ready": ready, "services": results}, status_code=200 if ready else 503)

    @app.get("/metrics")
    async def prometheus() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/v1/game-types")
    async def game_types(request: Request) -> Response:
        found = []
        for game_type, stub in sorted(backends().stubs.items()):
            try:
                answer = await stub.GetGameType(rules_pb2.GetGameTypeRequest(), timeout=5)
            except grpc.aio.AioRpcError:
                log.warning("game_type_unavailable", game_type=game_type)
                continue
            found.append(message_json(answer))
        return JSON(found)

    @app.post("/v1/games", status_code=201)
    async def create_game(request: Request) -> Response:
        body = _parse(await _read_json(request, settings.max_body_bytes), rest_pb2.CreateGameBody())
        assert isinstance(body, rest_pb2.CreateGameBody)
        stub = backends().stubs.get(body.game_type)
        if stub is None:
            raise Problem(400, "unknown_game_type", f"unknown game_type {body.game_type!r}")
        grpc_request = rules_pb2.CreateGameRequest(players=body.players)
        if body.HasField("seed"):
            grpc_request.seed = body.seed
        if body.HasField("options"):
            options = json_format.MessageToDict(body.options)
            grpc_request.options.CopyFrom(_pack_game_message(body.game_type, "Options", options, "bad_options"))
        answer = await _rpc(stub.CreateGame(grpc_request, **call(request)))
        return JSON(message_json(answer), status_code=201)

    @app.get("/v1/games/{game_id}")
    async def get_game(game_id: str, request: Request) -> Response:
        stub = backends().stub(_game_type(game_id))
        answer = await _rpc(stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), **call(request)))
        return JSON(message_json(answer))

    @app.get("/v1/games/{game_id}/legal-moves")
    async def legal_moves(game_id: str, request: Request) -> Response:
        stub = backends().stub(_game_type(game_id))
        answer = await _rpc(stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), **call(request)))
        return JSON(message_json(answer))

    @app.post("/v1/games/{game_id}/moves")
    async def submit_moves(game_id: str, request: Request) -> Response:
        game_type = _game_type(game_id)
        stub = backends().stub(game_type)
        options = call(request)  # a bad credential is refused before the body is read
        body = _parse(await _read_json(request, settings.max_body_bytes), rest_pb2.SubmitMovesBody())
        assert isinstance(body, rest_pb2.SubmitMovesBody)
        if body.HasField("move") == bool(body.moves):
            raise Problem(400, "invalid_request", "give exactly one of 'move' and 'moves'")
        raw_moves = [body.move] if body.HasField("move") else list(body.moves)
        key = request.headers.get("idempotency-key", "")
        grpc_request = rules_pb2.SubmitMovesRequest(
            game_id=game_id,
            moves=[
                _pack_game_message(game_type, "Move", json_format.MessageToDict(m), "malformed_move") for m in raw_moves
            ],
            idempotency_key=key,
        )
        if body.HasField("expected_version"):
            grpc_request.expected_version = body.expected_version
        answer = await _rpc(stub.SubmitMoves(grpc_request, **options))
        return JSON(message_json(answer))

    @app.get("/v1/games/{game_id}/events")
    async def events(game_id: str, request: Request) -> Response:
        stub = backends().stub(_game_type(game_id))
        metadata = _metadata(request)
        after, index = _last_event(request)
        if "text/event-stream" not in request.headers.get("accept", ""):
            listing = rules_pb2.ListEventsRequest(game_id=game_id, after=after)
            if index is not None:
                listing.after_index = index
            answer = await _rpc(stub.ListEvents(listing, **call(request)))
            return JSON([message_json(e) for e in answer.events])
        # Check the id and the credential before committing to a 200 stream.
        await _rpc(stub.ListEvents(rules_pb2.ListEventsRequest(game_id=game_id, after=MAX_VERSION), **call(request)))
        watch = rules_pb2.WatchEventsRequest(game_id=game_id, after=after)
        if index is not None:
            watch.after_index = index
        return EventSourceResponse(_sse(stub.WatchEvents(watch, metadata=metadata, wait_for_ready=True)), ping=15)

    async def _sse(call: Any) -> AsyncIterator[dict[str, str]]:
        try:
            async for event in call:
                yield {
                    "id": f"{event.version}:{event.index}",
                    "event": "game_event",
                    "data": orjson.dumps(message_json(event)).decode(),
                }
        except grpc.aio.AioRpcError as error:
            problem = problem_from_rpc(error)
            yield {"event": "error", "data": orjson.dumps({"code": problem.code, "detail": problem.detail}).decode()}
        finally:
            call.cancel()
        yield {"event": "end", "data": "{}"}

    @app.get("/v1/games/{game_id}/replay")
    async def replay(game_id: str, request: Request) -> Response:
        stub = backends().stub(_game_type(game_id))
        answer = await _rpc(stub.GetReplay(rules_pb2.GetReplayRequest(game_id=game_id), **call(request)))
        return JSON(message_json(answer))

    @app.post("/v1/games/{game_id}/abort")
    async def abort(game_id: str, request: Request) -> Response:
        stub = backends().stub(_game_type(game_id))
        options = call(request)
        body = _parse(await _read_json(request, settings.max_body_bytes, required=False), rest_pb2.AbortGameBody())
        assert isinstance(body, rest_pb2.AbortGameBody)
        answer = await _rpc(stub.AbortGame(rules_pb2.AbortGameRequest(game_id=game_id, reason=body.reason), **options))
        return JSON(message_json(answer))

    wrapped: Callable[..., Any] = EdgeMiddleware  # keeps mypy quiet about the middleware factory type
    app.add_middleware(wrapped, metrics=metrics)
    return app
