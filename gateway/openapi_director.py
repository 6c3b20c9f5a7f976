"""OpenAPI paths of the routes served by other processes: tournaments and ratings (the tournament
director), webhooks (the webhook dispatcher) and Web Push notifications (the notification sender).

Like the older routes, every request body is a proto message whose schema states
``additionalProperties: false`` (the gateway's strict parser refuses unknown fields with 400
``invalid_request``), bodies a route needs are ``required``, and every query and path parameter
carries the bounds the services check: the shared listing rule (:mod:`gateway.listing`), the
statuses each listing filters by, the game types served, the external-id alphabet.
"""

from __future__ import annotations

from typing import Any

from gateway.listing import paging_parameters
from gateway.openapi_paths import _body, _json, _problems, _ref
from services.identity.preferences import NOTICE_TYPES
from services.rating.identity import MAX_EXTERNAL_ID

TOURNAMENT_STATUSES = ["", "running", "finished"]
DELIVERY_STATUSES = ["", "pending", "delivered", "dead"]
EXTERNAL_ID = {"type": "string", "pattern": f"^[A-Za-z0-9._:@-]{{1,{MAX_EXTERNAL_ID}}}$"}
# Ids the services hand out; any other string is simply not found (404).
OPAQUE_ID = {"type": "string", "minLength": 1, "maxLength": 256}
# Every refusal a forwarded call can meet: a bad body or parameter, a credential, the thing named,
# its state, the body's size and type, a refusal of the rules (e.g. too few entrants for a table).
REFUSALS = [400, 401, 403, 404, 409, 413, 415, 422]
WITHDRAW_BODY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "external_id": {**EXTERNAL_ID, "description": "operators: the entrant to withdraw (else the bearer)"}
    },
}

# What a push carries once the browser decrypted it (services/notify/notices.py): one notice, or several
# of a type collapsed (game_ids); only what every seat of the game may see.
PUSH_PAYLOAD: dict[str, Any] = {
    "type": "object",
    "required": ["type", "title", "body", "url", "tag"],
    "description": "The decrypted payload of a push (JSON). One game's notice carries `game_id`; several games "
    "of one type collapsed into one message carry `game_ids` instead, and only `title`, `body`, `url`, `tag`.",
    "properties": {
        "type": {"type": "string", "enum": list(NOTICE_TYPES)},
        "game_id": {"type": "string"},
        "game_ids": {"type": "array", "items": {"type": "string"}},
        "game_type": {"type": "string"},
        "seat": {"type": "integer", "minimum": 0, "description": "the player's seat"},
        "deadline": {"type": "string", "format": "date-time", "description": "when the seat's clock runs out"},
        "opponents": {"type": "array", "items": {"type": "string"}, "description": "the other seats' names"},
        "status": {"type": "string", "enum": ["finished", "aborted"], "description": "game_finished only"},
        "title": {"type": "string", "description": "in the player's language"},
        "body": {"type": "string", "description": "in the player's language"},
        "url": {"type": "string", "description": "the table (the lobby for a collapsed message)"},
        "tag": {"type": "string", "description": "the same for a message sent again: the browser replaces it"},
    },
}
PUSH_CALLBACK = {
    "{$request.body#/endpoint}": {
        "post": {
            "summary": "A Web Push message to the registered endpoint (RFC 8030, VAPID-signed per RFC 8292)",
            "description": "Sent to the push service, which hands it to the browser. The body is encrypted to "
            "the subscription's keys (RFC 8291, `Content-Encoding: aes128gcm`); decrypted, it is this JSON.",
            "requestBody": {"required": True, "content": {"application/json": {"schema": PUSH_PAYLOAD}}},
            "responses": {
                "201": {"description": "accepted by the push service"},
                "410": {"description": "gone: the subscription is removed"},
            },
        }
    }
}


def _path(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema or dict(OPAQUE_ID)}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def _operation(summary: str, answer: str, status: str = "200", **extra: Any) -> dict[str, Any]:
    """One operation answering ``answer`` (a message's full name) or a problem."""
    return {
        "summary": summary,
        **extra,
        "responses": {status: _json(_ref(answer)), **_problems(REFUSALS)},
    }


def _tournament_paths() -> dict[str, Any]:
    tournament = [_path("tournament_id")]
    prefix = "chaiwala.tournament.v1."
    return {
        "/v1/tournaments": {
            "post": _operation(
                "Create a tournament (operator key); the answer carries each entrant's token, once",
                prefix + "CreateTournamentResponse",
                "201",
                requestBody=_body(prefix + "CreateTournamentBody"),
            ),
            "get": _operation(
                "Tournaments newest first, cursor-paginated",
                prefix + "ListTournamentsResponse",
                parameters=[_query("status", {"type": "string", "enum": TOURNAMENT_STATUSES}), *paging_parameters()],
            ),
        },
        "/v1/tournaments/{tournament_id}": {
            "get": _operation("One tournament", prefix + "Tournament", parameters=tournament)
        },
        "/v1/tournaments/{tournament_id}/rounds": {
            "get": _operation("Every round so far", prefix + "ListRoundsResponse", parameters=tournament)
        },
        "/v1/tournaments/{tournament_id}/standings": {
            "get": _operation("Standings after the finished rounds", prefix + "Standings", parameters=tournament)
        },
        "/v1/tournaments/{tournament_id}/table": {
            "get": _operation("The bearer entrant's table this round", prefix + "MyTable", parameters=tournament)
        },
        "/v1/tournaments/{tournament_id}/withdraw": {
            "post": _operation(
                "Withdraw the bearer entrant (operators: the entrant named); its seats resign",
                prefix + "Tournament",
                parameters=tournament,
                requestBody={
                    "required": False,
                    "content": {"application/json": {"schema": WITHDRAW_BODY}},
                },
            )
        },
    }


def _rating_paths() -> dict[str, Any]:
    game_type = {"type": "string"}  # build_openapi lists the game types served
    prefix = "chaiwala.rating.v1."
    return {
        "/v1/ratings/{game_type}": {
            "get": _operation(
                "A game type's leaderboard, best ordinal first",
                prefix + "ListRatingsResponse",
                parameters=[_path("game_type", game_type), *paging_parameters()],
            )
        },
        "/v1/players/{external_id}": {
            "get": _operation(
                "A player's ratings and recent rated games",
                prefix + "Player",
                parameters=[_path("external_id", dict(EXTERNAL_ID))],
            )
        },
    }


def _webhook_paths() -> dict[str, Any]:
    webhook = [_path("webhook_id")]
    prefix = "chaiwala.v1."
    return {
        "/v1/webhooks": {
            "post": _operation(
                "Subscribe a URL to event types (operators); the answer carries the signing secret, once",
                prefix + "CreateWebhookResponse",
                "201",
                requestBody=_body(prefix + "CreateWebhookRequest"),
            ),
            "get": _operation("Every subscription (operators)", prefix + "ListWebhooksResponse"),
        },
        "/v1/webhooks/{webhook_id}": {
            "get": _operation("One subscription (operators), never its secret", prefix + "Webhook", parameters=webhook),
            "delete": _operation(
                "Remove a subscription with its deliveries (operators)",
                prefix + "DeleteWebhookResponse",
                parameters=webhook,
            ),
        },
        "/v1/webhooks/{webhook_id}/deliveries": {
            "get": _operation(
                "A subscription's deliveries, newest first (operators)",
                prefix + "ListDeliveriesResponse",
                parameters=[
                    *webhook,
                    _query("status", {"type": "string", "enum": DELIVERY_STATUSES}),
                    *paging_parameters(),
                ],
            )
        },
        "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver": {
            "post": _operation(
                "Deliver one delivery again now (operators)",
                prefix + "Delivery",
                "202",
                parameters=[*webhook, _path("delivery_id")],
            )
        },
    }


def _notify_paths() -> dict[str, Any]:
    prefix = "chaiwala.v1."
    return {
        "/v1/me/push-subscriptions": {
            "post": _operation(
                "Register the bearer's browser for Web Push: the body is PushSubscription.toJSON() as it is",
                prefix + "PushSubscription",
                "201",
                requestBody=_body(prefix + "CreatePushSubscriptionRequest"),
                callbacks={"push": PUSH_CALLBACK},
            ),
            "get": _operation("The bearer's push subscriptions", prefix + "ListPushSubscriptionsResponse"),
        },
        "/v1/me/push-subscriptions/{subscription_id}": {
            "delete": _operation(
                "Forget one of the bearer's push subscriptions",
                prefix + "DeletePushSubscriptionResponse",
                parameters=[_path("subscription_id")],
            )
        },
        "/v1/push/vapid-public-key": {
            "get": _operation("The server's VAPID public key (applicationServerKey)", prefix + "VapidPublicKey")
        },
        "/v1/me/preferences": {
            "get": _operation("The bearer's notification preferences", prefix + "Preferences"),
            "put": _operation(
                "Replace the bearer's notification preferences (a bad field changes nothing)",
                prefix + "Preferences",
                requestBody=_body(prefix + "Preferences"),
            ),
        },
    }


def director_paths() -> dict[str, Any]:
    """Tournament, rating, webhook and notification operations, exact."""
    return {**_tournament_paths(), **_rating_paths(), **_webhook_paths(), **_notify_paths()}
