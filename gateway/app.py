"""The gateway application: settings, shared channels and metrics, error rendering, routes.

The routes themselves are in :mod:`gateway.routes`; this module wires them together.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.telemetry import TelemetryConfig
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from gateway.backends import Backends
from gateway.compression import CompressionMiddleware
from gateway.conditional import ConditionalMiddleware
from gateway.cors import install_cors, parse_origins
from gateway.docs import install_docs
from gateway.edge import EdgeMiddleware, Metrics
from gateway.fanout import FanoutMetrics, LiveEvents
from gateway.hotpath import HotPathMiddleware, hot_routes
from gateway.identity_routes import router as identity_router
from gateway.limits import Limiter, LimitMetrics, LimitsMiddleware
from gateway.lobby_routes import router as lobby_router
from gateway.matchmaking_routes import router as matchmaking_router
from gateway.notify_routes import router as notify_router
from gateway.openapi import build_openapi
from gateway.player_stream import router as player_stream_router
from gateway.problems import Problem, problem_response
from gateway.route_table import flat_routes
from gateway.routes import legal_moves, legal_moves_rider, router, submit_moves
from gateway.settings import GatewaySettings
from gateway.table_routes import router as table_router
from gateway.tournament_routes import router as tournament_router
from gateway.webclient import install_web_client
from gateway.webhook_routes import router as webhook_router
from services.legalmoves.reader import LegalMovesReader

# FastAPI's native telemetry (spans, request metrics, exception logs, OTLP set-up from the environment), all off.
NO_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False, "auto_configure": False}


async def _on_problem(request: Request, problem: Exception) -> Response:
    assert isinstance(problem, Problem)
    return problem_response(problem, request.url.path, request.scope)


def _path_methods(app: FastAPI, path: str) -> str:
    """Every method any route of ``path`` takes, for a 405's ``Allow``.

    Starlette's own ``Allow`` names the methods of the first route whose path matches, but a
    path may have several routes (``GET /v1/games`` lists, ``POST /v1/games`` creates).
    """
    table: list[tuple[Any, tuple[str, ...]]] | None = getattr(app.state, "allow_table", None)
    if table is None:
        table = [(compile_path(route.path)[0], route.methods) for route in flat_routes(app.routes)]
        app.state.allow_table = table
    methods = {method for regex, route_methods in table if regex.match(path) for method in route_methods}
    return ", ".join(sorted(methods))


async def _on_http(request: Request, error: Exception) -> Response:
    assert isinstance(error, StarletteHTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "http_error")
    headers = dict(error.headers or {})
    if error.status_code == 405:
        headers["Allow"] = _path_methods(request.app, request.url.path) or headers.get("Allow", "")
    problem = Problem(error.status_code, code, str(error.detail), headers=headers)
    return problem_response(problem, request.url.path, request.scope)


async def _on_validation(request: Request, error: Exception) -> Response:
    assert isinstance(error, RequestValidationError)
    return problem_response(Problem(400, "invalid_request", str(error.errors())), request.url.path, request.scope)


def create_app(settings: GatewaySettings | None = None) -> FastAPI:
    """The gateway application, with channels opened and closed by its lifespan."""
    settings = settings or GatewaySettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.backends = Backends(settings)
        app.state.live_events = LiveEvents(settings, app.state.fanout_metrics)
        yield
        await app.state.legal_moves.close()
        await app.state.live_events.close()
        await app.state.limiter.close()
        await app.state.backends.close()

    # FastAPI's own OpenTelemetry layer off: the gateway's metrics and logs are its own (gateway.edge,
    # services.common.logs), and with it on every request asked the three global providers whether
    # anything was configured (each reads os.environ) before doing nothing.
    app = FastAPI(title="Chaiwala", lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None,
                  telemetry=NO_TELEMETRY)  # fmt: skip
    app.state.settings = settings
    app.state.metrics = Metrics()
    app.state.fanout_metrics = FanoutMetrics(app.state.metrics.registry)
    registry = app.state.metrics.registry
    app.state.legal_moves = LegalMovesReader.from_url(settings.redis_url, settings.redis_cluster, registry)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            backends: Backends = app.state.backends
            app.openapi_schema = build_openapi(sorted(backends.stubs), backends.files, flat_routes(app.routes))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.add_exception_handler(Problem, _on_problem)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.include_router(router)
    # The move path's two routes skip FastAPI's routing (gateway.hotpath), inside the limits.
    hot: Callable[..., Any] = HotPathMiddleware
    app.add_middleware(hot, routes=hot_routes(router.routes, [legal_moves, submit_moves]))
    # GET legal-moves reads its stored answer in the limits' own Redis round trip (services.legalmoves).
    rider = legal_moves_rider(app.state.legal_moves) if not settings.redis_cluster else None
    app.state.limiter = Limiter(settings, LimitMetrics(registry, settings), rider)
    limited: Callable[..., Any] = LimitsMiddleware
    app.add_middleware(limited, limiter=app.state.limiter)
    install_docs(app, "Chaiwala")
    app.include_router(lobby_router)
    app.include_router(table_router)
    install_web_client(app)  # the reference web client at /play/ (static files, not in the OpenAPI)
    app.include_router(tournament_router)
    app.include_router(webhook_router)
    app.include_router(matchmaking_router)
    app.include_router(notify_router)
    app.include_router(identity_router)
    app.include_router(player_stream_router)
    # Tags and caching on whole answers, then their compression (gateway.conditional, gateway.compression).
    conditional: Callable[..., Any] = ConditionalMiddleware
    app.add_middleware(conditional)
    if settings.compress:
        compressing: Callable[..., Any] = CompressionMiddleware
        app.add_middleware(compressing, minimum_size=settings.compress_min_bytes)
    wrapped: Callable[..., Any] = EdgeMiddleware  # keeps mypy quiet about the middleware factory type
    app.add_middleware(wrapped, metrics=app.state.metrics)  # outside the limits, so it counts refusals too
    install_cors(app, parse_origins(settings.cors_origins))  # outermost: even a last-resort 500 is readable
    return app
