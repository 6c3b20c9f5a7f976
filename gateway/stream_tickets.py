"""Stream tickets at the gateway: the ``?ticket=`` of the event routes and the ticket answer.

A browser's ``EventSource`` cannot send ``Authorization``; a seat token must never be put
in a URL.  So a seat exchanges its token for a short-lived, read-only ticket of one game
and opens ``GET /v1/games/{id}/events?ticket=…`` with it (see
:mod:`services.rules.tickets` for the rules: about a minute, reusable until then,
hashed in Redis).  Query parameters that look like someone putting a long-lived
credential in a URL are refused outright.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request

from gateway.problems import Problem

# Query parameters a client might try for a bearer; a seat token never travels in a URL.
CREDENTIAL_PARAMS = ("token", "access_token", "authorization", "api_key", "key")
MAX_TICKET_CHARS = 128


def ticket_param(request: Request) -> str:
    """The ``ticket`` query parameter ("" when absent); a problem for a credential in the URL."""
    query = request.query_params
    if any(name in query for name in CREDENTIAL_PARAMS):
        raise Problem(400, "credential_in_url", "never put a token in a URL; ask for a stream ticket instead")
    if "ticket" not in query:
        return ""
    ticket = query["ticket"]
    if not ticket or len(ticket) > MAX_TICKET_CHARS or not (ticket.isascii() and ticket.isprintable()):
        raise Problem(401, "invalid_ticket", "unknown or expired stream ticket for this game; ask for a new one")
    if request.headers.get("authorization"):
        raise Problem(400, "ticket_and_bearer", "send a stream ticket or a bearer token, not both")
    return ticket


def ticket_body(answer: Any) -> dict[str, str]:
    """A ``StreamTicket`` as the REST answer ``{"ticket", "expires_at"}`` (RFC 3339, UTC)."""
    return {"ticket": answer.ticket, "expires_at": answer.expires_at.ToJsonString()}
