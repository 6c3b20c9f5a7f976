"""The application's routes as a flat list, whatever routers they were included through.

FastAPI keeps included routers as nested entries of ``app.routes``; CORS, the OpenAPI
document and the tests all need every route with its path and methods, including routes
that other modules add later.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi.routing import iter_route_contexts
from starlette.routing import BaseRoute, compile_path


@dataclass(frozen=True)
class RouteInfo:
    """One route: its path template, methods (HEAD and OPTIONS left out), name and endpoint."""

    path: str
    methods: tuple[str, ...]
    name: str
    endpoint: Any
    include_in_schema: bool


def flat_routes(routes: Sequence[BaseRoute]) -> list[RouteInfo]:
    """Every HTTP route in ``routes`` (an app's or a router's), routers expanded."""
    found = []
    for context in iter_route_contexts(routes):
        path, methods = context.path, context.methods
        if not path or not methods:
            continue  # mounts and websockets
        found.append(
            RouteInfo(
                path=path,
                methods=tuple(sorted(set(methods) - {"HEAD", "OPTIONS"})),
                name=context.name or "",
                endpoint=context.endpoint,
                include_in_schema=bool(getattr(context, "include_in_schema", True)),
            )
        )
    return found


def route_template(routes: Sequence[BaseRoute], method: str, path: str) -> str | None:
    """The path template of the route ``method path`` would reach, if any.

    For requests answered before routing (a 429 of the limits): their metrics are labelled by
    the route they asked for.  Compiles the routes on every call: only refusals come here.
    """
    for route in flat_routes(routes):
        if method in route.methods or (method == "HEAD" and "GET" in route.methods):
            regex, _, _ = compile_path(route.path)
            if regex.match(path):
                return route.path
    return None
