"""The player stream at the edge: ``GET /v1/me/events`` and ``POST /v1/me/stream-tickets``.

The stream relays one rules service's ``IdentityService.WatchMyEvents`` as Server-Sent Events:
each feed entry is an event named by its kind (``game_started``, ``your_turn``, ``game_finished``,
``invited``) with its JSON data and its cursor as the SSE id; a keep-alive becomes a ``: ping``
comment; the stream closes with ``end`` when the player's token (or ticket's player) expires, and
with ``error`` then ``end`` when the service goes away (reconnect with ``Last-Event-ID``).
Without ``Accept: text/event-stream`` the answer is the JSON list of what is there now.
A refusal (no or a bad credential) is a problem, never a stream.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import grpc
import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from sse_starlette import ServerSentEvent

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from gateway.fanout import END, error_bytes
from gateway.problems import Problem, problem_from_rpc
from gateway.routes import JSON, _backends, _call
from gateway.stream_tickets import ticket_body, ticket_param
from services.lobby.feed import is_cursor

router = APIRouter()
PING = b": ping\n\n"
_turns = itertools.count()


def _cursor(request: Request) -> str:
    """The resume point: ``Last-Event-ID`` or ``?after=`` (a cursor this stream handed out)."""
    cursor = request.headers.get("last-event-id", "").strip() or request.query_params.get("after", "")
    if cursor and not is_cursor(cursor):  # the rules service checks it again: refused here without a call
        raise Problem(400, "bad_after", "resume from an id this stream sent (Last-Event-ID or ?after=)")
    return cursor


def _stub(request: Request) -> identity_pb2_grpc.IdentityServiceStub:
    """One rules service's IdentityService, in turn (every rules service serves the feeds)."""
    channels = [channel for _, channel in sorted(_backends(request).channels.items())]
    if not channels:
        raise Problem(503, "service_unavailable", "no rules service is configured", headers={"Retry-After": "1"})
    return identity_pb2_grpc.IdentityServiceStub(channels[next(_turns) % len(channels)])


def _message(event: identity_pb2.PlayerEvent) -> bytes:
    if not event.kind:
        return PING
    return ServerSentEvent(id=event.id, event=event.kind, data=event.data_json.decode()).encode()


@router.get("/v1/me/events")
async def my_events(request: Request) -> Response:
    """The bearer player's feed: SSE with ``Accept: text/event-stream``, else a JSON list."""
    watch = identity_pb2.WatchMyEventsRequest(after=_cursor(request), ticket=ticket_param(request))
    live = "text/event-stream" in request.headers.get("accept", "")
    watch.once = not live
    call = _stub(request).WatchMyEvents(watch, **_call(request))
    try:
        first = await call.read()  # a refusal arrives here, before any answer is committed to
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None
    if not live:
        events = []
        while first is not grpc.aio.EOF:  # read() only: a call may not mix read() and iteration
            events.append(first)
            first = await call.read()
        return JSON([{"id": e.id, "kind": e.kind, "data": orjson.loads(e.data_json)} for e in events])
    return StreamingResponse(_relay(call, first), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})


async def _relay(call: grpc.aio.UnaryStreamCall, first: object) -> AsyncIterator[bytes]:
    try:
        event = first
        while isinstance(event, identity_pb2.PlayerEvent):  # read() only: a call may not mix read() and iteration
            yield _message(event)
            event = await call.read()
    except grpc.aio.AioRpcError as error:
        yield error_bytes("upstream_error", error.code().name)
    finally:
        call.cancel()
    yield END


@router.post("/v1/me/stream-tickets", status_code=201)
async def my_stream_ticket(request: Request) -> Response:
    """A short-lived ticket for the bearer player's feed, to open it where no header can be sent."""
    stub = _stub(request)
    try:
        answer = await stub.CreateMyStreamTicket(identity_pb2.CreateMyStreamTicketRequest(), **_call(request))
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None
    return JSON(ticket_body(answer), status_code=201)
