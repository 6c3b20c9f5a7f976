"""The player stream of the AsyncAPI document: ``GET /v1/me/events``.

This is the specification the route is built to: everything that concerns the bearer player
(a player token) across all their games, as Server-Sent Events.  Game ids, seats and results use
the same words as the REST answers; a game's own moves and states are not repeated here (follow
the game's stream, or GET the game, for those).
"""

from __future__ import annotations

from typing import Any

PREFIX = "chaiwala.v1.Player"
GAME_ID = {"type": "string", "description": "The game's id, `<game_type>-<hex>`."}
GAME_TYPE = {"type": "string", "description": "The game type (one of the ids GET /v1/game-types lists)."}
SEAT = {"type": "integer", "format": "uint32", "minimum": 0, "description": "The player's seat in that game."}
CURSOR = (
    "An opaque cursor; reconnect with it as Last-Event-ID (an EventSource does so by itself) to get "
    "what happened since, with nothing repeated."
)


def _object(description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


PLAYER_SCHEMAS: dict[str, Any] = {
    f"{PREFIX}GameStarted": _object(
        "A game the player has a seat in has started.",
        {"game_id": GAME_ID, "game_type": GAME_TYPE, "seat": SEAT},
        ["game_id", "game_type", "seat"],
    ),
    f"{PREFIX}YourTurn": _object(
        "It is the player's turn in a game.",
        {
            "game_id": GAME_ID,
            "game_type": GAME_TYPE,
            "seat": SEAT,
            "version": {"type": "integer", "format": "uint32", "minimum": 0, "description": "The game's version now."},
            "deadline": {
                "type": "string",
                "format": "date-time",
                "description": "RFC 3339: when the seat's clock runs out (absent when the game has no time control).",
            },
        },
        ["game_id", "game_type", "seat", "version"],
    ),
    f"{PREFIX}GameFinished": _object(
        "A game the player has a seat in is over.",
        {
            "game_id": GAME_ID,
            "game_type": GAME_TYPE,
            "seat": SEAT,
            "status": {"type": "string", "enum": ["finished", "aborted"], "description": "How it ended."},
            "result": {"$ref": "#/components/schemas/chaiwala.v1.GameResult"},
        },
        ["game_id", "game_type", "seat", "status"],
    ),
    f"{PREFIX}Invited": _object(
        "The player was given a seat of a waiting game (an operator seated their id): it is theirs "
        "already, with nothing to join; game_started follows when the game starts, and POST "
        "/v1/games/{game_id}/leave with their token gives the seat up.",
        {
            "game_id": GAME_ID,
            "game_type": GAME_TYPE,
            "seat": SEAT,
            "host": {
                "type": "string",
                "description": "The name of the player who created the game; empty when an operator did.",
            },
        },
        ["game_id", "game_type", "seat"],
    ),
    f"{PREFIX}MatchFound": _object(
        "A quick-play ticket of the player's was matched: they hold the seat named in a new game "
        "(GET /v1/matchmaking/tickets/{ticket_id} says the same). The game's own game_started (and "
        "your_turn) are sent as it is created, so they may come just before this.",
        {
            "ticket_id": {"type": "string", "description": "The ticket that was matched, `tkt_<hex>`."},
            "game_id": GAME_ID,
            "game_type": GAME_TYPE,
            "seat": SEAT,
        },
        ["ticket_id", "game_id", "game_type", "seat"],
    ),
}


def _message(name: str, key: str, summary: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": name,
        "summary": summary,
        "contentType": "application/json",
        "payload": {"$ref": f"#/components/schemas/{PREFIX}{key}"},
        "headers": {"type": "object", "properties": {"id": {"type": "string", "description": CURSOR}}},
    }


PLAYER_MESSAGES: dict[str, Any] = {
    "gameStarted": _message("game_started", "GameStarted", "A game of the player's started."),
    "yourTurn": _message(
        "your_turn",
        "YourTurn",
        "A turn of the player's began (once per turn, when the seat became due, not after each move of a "
        "turn of several moves), with the deadline when clocked.",
    ),
    "gameFinished": _message("game_finished", "GameFinished", "A game of the player's is over."),
    "invited": _message("invited", "Invited", "The player was invited to a seat."),
    "matchFound": _message("match_found", "MatchFound", "A quick-play ticket was matched: the game and seat."),
}


def player_channel() -> dict[str, Any]:
    """The player stream's channel."""
    names = ["gameStarted", "yourTurn", "gameFinished", "invited", "matchFound", "end", "error"]
    return {
        "address": "/v1/me/events",
        "title": "The player stream",
        "description": (
            "The player stream: `GET /v1/me/events` with `Accept: text/event-stream` and a player token "
            "(`Authorization: Bearer <player token>`, or `?ticket=` from a stream ticket for an EventSource). "
            "Everything that concerns the player across their games: a game started, their turn (with its "
            "deadline), a game finished, an invitation to a seat, a quick-play ticket matched. Resume with "
            "Last-Event-ID. `error` then `end` "
            "close it as on a game's stream (`end` only when the token stops being valid). It opens with a "
            "`retry` field; a `: ping` comment every 15 seconds keeps it open. A ticket stays good while a stream "
            "it opened is open and a minute after, so an EventSource reconnects with the same URL. The names and "
            "payloads are the contract."
        ),
        "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in names},
        "bindings": {"http": {"bindingVersion": "0.3.0"}},
    }
