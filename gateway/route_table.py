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
from starlette.routing import BaseRoute


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
