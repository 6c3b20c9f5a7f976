"""The gateway's live-event fan-out: SSE clients of one game and one viewer share one upstream watch.

Before, each SSE client opened its own gRPC ``WatchEvents``; 5,000 listeners meant 5,000 gRPC
streams (and, in the rules service, 5,000 Redis connections).  Now each gateway process keeps
one upstream ``WatchEvents`` per :class:`ViewerKey` and relays every event it receives, rendered
once as SSE bytes, to every client sharing it: the upstream's loop writes the same bytes to each
client's socket itself (:class:`gateway.sse_listener.Listener`: no task, queue or wake-up per
client and event; a client whose socket is full queues in a bounded backlog instead):

* **Who shares.**  Events are redacted per viewer by the rules service, so a key is the game,
  the SHA-256 of the ``Authorization`` header and of the stream ticket, and the language of the
  sentences.  Every spectator without a credential shares one upstream; a seat's stream is only
  ever shared by requests carrying that very credential, so no spectator (or other seat) can get
  a seat's events.  Each client is still checked by the rules service (the route's
  ``ListEvents`` probe) before it joins, so an expired ticket or a kicked seat's token cannot
  ride on an upstream opened earlier.
* **Joining mid-game.**  A client subscribes first, then reads its history (``ListEvents`` from
  its resume point), then relays live events newer than the last one it sent, by
  ``(version, index)``: the upstream delivers everything after the version the route saw before
  subscribing, and the history read afterwards covers at least as far, so nothing is lost or
  repeated.
* **Slow clients** more than ``sse_client_buffer`` events behind are dropped: their stream ends
  with an ``error`` event (code ``slow_consumer``) after the last event they got, whose id resumes
  the stream (``Last-Event-ID``).  The upstream never waits for a client.
* **Keep-alive and shutdown** are one task per process, not per client: a ``: ping`` comment to
  every idle client each :data:`PING_SECONDS`, and when uvicorn is told to exit every stream ends
  with ``error`` ``shutting_down`` (no ``end``: an ``EventSource`` reconnects, to another instance).
  Streams that share no upstream (the player stream, :mod:`gateway.player_stream`) are kept the
  same way (:meth:`LiveEvents.keep`), so every SSE stream of the gateway pings alike.
* **Restarts are ridden out.**  An upstream failing with UNAVAILABLE (its rules service restarting
  or stopping, a connection recycled) is reopened after the last event it relayed, up to
  for up to :data:`RESUME_WINDOW_SECONDS` of pauses in a row; its clients see no gap and no repeat.
* **Nothing lingers.**  A departed client leaves at once; the last one leaving cancels the
  upstream; an upstream that ends (game over, service restart) ends every client's stream, with an
  ``error`` event when it failed.  At most ``sse_upstreams_per_process`` upstreams run (503
  ``too_many_streams`` with ``Retry-After`` past it), on a channel of their own per game type
  (:class:`gateway.backends.Backends`), so long-lived streams never queue behind or in front of
  ordinary calls on one HTTP/2 connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import orjson
from prometheus_client import CollectorRegistry, Counter
from sse_starlette import ServerSentEvent
from sse_starlette.sse import AppStatus

from chaiwala.v1 import rules_pb2
from gateway.limit_parts import stream_gauge
from gateway.limits import STREAM_RETRY_AFTER
from gateway.problems import Problem, problem_from_rpc
from gateway.settings import GatewaySettings
from gateway.sse_listener import Listener, LiveStream, Position, Relayed
from gateway.sse_socket import frame
from services.common import protojson
from services.common.logs import get_logger
from services.streaming.mailbox import Broadcast, SlowConsumer
from services.streaming.watch import OPEN_MARKER

log = get_logger("gateway")

# Starts the upstream call (a grpc.aio UnaryStreamCall): from where the route chose (``None``),
# or, to resume after a failure, after the last event relayed; ``WatchEventBatches`` when the flag
# is set (one message per log entry), else ``WatchEvents`` (one per event).
OpenCall = Callable[[Position | None, bool], Any]
# An upstream that fails with UNAVAILABLE (a rules service restarting, shutting down, a recycled
# connection) is reopened after its last event, after each of these pauses (the last repeats) until
# RESUME_WINDOW_SECONDS of pauses are spent without an event between failures: a rules process
# restarting on a busy machine takes seconds to listen again, and its clients should see nothing.
RESUME_PAUSES = (0.25, 0.5, 1.0)
RESUME_WINDOW_SECONDS = 15.0
END = ServerSentEvent(event="end", data="{}").encode()
PING_SECONDS = 15
EXIT_POLL_SECONDS = 0.5  # how often the keep-alive task looks whether uvicorn is exiting
# On a WatchEvents upstream (a rules service without WatchEventBatches), how long after an event an
# upstream of at least COALESCE_CLIENTS clients waits for the next one before writing to them: the
# events of one move arrive one gRPC message at a time, a few hundred microseconds apart, and one
# write per client instead of one per event is most of what a large fan-out costs (a write is a
# syscall, ~10-17 µs each).  Small fan-outs write at once.  A WatchEventBatches upstream gets a
# move's events in one message and never waits.
COALESCE_SECONDS = 0.002
COALESCE_CLIENTS = 100


def resume_pauses() -> Iterator[float]:
    """The pauses before each reopening of a failed upstream: :data:`RESUME_PAUSES`, the last one
    repeated, until :data:`RESUME_WINDOW_SECONDS` of them are spent."""
    spent = 0.0
    for pause in itertools.chain(RESUME_PAUSES, itertools.repeat(RESUME_PAUSES[-1])):
        if spent + pause > RESUME_WINDOW_SECONDS:
            return
        spent += pause
        yield pause


class ShuttingDown(Exception):
    """The gateway process is stopping: clients reconnect (to another instance)."""


@dataclass(frozen=True)
class ViewerKey:
    """Which SSE clients may share an upstream: same game, same credential, same language."""

    game_id: str
    credential: str
    ticket: str
    language: str

    @classmethod
    def of(cls, game_id: str, metadata: tuple[tuple[str, str], ...], ticket: str) -> ViewerKey:
        """The key of a request, from the gRPC metadata the route forwards (secrets only as hashes)."""
        found = dict(metadata)
        return cls(game_id, _digest(found.get("authorization", "")), _digest(ticket), found.get("accept-language", ""))


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest() if secret else ""


def sse_bytes(event: rules_pb2.GameEvent) -> Relayed:
    """One event as the SSE message every client of its upstream gets (rendered once)."""
    data = orjson.dumps(protojson.to_dict(event)).decode()
    message = ServerSentEvent(id=f"{event.version}:{event.index}", event="game_event", data=data)
    return (event.version, event.index), message.encode()


def error_bytes(code: str, detail: str, **extra: str) -> bytes:
    """An SSE ``error`` event (the stream ends after it)."""
    data = orjson.dumps({"code": code, "detail": detail, **extra}).decode()
    return ServerSentEvent(event="error", data=data).encode()


def final_bytes(error: BaseException | None, last: Position, separator: str = ":") -> bytes:
    """How a client's stream ends: ``end``, after an ``error`` event when it did not end well (an id
    in it is ``last``'s two parts joined by ``separator``, as the stream's own ids are)."""
    if error is None:
        return END
    if isinstance(error, ShuttingDown):
        return error_bytes("shutting_down", "the gateway is stopping; reconnect with Last-Event-ID")
    if isinstance(error, SlowConsumer):
        resume = f"{last[0]}{separator}{last[1]}"
        detail = f"dropped: {error}; reconnect with Last-Event-ID"
        return error_bytes("slow_consumer", detail, last_event_id=resume) + END
    if isinstance(error, Problem):
        return error_bytes(error.code, error.detail) + END
    return error_bytes("upstream_error", type(error).__name__) + END


class _Upstream(Broadcast[Relayed]):
    """One upstream WatchEvents and the mailboxes of the clients sharing it."""

    def __init__(self, key: ViewerKey) -> None:
        super().__init__()
        self.key = key

    def offer_batch(self, items: list[Relayed]) -> int:
        """Give consecutive events to every client as one chunk; drop (with :class:`SlowConsumer`)
        the ones whose backlog is full, and return how many were dropped."""
        chunk, dropped = b"".join(data for _, data in items), 0
        framed = frame(chunk)  # the HTTP chunk, framed once for every client's socket
        for listener in list(self.mailboxes):
            if isinstance(listener, Listener) and not listener.offer_batch(items, chunk, framed):
                self.mailboxes.discard(listener)
                listener.close(SlowConsumer(f"more than {listener.capacity} events behind"))
                dropped += 1
        return dropped


class FanoutMetrics:
    """Upstreams open, clients attached, slow clients dropped."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.upstreams = stream_gauge(
            "chaiwala_gateway_sse_upstreams", "Upstream WatchEvents calls shared by SSE clients", registry
        )
        self.clients = stream_gauge("chaiwala_gateway_sse_subscribers", "SSE clients attached to an upstream", registry)
        self.dropped = Counter(
            "chaiwala_gateway_sse_dropped_slow_consumers",
            "SSE clients dropped for falling a whole buffer behind",
            registry=registry,
        )


class LiveEvents:
    """Every upstream watch of one gateway process."""

    def __init__(self, settings: GatewaySettings, metrics: FanoutMetrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.upstreams: dict[ViewerKey, _Upstream] = {}
        self.solo: set[Listener] = set()  # streams with an upstream of their own (kept, not shared)
        self.keeper: asyncio.Task[None] | None = None

    async def subscribe(self, key: ViewerKey, open_call: OpenCall, last: Position) -> Listener:
        """A client's place on the upstream of ``key`` (opened with ``open_call`` when there is none
        yet), after ``last``; events queue until its response goes live (:class:`LiveStream`).

        Raises the upstream's refusal as a :class:`Problem` (e.g. 503 when the rules service
        follows too many games, 404, 401) before the client gets a 200.  The caller hands the
        listener to a :class:`LiveStream`, or calls its ``on_leave`` when it does not.
        """
        self._keep_alive()
        upstream = self.upstreams.get(key) or self._start(key, open_call)
        listener = Listener(self.settings.sse_client_buffer, last, final_bytes)
        upstream.mailboxes.add(listener)
        self.metrics.clients.inc()
        listener.on_leave = lambda: self._leave(upstream, listener)
        try:
            await asyncio.shield(upstream.opened)
        except BaseException:
            listener.on_leave()
            raise
        return listener

    def _leave(self, upstream: _Upstream, listener: Listener) -> None:
        listener.on_leave = lambda: None
        self.metrics.clients.dec()
        listener.ended = True
        upstream.mailboxes.discard(listener)
        self.release(upstream)

    def listeners(self) -> list[Listener]:
        """Every client of this process."""
        shared = [m for u in self.upstreams.values() for m in u.mailboxes if isinstance(m, Listener)]
        return shared + list(self.solo)

    def keep(self, listener: Listener) -> Callable[[], None]:
        """Ping ``listener`` (a stream with an upstream of its own) with every other client, and end it
        with ``shutting_down`` when the gateway stops; the answer forgets it again."""
        self._keep_alive()
        self.solo.add(listener)
        return lambda: self.solo.discard(listener)

    def _keep_alive(self) -> None:
        if self.keeper is None or self.keeper.done():
            self.keeper = asyncio.create_task(self._keep(), name="sse:keep-alive")

    async def _keep(self) -> None:
        """Ping idle clients now and then; end every stream when uvicorn exits (one task per process).

        Each client is pinged once a :data:`PING_SECONDS` round, a slice of them every
        :data:`EXIT_POLL_SECONDS`: 19,000 pings in one go held the loop ~0.1-0.3 s every 15 s, the
        tail of every event's delivery (docs/lab/many-listeners.md)."""
        ticks = max(1, round(PING_SECONDS / EXIT_POLL_SECONDS))
        tick, due = 0, []
        while not AppStatus.should_exit:
            await asyncio.sleep(EXIT_POLL_SECONDS)
            if tick == 0:
                due = self.listeners()  # this round's clients (one who came meanwhile waits for the next)
            for listener in due[tick::ticks]:
                listener.ping()
            tick = (tick + 1) % ticks
        for upstream in list(self.upstreams.values()):
            upstream.end(ShuttingDown("the gateway is stopping"))
        for listener in list(self.solo):
            listener.close(ShuttingDown("the gateway is stopping"))

    def _start(self, key: ViewerKey, open_call: OpenCall) -> _Upstream:
        cap = self.settings.sse_upstreams_per_process
        if len(self.upstreams) >= cap:
            detail = f"too many open event streams (upstreams per process: {cap})"
            raise Problem(503, "too_many_streams", detail, headers={"Retry-After": str(STREAM_RETRY_AFTER)})
        upstream = _Upstream(key)
        self.upstreams[key] = upstream
        upstream.task = asyncio.create_task(self._relay(upstream, open_call), name=f"sse:{key.game_id}")
        return upstream

    def release(self, upstream: _Upstream) -> None:
        """Cancel ``upstream`` if nobody is left on it."""
        if upstream.mailboxes or self.upstreams.get(upstream.key) is not upstream:
            return
        del self.upstreams[upstream.key]  # a client arriving now opens a fresh one
        if upstream.task is not None:
            upstream.task.cancel()

    async def _relay(self, upstream: _Upstream, open_call: OpenCall) -> None:
        """Open the upstream, then offer each event to every client; see the module docstring."""
        self.metrics.upstreams.inc()
        calls = [open_call(None, True)]  # the current call is the last
        try:
            batched = await self._open_first(open_call, calls)
            upstream.opened.set_result(None)
            await self._relay_resuming(upstream, open_call, calls, batched)
            upstream.end()
        except grpc.aio.AioRpcError as error:
            self._fail(upstream, problem_from_rpc(error))
        except Problem as problem:
            self._fail(upstream, problem)
        except asyncio.CancelledError:
            upstream.end()
            raise
        finally:
            for call in calls:
                call.cancel()
            self.metrics.upstreams.dec()
            if self.upstreams.get(upstream.key) is upstream:
                del self.upstreams[upstream.key]
            upstream.fail_opening(Problem(503, "service_unavailable", "the event stream closed"))

    async def _relay_resuming(self, upstream: _Upstream, open_call: OpenCall, calls: list[Any], batched: bool) -> None:
        """Relay the opened call, reopening it after its last event while it fails with UNAVAILABLE
        (see :data:`RESUME_PAUSES`); the pauses start over once an event came through between failures."""
        last: list[Position] = []  # the last event relayed, if any
        pauses, progress = resume_pauses(), None
        while True:
            try:
                await self._pump(upstream, calls[-1], last, batched)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                if last and last[-1] != progress:
                    pauses, progress = resume_pauses(), last[-1]
                pause = next(pauses, None)
                if pause is None:
                    raise
            await asyncio.sleep(pause)
            calls.append(open_call(last[-1] if last else None, batched))
            # A service still down fails the call; its first read (in _pump) raises that again.
            with contextlib.suppress(grpc.aio.AioRpcError):
                await self._opened(calls[-1])

    async def _open_first(self, open_call: OpenCall, calls: list[Any]) -> bool:
        """Open the upstream as ``WatchEventBatches``, or as ``WatchEvents`` when the rules service
        is older than the gateway (UNIMPLEMENTED, a rolling upgrade); whether it is batched."""
        try:
            await self._opened(calls[-1])
            return True
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                raise
        calls.append(open_call(None, False))
        await self._opened(calls[-1])
        return False

    async def _pump(self, upstream: _Upstream, call: Any, last: list[Position], batched: bool) -> None:
        """Relay the call's events until it ends; the events of one move go to every client as one
        chunk (one write per client instead of one per event).  A batched call brings them in one
        message; one event per message (``WatchEvents``) waits :data:`COALESCE_SECONDS` for more."""
        batch: list[Relayed] = []
        reading = asyncio.ensure_future(call.read())
        try:
            while True:
                if batch and not reading.done():
                    if not batched and len(upstream.mailboxes) >= COALESCE_CLIENTS:
                        await asyncio.wait([reading], timeout=COALESCE_SECONDS)
                    if not reading.done():
                        self._relay_batch(upstream, batch, last)
                message = await reading
                if message is grpc.aio.EOF:
                    return
                batch.extend([sse_bytes(e) for e in message.events] if batched else [sse_bytes(message)])
                reading = asyncio.ensure_future(call.read())
        finally:
            reading.cancel()
            self._relay_batch(upstream, batch, last)  # what was read is relayed, even on a failure

    def _relay_batch(self, upstream: _Upstream, batch: list[Relayed], last: list[Position]) -> None:
        if batch:
            self.metrics.dropped.inc(upstream.offer_batch(list(batch)))
            last[:] = [batch[-1][0]]
            batch.clear()

    async def _opened(self, call: Any) -> None:
        """Wait until the rules service subscribed the watch (its initial metadata), or raise why not."""
        try:
            async with asyncio.timeout(self.settings.rpc_timeout_seconds):
                metadata = await call.initial_metadata()
        except TimeoutError:
            raise Problem(504, "timeout", "the rules service did not open the event stream in time") from None
        if metadata.get(OPEN_MARKER[0]) == OPEN_MARKER[1]:
            return
        # No marker: a refused watch (reading raises its status), or one that ended at once with OK
        # (a game over with nothing after the version asked): gRPC may then send the marker and the
        # status as one trailers-only response, so the marker never shows as initial metadata.
        if await call.read() is grpc.aio.EOF:
            return
        raise Problem(502, "upstream_error", "the rules service sent events before opening the stream")

    def _fail(self, upstream: _Upstream, problem: Problem) -> None:
        upstream.fail_opening(problem)
        upstream.end(problem)

    async def close(self) -> None:
        """Cancel every upstream (the gateway is stopping)."""
        if self.keeper is not None:
            self.keeper.cancel()
        tasks = [u.task for u in self.upstreams.values() if u.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def live_stream(listener: Listener, history: list[rules_pb2.GameEvent]) -> LiveStream:
    """The SSE response of one client: its history (rendered here), then its upstream's events."""
    return LiveStream(listener, [sse_bytes(event) for event in history])
