"""OpenAPI paths of quick play (served by the matchmaker, ``python -m services.matchmaking``):
``/v1/matchmaking/tickets`` and ``/v1/me/tickets``, every call with a player token."""

from __future__ import annotations

from typing import Any

from gateway.openapi_paths import _body, _json, _problems, _ref

PREFIX = "chaiwala.v1."
TICKET_ID = {"type": "string", "minLength": 1, "maxLength": 64, "description": "A ticket's id, `tkt_<hex>`."}
# A bad body, no or a bad player token, a rated pool for a guest, another player's or an unknown ticket,
# a second ticket in one pool (or a ticket already matched), the body's size and type, the cap.
REFUSALS = [400, 401, 403, 404, 409, 413, 415, 429]


def _operation(summary: str, status: str = "200", **extra: Any) -> dict[str, Any]:
    return {"summary": summary, **extra, "responses": {status: _json(_ref(PREFIX + "Ticket")), **_problems(REFUSALS)}}


def matchmaking_paths() -> dict[str, Any]:
    """Quick-play operations, exact."""
    ticket = [{"name": "ticket_id", "in": "path", "required": True, "schema": dict(TICKET_ID)}]
    return {
        "/v1/matchmaking/tickets": {
            "post": _operation(
                "Start searching for a game (player token): the ticket, status searching; refused 409 "
                "ticket_exists (one searching ticket per pool), 429 too_many_tickets, 403 identity_not_rated",
                "201",
                requestBody=_body(PREFIX + "CreateTicketRequest"),
            )
        },
        "/v1/matchmaking/tickets/{ticket_id}": {
            "get": _operation("One of the bearer's tickets: its status, then game_id and seat", parameters=ticket),
            "delete": _operation("Stop searching: the ticket, status cancelled", parameters=ticket),
        },
        "/v1/me/tickets": {
            "get": {
                "summary": "The bearer's tickets, newest first",
                "responses": {"200": _json(_ref(PREFIX + "ListMyTicketsResponse")), **_problems(REFUSALS)},
            }
        },
    }
