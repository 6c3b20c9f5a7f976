"""OpenAPI paths of the match lifecycle (listing, join, leave, kick, start, resign)."""

from __future__ import annotations

from typing import Any

from gateway.listing import paging_parameters


def _ref(full_name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{full_name}"}


def _body(full_name: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": _ref(full_name)}}}


def _problems(*statuses: int) -> dict[str, Any]:
    problem = {"content": {"application/problem+json": {"schema": _ref("chaiwala.v1.Problem")}}}
    return {str(s): {"description": "problem", **problem} for s in statuses}


def _query(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema}


def listing_operation() -> dict[str, Any]:
    """``GET /v1/games``."""
    return {
        "summary": "Games newest first, filtered, cursor-paginated (private ones for operators only)",
        "parameters": [
            # Empty filters are no filters (build_openapi lists the game types served).
            _query("game_type", {"type": "string"}),
            _query("status", {"type": "string", "enum": ["", "waiting", "active", "finished", "aborted"]}),
            _query("open_seats", {"type": "boolean"}),
            _query("visibility", {"type": "string", "enum": ["", "public", "private"]}),
            *paging_parameters(),
        ],
        "responses": {
            "200": {"description": "OK", **_body("chaiwala.v1.ListGamesResponse")},
            **_problems(400, 401, 403),
        },
    }


def lifecycle_paths(game_id: dict[str, Any]) -> dict[str, Any]:
    """The per-game lifecycle paths (``game_id`` is the shared path parameter)."""

    def post(summary: str, answer: str, body: str | None, *statuses: int) -> dict[str, Any]:
        operation: dict[str, Any] = {
            "summary": summary,
            "parameters": [game_id],
            "responses": {"200": {"description": "OK", **_body(answer)}, **_problems(*statuses)},
        }
        if body is not None:
            operation["requestBody"] = {"required": True, **_body(body)}
        return {"post": operation}

    # Every lifecycle refusal is possible on every one of them (bad body, credential, game, state).
    statuses = (400, 401, 403, 404, 409, 413, 415, 422)
    return {
        "/v1/games/{game_id}/join": post(
            "Take an open seat; the answer carries its token, once", "chaiwala.v1.JoinGameResponse",
            "chaiwala.v1.JoinGameBody", *statuses,
        ),
        "/v1/games/{game_id}/leave": post(
            "Free the bearer's seat of a waiting game", "chaiwala.v1.Game", None, *statuses
        ),
        "/v1/games/{game_id}/kick": post(
            "Host: free a seat of a waiting game", "chaiwala.v1.Game", "chaiwala.v1.KickSeatBody", *statuses
        ),
        "/v1/games/{game_id}/start": post(
            "Host: start a waiting game with the seats filled so far", "chaiwala.v1.Game", None, *statuses
        ),
        "/v1/games/{game_id}/resign": post(
            "The bearer's seat resigns; a bot plays its remaining turns", "chaiwala.v1.Game", None, *statuses
        ),
    }  # fmt: skip
