"""The listing's page tokens (the sets themselves are :mod:`services.filing.store`'s).

``GET /v1/games`` pages newest first over the listing sets.  Page tokens are opaque to clients:
base64url of ``<created ms>:<game id>`` of the last game of a page; the next page holds games
strictly older in (created, id) order, so a cursor stays valid while games are created.
"""

from __future__ import annotations

import base64
import binascii

from services.filing.store import Cursor


class BadPageToken(ValueError):
    """A page token we did not hand out."""


def encode_cursor(created_ms: int, game_id: str) -> str:
    """The page token after a game."""
    return base64.urlsafe_b64encode(f"{created_ms}:{game_id}".encode()).decode().rstrip("=")


def decode_cursor(token: str) -> Cursor | None:
    """The (created ms, game id) a page token points after; ``None`` for the first page."""
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadPageToken(token) from None
    created, _, game_id = raw.partition(":")
    if not created.isdigit() or not game_id:
        raise BadPageToken(token)
    return int(created), game_id
