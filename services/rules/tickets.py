"""Stream tickets: short-lived, read-only stand-ins for a seat token when opening an event stream.

A browser's ``EventSource`` cannot send an ``Authorization`` header, and a seat token must
never travel in a URL (URLs end up in logs).  So a seat asks for a ticket with its token
(``CreateStreamTicket``) and puts the ticket in the stream's URL instead.

Decisions:

* A ticket is random (256 bits), returned once, and stored only as its SHA-256 under
  ``game:{G}:ticket:<hash>`` — the game's own hash tag, so it lives on the game's Redis
  Cluster slot — with the seat as value and a TTL of :data:`TICKET_TTL_SECONDS` (the setting
  ``CHAIWALA_STREAM_TICKET_SECONDS``, :class:`~services.identity.settings.IdentitySettings`).
  Redis forgets it when it expires.
* It names one game (its key includes the game id) and is read-only: only ``ListEvents``
  and ``WatchEvents`` accept it, and never as a bearer.
* It is **reusable until it expires**, and **a stream it opened keeps it alive**: while the
  stream is open the ticket is renewed (:meth:`StreamTickets.kept`, every
  :data:`RENEW_EVERY_SECONDS`, or a quarter of a shorter life), so it expires a minute after the last stream it opened
  closed, not a minute after it was issued.  A plain ``EventSource`` reconnects with the same
  URL (and ``Last-Event-ID``) after any drop and gets in again, however long its stream was
  open; only a client away for longer than a minute asks for a new ticket (docs: "Tickets").
  The ticket gates opening a stream, not its length.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc

from services.common.errors import ServiceError, invalid
from services.common.store import hash_token

TICKET_TTL_SECONDS = 60
# How often an open stream renews its ticket (well within the ticket's life, so a failed renewal or
# two does not lose it).
RENEW_EVERY_SECONDS = 15.0
# Tickets we issue are 43 characters; anything much longer is not one of ours.
MAX_TICKET_LENGTH = 128


def renew_every(ttl_seconds: float) -> float:
    """How often an open stream renews a ticket that lives ``ttl_seconds``: four times a life at least."""
    return min(RENEW_EVERY_SECONDS, ttl_seconds / 4)


def ticket_key(game_id: str, ticket: str) -> str:
    """The Redis key of a ticket of ``game_id`` (hashed; same hash tag as the game's keys)."""
    return f"game:{{{game_id}}}:ticket:{hash_token(ticket)}"


class StreamTickets:
    """Issues and resolves stream tickets in Redis."""

    def __init__(self, redis: Any, ttl_seconds: int = TICKET_TTL_SECONDS) -> None:
        self.redis = redis
        self.ttl_seconds = ttl_seconds

    async def issue(self, game_id: str, seat: int) -> tuple[str, int]:
        """A fresh ticket for ``seat`` of ``game_id`` and its expiry (whole Unix seconds, never late)."""
        ticket = secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.ttl_seconds
        await self.redis.set(ticket_key(game_id, ticket), seat, ex=self.ttl_seconds)
        return ticket, expires_at

    async def seat_of(self, game_id: str, ticket: str) -> int | None:
        """The seat a live ticket of ``game_id`` stands for; ``None`` if unknown, expired or another game's."""
        if not ticket or len(ticket) > MAX_TICKET_LENGTH:
            return None
        value = await self.redis.get(ticket_key(game_id, ticket))
        if value is None:
            return None
        return int(value)

    @contextlib.asynccontextmanager
    async def kept(self, game_id: str, ticket: str) -> AsyncIterator[None]:
        """While the block runs (a stream opened with ``ticket``), keep the ticket alive (see above)."""
        if not ticket:
            yield
            return
        renewing = asyncio.create_task(self._renew(ticket_key(game_id, ticket)), name="ticket:renew")
        try:
            yield
        finally:
            renewing.cancel()

    async def _renew(self, key: str) -> None:
        while True:
            with contextlib.suppress(Exception):  # the store is away: the next round tries again
                await self.redis.expire(key, self.ttl_seconds)
            await asyncio.sleep(renew_every(self.ttl_seconds))

    async def viewer(self, game_id: str, ticket: str, has_bearer: bool) -> int:
        """The seat a ticket presented to an event RPC stands for, or the refusal to send back."""
        if has_bearer:
            raise invalid("ticket_and_bearer", "send a stream ticket or a bearer token, not both")
        seat = await self.seat_of(game_id, ticket)
        if seat is None:
            raise bad_ticket()
        return seat


def bad_ticket() -> ServiceError:
    """An unknown, expired or other game's ticket (UNAUTHENTICATED, HTTP 401)."""
    message = "unknown or expired stream ticket for this game; ask for a new one"
    return ServiceError(grpc.StatusCode.UNAUTHENTICATED, "invalid_ticket", message)
