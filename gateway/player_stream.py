"""The player stream at the edge: ``GET /v1/me/events`` and ``POST /v1/me/stream-tickets``.

The stream relays one rules service's ``IdentityService.WatchMyEvents`` as Server-Sent Events:
each feed entry is an event named by its kind (``game_started``, ``your_turn``, ``game_finished``,
``invited``) with its JSON data and its cursor as the SSE id; the stream closes with ``end`` when
the player's token (or ticket's player) expires, and with ``error`` then ``end`` when the service
goes away (reconnect with ``Last-Event-ID``).  It is written like a game's stream
(:class:`gateway.sse_listener.LiveStream`: the same headers, ``retry`` field and socket path) and
kept by the same keeper (:meth:`gateway.fanout.LiveEvents.keep`: a ``: ping`` comment every
:data:`gateway.fanout.PING_SECONDS`, ``shutting_down`` when the gateway stops); the rules
service's own keep-alives only say the watch is open.  With one client per upstream call, the
relay reads the call no faster than the client reads the stream (no client is dropped as slow).
Without ``Accept: text/event-stream`` the answer is the JSON list of what is there now.
A refusal (no or a bad credential) is a problem, never a stream.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Coroutine
from functools import partial
from typing import Any

import grpc
import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response
from sse_starlette import ServerSentEvent

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from gateway.fanout import LiveEvents, final_bytes, resume_pauses
from gateway.problems import Problem, problem_from_rpc
from gateway.routes import JSON, _backends, _call, _settings
from gateway.sse_listener import Listener, LiveStream, Position, Relayed
from gateway.stream_tickets import ticket_body, ticket_param
from services.lobby.feed import is_cursor

router = APIRouter()
_turns = itertools.count()


def _cursor(request: Request) -> str:
    """The resume point: ``Last-Event-ID`` or ``?after=`` (a cursor this stream handed out)."""
    header, after = request.headers.get("last-event-id"), request.query_params.get("after")
    cursor = header.strip() if header is not None else (after or "")
    # Present but empty is refused like any id this stream never sent (the document's pattern refuses it);
    # the rules service checks it again: refused here without a call.
    if (header is not None or after is not None) and not is_cursor(cursor):
        raise Problem(400, "bad_after", "resume from an id this stream sent (Last-Event-ID or ?after=)")
    return cursor


def _stub(request: Request, live: bool = False) -> identity_pb2_grpc.IdentityServiceStub:
    """One rules service's IdentityService, in turn (every rules service serves the feeds).  A live
    stream goes on the watch channels, apart from ordinary calls, as a game's upstream does: with
    10,000 player streams on the calls' connection, moves ran at a fraction of their rate
    (docs/lab/many-listeners.md)."""
    backends = _backends(request)
    channels = [channel for _, channel in sorted((backends.watch_channels if live else backends.channels).items())]
    if not channels:
        raise Problem(503, "service_unavailable", "no rules service is configured", headers={"Retry-After": "1"})
    return identity_pb2_grpc.IdentityServiceStub(channels[next(_turns) % len(channels)])


def _position(event_id: str) -> Position:
    """A feed id (``<ms>-<seq>``, checked by the rules service) as the listener's ordered position."""
    ms, _, seq = event_id.partition("-")
    return int(ms), int(seq or 0)


def _relayed(event: identity_pb2.PlayerEvent) -> Relayed:
    message = ServerSentEvent(id=event.id, event=event.kind, data=event.data_json.decode())
    return _position(event.id), message.encode()


@router.get("/v1/me/events")
async def my_events(request: Request) -> Response:
    """The bearer player's feed: SSE with ``Accept: text/event-stream``, else a JSON list."""
    cursor = _cursor(request)
    watch = identity_pb2.WatchMyEventsRequest(after=cursor, ticket=ticket_param(request))
    live = "text/event-stream" in request.headers.get("accept", "")
    watch.once = not live
    options = _call(request)
    # A live stream has no deadline (it lasts as long as the token): only its opening is bounded,
    # as a game's upstream (gateway.fanout).  With the call's deadline every stream ended after
    # CHAIWALA_RPC_TIMEOUT_SECONDS with upstream_error (DEADLINE_EXCEEDED).
    opening = options.pop("timeout") if live else None
    call = _stub(request, live).WatchMyEvents(watch, **options)
    try:
        async with asyncio.timeout(opening):
            first = await call.read()  # a refusal arrives here, before any answer is committed to
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None
    except TimeoutError:
        call.cancel()
        raise Problem(504, "timeout", "the rules service did not open the player stream in time") from None
    if not live:
        events = []
        while first is not grpc.aio.EOF:  # read() only: a call may not mix read() and iteration
            events.append(first)
            first = await call.read()
        return JSON([{"id": e.id, "kind": e.kind, "data": orjson.loads(e.data_json)} for e in events])

    def reopen(after: str) -> grpc.aio.UnaryStreamCall:
        resumed = identity_pb2.WatchMyEventsRequest(after=after, ticket=watch.ticket)
        return _stub(request, live).WatchMyEvents(resumed, **options)

    after = first.id if isinstance(first, identity_pb2.PlayerEvent) and first.id else cursor
    relay_with = partial(_relay, reopen=reopen, after=after)
    return _stream(request, [call], first, _position(cursor) if cursor else (-1, -1), relay_with)


def _stream(request: Request, calls: list[grpc.aio.UnaryStreamCall], first: object, last: Position,
            relay_with: Callable[..., Coroutine[Any, Any, None]]) -> LiveStream:  # fmt: skip
    """The SSE response: ``first`` (if a notice), then the call relayed once the response is live."""
    live: LiveEvents = request.app.state.live_events
    listener = Listener(_settings(request).sse_client_buffer, last, partial(final_bytes, separator="-"))
    forget = live.keep(listener)
    relay: list[asyncio.Task[None]] = []

    def leave() -> None:
        forget()
        calls[0].cancel()
        for task in relay:
            task.cancel()

    listener.on_leave = leave
    if not isinstance(first, identity_pb2.PlayerEvent):  # over already (the token expired)
        listener.close()
        return LiveStream(listener, [])

    def started() -> None:
        relay.append(asyncio.create_task(relay_with(calls, listener), name="sse:me"))

    return LiveStream(listener, [_relayed(first)] if first.kind else [], on_live=started)


async def _relay(calls: list[grpc.aio.UnaryStreamCall], listener: Listener,
                 reopen: Callable[[str], grpc.aio.UnaryStreamCall], after: str) -> None:  # fmt: skip
    """Offer each notice of ``calls[0]`` to ``listener``, waiting while its socket is full; then close it.

    A call cut with UNAVAILABLE (a rules service recycling its connection, every
    ``grpc.max_connection_age_ms``, or restarting) is reopened after the last notice relayed, with the
    game streams' pauses (:func:`gateway.fanout.resume_pauses`): before, every player stream ended
    with ``upstream_error`` about five minutes after it opened."""
    pauses, progress = resume_pauses(), after
    try:
        while not listener.ended:
            try:
                event = await calls[0].read()  # read() only: a call may not mix read() and iteration
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                if after != progress:
                    pauses, progress = resume_pauses(), after
                pause = next(pauses, None)
                if pause is None:
                    raise
                await asyncio.sleep(pause)
                calls[0] = reopen(after)
                continue
            if not isinstance(event, identity_pb2.PlayerEvent):
                listener.close()
                return
            after = event.id or after
            if event.kind:  # an empty one is the rules service's keep-alive: the keeper pings
                listener.offer(_relayed(event))
                await listener.drained()
    except grpc.aio.AioRpcError as error:
        listener.close(Problem(502, "upstream_error", error.code().name))
    finally:
        calls[0].cancel()


@router.post("/v1/me/stream-tickets", status_code=201)
async def my_stream_ticket(request: Request) -> Response:
    """A short-lived ticket for the bearer player's feed, to open it where no header can be sent."""
    stub = _stub(request)
    try:
        answer = await stub.CreateMyStreamTicket(identity_pb2.CreateMyStreamTicketRequest(), **_call(request))
    except grpc.aio.AioRpcError as error:
        raise problem_from_rpc(error) from None
    return JSON(ticket_body(answer), status_code=201)
