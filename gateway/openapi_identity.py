"""OpenAPI paths of player identity: guest sessions, ``me`` and the guest issuer's JWKS."""

from __future__ import annotations

from typing import Any

from gateway.openapi_paths import _body, _json, _problems, _ref

PREFIX = "chaiwala.identity.v1."
JWK_MEMBERS = ("kty", "kid", "use", "alg", "crv", "x", "y", "n", "e")
# The JWKS as served: the standard document, members a key type does not use left out.
JWKS_SCHEMA = {
    "type": "object",
    "required": ["keys"],
    "properties": {
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["kty", "kid"],
                "properties": {name: {"type": "string"} for name in JWK_MEMBERS},
            },
        }
    },
}


def identity_paths() -> dict[str, Any]:
    """``/v1/sessions``, ``/v1/sessions/refresh``, ``/v1/me``, ``/v1/me/games`` and ``/.well-known/jwks.json``."""
    return {
        "/v1/sessions": {
            "post": {
                "summary": "A new guest player and its player token (off where the operator turned guests off)",
                "requestBody": _body(PREFIX + "CreateSessionRequest", required=False),
                "responses": {"201": _json(_ref(PREFIX + "Session"), "created"), **_problems([400, 403, 413, 415])},
            }
        },
        "/v1/sessions/refresh": {
            "post": {
                "summary": "A fresh token for the bearer's guest player (bearer: the current, still-valid token)",
                "responses": {"200": _json(_ref(PREFIX + "Session")), **_problems([401, 403])},
            }
        },
        "/v1/me": {
            "get": {
                "summary": "Who the bearer's player token says the caller is, with their ratings",
                "responses": {"200": _json(_ref(PREFIX + "Me")), **_problems([401])},
            }
        },
        "/v1/me/games": {
            "get": {
                "summary": "The bearer player's games: their turn first, then active, waiting, ended; paged",
                "parameters": [
                    {"name": "page_size", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "page_token", "in": "query", "schema": {"type": "string"}},
                ],
                "responses": {"200": _json(_ref(PREFIX + "MyGames")), **_problems([400, 401])},
            }
        },
        "/.well-known/jwks.json": {
            "get": {
                "summary": "The guest issuer's public keys (JWKS), to verify guest tokens",
                "security": [{}],
                "responses": {"200": _json(JWKS_SCHEMA)},
            }
        },
    }
