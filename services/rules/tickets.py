"""Stream tickets: short-lived, read-only stand-ins for a seat token when opening an event stream.

A browser's ``EventSource`` cannot send an ``Authorization`` header, and a seat token must
never travel in a URL (URLs end up in logs).  So a seat asks for a ticket with its token
(``CreateStreamTicket``) and puts the ticket in the stream's URL instead.

Decisions:

* A ticket is random (256 bits), returned once, and stored only as its SHA-256 under
  ``game:{G}:ticket:<hash>`` — the game's own hash tag, so it lives on the game's Redis
  Cluster slot — with the seat as value and a TTL of :data:`TICKET_TTL_SECONDS`.  Redis
  forgets it when it expires.
* It names one game (its key includes the game id) and is read-only: only ``ListEvents``
  and ``WatchEvents`` accept it, and never as a bearer.
* It is **reusable until it expires**, so an ``EventSource`` that reconnects (with
  ``Last-Event-ID``) within the minute gets in again; after that the client asks for a
  new ticket.  A stream opened in time stays open past the expiry: the ticket gates
  opening a stream, not its length.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import grpc

from services.common.errors import ServiceError, invalid
from services.common.store import hash_token

TICKET_TTL_SECONDS = 60
# Tickets we issue are 43 characters; anything much longer is not one of ours.
MAX_TICKET_LENGTH = 128


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
