"""Routes whose whole work is one call to a backend, with the path's parameters as its request.

Many routes of the processes behind the gateway (the tournament director, the webhook
dispatcher) take an id from the path, make one gRPC call and render its answer.  Such a route is
declared as data, a :class:`Forward`, and :func:`add_forwards` writes its handler: the path's
parameters become the fields of the request message, and the module's own ``send`` makes the call
(its stub, deadline and metadata) and renders the answer.  The handler carries the route's name
and docstring, which the OpenAPI document shows (``operationId``, description) as for a handler
written out.  A route that reads a body or a query, or reshapes the answer, stays written out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

Send = Callable[[Request, str, Any], Awaitable[Response]]
"""``send(request, rpc, message)``: call ``rpc`` of the module's backend with ``message``, render the answer."""
Handler = Callable[[Request], Awaitable[Response]]


@dataclass(frozen=True)
class Forward:
    """One forwarded route: ``method path`` calls ``rpc`` with ``message(**path parameters)``."""

    method: str
    path: str
    name: str
    rpc: str
    message: type[Any]
    doc: str


def _handler(forward: Forward, send: Send) -> Handler:
    async def handler(request: Request) -> Response:
        return await send(request, forward.rpc, forward.message(**request.path_params))

    handler.__name__ = handler.__qualname__ = forward.name
    handler.__doc__ = forward.doc
    return handler


def add_forwards(router: APIRouter, send: Send, forwards: Iterable[Forward]) -> None:
    """Add one route to ``router`` per forward, in order, each answered through ``send``."""
    for forward in forwards:
        router.add_api_route(forward.path, _handler(forward, send), methods=[forward.method], name=forward.name)
