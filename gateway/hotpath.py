"""The move path's two routes, served without FastAPI's routing and dependency machinery.

A game is mostly ``GET /v1/games/{game_id}/legal-moves`` and ``POST /v1/games/{game_id}/moves``.
FastAPI's router walks every route of the application (lobby, tables, tournaments, webhooks,
docs, the web client) with a regular expression each, then solves the endpoint's dependencies
and wraps the call in an exit stack and an exception middleware: about a sixth of the gateway's
CPU per move, measured with ``bench rest`` (see README "Speed").  This pure ASGI layer sits
inside the limits middleware (limits, metrics and CORS apply as before) and hands these two
requests straight to the same endpoint functions of :mod:`gateway.routes`, with the same scope
keys FastAPI would set (``route``, ``endpoint``, ``path_params``), so metrics keep their route
label and handlers see the same request.  A :class:`~gateway.problems.Problem` becomes the same
problem+json the application's handler renders; anything else propagates exactly as it does
from FastAPI (to the edge middleware's last resort).  Every other request, and these paths with
another method (405 stays FastAPI's), goes on to FastAPI unchanged.  The routes themselves stay
declared in FastAPI, so the OpenAPI document and CORS see them as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from re import Pattern
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.problems import Problem, problem_response

Endpoint = Callable[[str, Request], Awaitable[Response]]


@dataclass(frozen=True)
class HotRoute:
    """One route served directly: its method, path pattern, FastAPI route object and endpoint."""

    method: str
    pattern: Pattern[str]
    route: BaseRoute
    endpoint: Endpoint


def hot_routes(routes: Sequence[BaseRoute], endpoints: Sequence[Endpoint]) -> list[HotRoute]:
    """The declared routes of ``endpoints`` (each a ``(game_id, request)`` handler) among ``routes``."""
    found = []
    for route in routes:
        endpoint = getattr(route, "endpoint", None)
        if endpoint not in endpoints:
            continue
        methods = set(getattr(route, "methods", ())) - {"HEAD"}
        assert len(methods) == 1 and list(getattr(route, "param_convertors", {})) == ["game_id"], route
        found.append(HotRoute(methods.pop(), route.path_regex, route, endpoint))  # type: ignore[attr-defined,arg-type]
    assert len(found) == len(endpoints), "every hot endpoint must be a declared route"
    return found


class HotPathMiddleware:
    """Serve the hot routes' requests directly; pass everything else on."""

    def __init__(self, app: ASGIApp, routes: list[HotRoute]) -> None:
        self.app = app
        self.routes = routes

    def _match(self, scope: Scope) -> tuple[HotRoute, str] | None:
        # Only plain requests: a root_path (mounted app) or HEAD is left to FastAPI's own matching.
        if scope["type"] != "http" or scope.get("root_path"):
            return None
        method, path = scope["method"], scope["path"]
        for hot in self.routes:
            if hot.method != method:
                continue
            found = hot.pattern.match(path)
            if found is not None:
                return hot, found["game_id"]
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One request: a hot route's endpoint, or the application."""
        matched = self._match(scope)
        if matched is None:
            await self.app(scope, receive, send)
            return
        hot, game_id = matched
        scope["route"], scope["endpoint"], scope["path_params"] = hot.route, hot.endpoint, {"game_id": game_id}
        response: Any
        try:
            response = await hot.endpoint(game_id, Request(scope, receive, send))
        except Problem as problem:
            response = problem_response(problem, scope["path"], scope)
        await response(scope, receive, send)
