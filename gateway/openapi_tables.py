"""OpenAPI paths of the routes for drawing tables (past versions, static boards): exact answers."""

from __future__ import annotations

from typing import Any

from gateway.openapi_paths import MAX_AFTER as MAX_VERSION

ACCEPT_LANGUAGE = {
    "name": "Accept-Language",
    "in": "header",
    "required": False,
    "description": "en (default) or es",
    "schema": {"type": "string"},
}
PROBLEM = {"content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/chaiwala.v1.Problem"}}}}


def _problems(*statuses: int) -> dict[str, Any]:
    return {str(s): {"description": "problem", **PROBLEM} for s in statuses}


def table_paths(game_id: dict[str, Any]) -> dict[str, Any]:
    """``GET /v1/games/{game_id}/versions/{version}``, ``GET /v1/game-types/{game_type}/board`` and ``/rules``."""
    counter = {"type": "integer", "minimum": 0, "maximum": MAX_VERSION}
    version = {"name": "version", "in": "path", "required": True, "schema": counter}
    game_type = {"name": "game_type", "in": "path", "required": True, "schema": {"type": "string"}}
    at_version = {"$ref": "#/components/schemas/chaiwala.v1.GameAtVersion"}
    return {
        "/v1/games/{game_id}/versions/{version}": {
            "get": {
                "summary": "The game right after one version (0 = set-up) as the bearer may see it; "
                "finished or aborted games (operators: any started game)",
                "parameters": [game_id, version],
                "responses": {
                    "200": {"description": "OK", "content": {"application/json": {"schema": at_version}}},
                    **_problems(400, 401, 403, 404, 422),
                },
            }
        },
        "/v1/game-types/{game_type}/board": {
            "get": {
                "summary": "The game type's static board as JSON (India Rails: the milepost map); ETag, cacheable",
                "parameters": [game_type],
                "responses": {
                    "200": {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}},
                    "304": {"description": "not modified (If-None-Match matched the ETag)"},
                    **_problems(404),
                },
            }
        },
        "/v1/game-types/{game_type}/rules": {
            "get": {
                "summary": (
                    "The game type's rules as Markdown (a quick start and a reference),"
                    " in the language of Accept-Language (en, es)"
                ),
                "parameters": [game_type, ACCEPT_LANGUAGE],
                "responses": {
                    "200": {
                        "description": (
                            "the rules: a level-1 title, then two level-2 parts, the quick start (the goal with its"
                            " numbers, a turn, what to look at first) and the reference (every number a decision"
                            " needs, in tables); headings are 'Quick start' / 'Reference' in English and 'Inicio"
                            " rápido' / 'Referencia' in Spanish. Content-Language says the language"
                        ),
                        "content": {"text/markdown": {"schema": {"type": "string"}}},
                    },
                    **_problems(404),
                },
            }
        },
    }
