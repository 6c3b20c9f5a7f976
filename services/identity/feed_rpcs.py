"""The player stream behind ``WatchMyEvents`` and ``CreateMyStreamTicket`` (the IdentityService's
handlers call it).

A player's ticket stands for the player (not a seat): ``chaiwala:player-ticket:<sha256>`` holds
the player id and the token's expiry for :data:`TICKET_TTL_SECONDS` (the setting
``CHAIWALA_STREAM_TICKET_SECONDS``).  A watch opened with a ticket renews it while it is open (each
wait, and a wait is at most a quarter of the ticket's life), never past the token's expiry, so the ticket stays good
for a minute after its stream closed and an ``EventSource`` reconnecting with the same URL gets in
(as a game's ticket, :mod:`services.rules.tickets`).  A watch reads the player's feed
(:mod:`services.lobby.feed`) after the client's cursor, sends a keep-alive (it is open), then waits
for more, at most :data:`WAIT_SECONDS` at a time, sending a keep-alive after
:data:`KEEP_ALIVE_SECONDS` of quiet; it ends when the player's token expires, so a client renews
its token (and ticket) before then.

A watch holds no Redis connection and polls nothing: it subscribes to the player's feed key on the
process's :class:`~services.streaming.keyed.KeyedStreams` (one follow per connected player, all of
them read by the few blocking reads of the process's stream mux, :mod:`services.streaming.mux`)
*before* reading what is already there, and passes on live notices newer than the last it sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import orjson

from chaiwala.identity.v1 import identity_pb2
from services.common import errors
from services.common.interceptors import BEARER
from services.common.store import hash_token
from services.identity.player import Player
from services.lobby.feed import Feed, Notice, feed_key, is_cursor, notice
from services.streaming.keyed import KeyedStreams
from services.streaming.mailbox import Mailbox, SlowConsumer
from services.streaming.mux import Entry, ShuttingDown, id_after

# One wait for the next notice (in the process: the stream mux reads the feed); after an empty one
# the watch renews its ticket and looks at the token's expiry.
WAIT_SECONDS = 10.0
# Quiet this long, the watch sends a keep-alive (an empty PlayerEvent) so a gRPC client knows it is
# alive; the gateway ignores them (its own pings keep the SSE stream alive).  Every 10 s, as before,
# 10,000 connected players cost 1,000 messages a second through gRPC (docs/lab/many-listeners.md).
KEEP_ALIVE_SECONDS = 60.0
# As a game's stream tickets (services.rules.tickets): a minute, and 43 characters when ours.
TICKET_TTL_SECONDS = 60
MAX_TICKET_LENGTH = 128
PAGE = 100  # notices per read of the feed
# Watches reading Redis to open at once, per process (see PlayerStream.opening): three quarters of the
# calls' pool, the rest kept for the moves and every other call.  (A bound of 32 opened a burst of
# 10,000 more slowly than the pool did alone.)
POOL_SHARE = 0.75
OPENINGS_ON_A_CLUSTER = 64  # a cluster client's pools are per node: no one size to share


def openings_at_once(redis: Any) -> int:
    """How many watches may read Redis to open at once: :data:`POOL_SHARE` of the calls' pool."""
    size = getattr(getattr(redis, "connection_pool", None), "max_connections", None)
    return max(1, int(size * POOL_SHARE)) if isinstance(size, int) else OPENINGS_ON_A_CLUSTER


def bad_ticket() -> errors.ServiceError:
    """An unknown or expired player ticket (UNAUTHENTICATED, HTTP 401), as a game's ticket is refused."""
    message = "unknown or expired stream ticket; ask for a new one"
    return errors.ServiceError(grpc.StatusCode.UNAUTHENTICATED, "invalid_ticket", message)


def ticket_key(ticket: str) -> str:
    """Where a player ticket is kept (hashed)."""
    return f"chaiwala:player-ticket:{hash_token(ticket)}"


class PlayerStream:
    """Tickets and watches of the players' feeds."""

    def __init__(
        self,
        redis: Any,
        feeds: KeyedStreams,
        player: Callable[[], Awaitable[Player]],
        ticket_seconds: int = TICKET_TTL_SECONDS,
    ) -> None:
        self.redis = redis  # the calls' client
        # Watches opening at once that read Redis (the ticket, the feed's last entry, its first page):
        # the others wait here, bounded by their caller's deadline, not in the calls' pool, whose
        # bounded wait (CHAIWALA_REDIS_POOL_TIMEOUT_SECONDS) failed a burst of openings with 503
        # store_unavailable and would fail the moves waiting beside them (docs/lab/many-listeners.md).
        self.opening = asyncio.Semaphore(openings_at_once(redis))
        self.ticket_seconds = ticket_seconds
        self.feeds = feeds  # the live feeds, read by the process's stream mux
        self._player = player  # the bearer player, or the refusal

    async def ticket(self) -> identity_pb2.MyStreamTicket:
        """A ticket standing for the bearer player, valid a minute (never past the token's own expiry)."""
        player = await self._player()
        ticket = secrets.token_urlsafe(32)
        ttl = max(1, min(self.ticket_seconds, player.expires_at - int(time.time())))
        value = orjson.dumps({"player_id": player.player_id, "expires_at": player.expires_at})
        await self.redis.set(ticket_key(ticket), value, ex=ttl)
        answer = identity_pb2.MyStreamTicket(ticket=ticket)
        answer.expires_at.FromSeconds(int(time.time()) + ttl)
        return answer

    async def _watcher(self, ticket: str) -> tuple[str, int]:
        """(player id, until when the stream may stay open) from the bearer or a ticket."""
        if not ticket:
            player = await self._player()
            return player.player_id, player.expires_at
        if BEARER.get():
            raise errors.invalid("ticket_and_bearer", "send a stream ticket or a bearer token, not both")
        raw = await self.redis.get(ticket_key(ticket)) if len(ticket) <= MAX_TICKET_LENGTH else None
        if raw is None:
            raise bad_ticket()
        found = orjson.loads(raw)
        return str(found["player_id"]), int(found["expires_at"])

    async def watch(self, request: identity_pb2.WatchMyEventsRequest) -> AsyncIterator[identity_pb2.PlayerEvent]:
        """The player's feed after ``after``, then live until their token expires."""
        async with self.opening:
            player_id, until = await self._watcher(request.ticket)
        if request.after not in ("", "0") and not is_cursor(request.after):
            raise errors.invalid("bad_after", "resume from an id this stream sent (or '' from the start)")
        if request.once:
            async for event in self._history(player_id, request.after or "0"):
                yield event
            return
        try:
            async with contextlib.AsyncExitStack() as held:
                after = request.after or "0"
                async with self.opening:  # the follow's starting point and the first page, a few at once
                    # subscribed before the history is read (see the module docstring)
                    mailbox = await held.enter_async_context(self.feeds.subscribe(feed_key(player_id)))
                    page = await self._page(player_id, after)
                async for event in self._history(player_id, after, page):
                    after = event.id
                    yield event
                yield identity_pb2.PlayerEvent()  # open: the gateway answers 200 now, not at the first notice
                async for event in self._live(mailbox, after, until, request.ticket):
                    yield event
        except SlowConsumer as dropped:
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow_consumer", str(dropped)) from None
        except ShuttingDown as stopping:
            raise errors.ServiceError(grpc.StatusCode.UNAVAILABLE, "shutting_down", str(stopping)) from None

    async def _live(
        self, mailbox: Mailbox[Entry], after: str, until: int, ticket: str
    ) -> AsyncIterator[identity_pb2.PlayerEvent]:
        """Notices newer than ``after`` as they come, a keep-alive after :data:`KEEP_ALIVE_SECONDS` of
        quiet, until ``until``."""
        quiet_since = time.monotonic()
        # A ticket's stream renews it at least four times a life (a short life: the tests' stacks).
        wait = min(WAIT_SECONDS, self.ticket_seconds / 4) if ticket else WAIT_SECONDS
        while time.time() < until:
            if ticket:
                await self._renew(ticket, until)
            entries = await mailbox.take(min(wait, max(0.001, until - time.time())))
            fresh = [notice(entry_id, fields) for entry_id, fields in entries if id_after(entry_id, after)]
            for item in fresh:
                after = item.id
                yield _event(item.id, item.kind, item.data)
            if fresh or time.monotonic() - quiet_since >= KEEP_ALIVE_SECONDS:
                if not fresh:
                    yield identity_pb2.PlayerEvent()  # keep-alive (the gateway's own pings reach the client)
                quiet_since = time.monotonic()

    async def _history(
        self, player_id: str, after: str, page: list[Notice] | None = None
    ) -> AsyncIterator[identity_pb2.PlayerEvent]:
        """Everything already in the feed after ``after`` (``page``: its first page, read already), a
        page at a time (a JSON answer is all of it)."""
        notices = page if page is not None else await self._page(player_id, after)
        while True:
            for item in notices:
                after = item.id
                yield _event(item.id, item.kind, item.data)
            if len(notices) < PAGE:
                return
            notices = await self._page(player_id, after)

    async def _page(self, player_id: str, after: str) -> list[Notice]:
        """The feed's first :data:`PAGE` notices after ``after``."""
        return await Feed(self.redis).read(self.redis, player_id, after, None, count=PAGE)

    async def _renew(self, ticket: str, until: int) -> None:
        """Keep the ticket of an open stream good for its whole life again (not past ``until``)."""
        await self.redis.expire(ticket_key(ticket), max(1, min(self.ticket_seconds, until - int(time.time()))))


def _event(event_id: str, kind: str, data: dict[str, Any]) -> identity_pb2.PlayerEvent:
    return identity_pb2.PlayerEvent(id=event_id, kind=kind, data_json=orjson.dumps(data))
