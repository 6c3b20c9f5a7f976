"""The listing of games: one sorted set per game type, visibility and status.

``chaiwala:games:<type>:<visibility>:<status>`` holds game ids scored by creation
time (Unix ms), so ``GET /v1/games`` pages newest first with ``ZREVRANGEBYSCORE``
and never scans keys.  A game moves between the status sets when its status
changes (outside the commit script: the listing is an index, not the truth; a
game caught between two sets for an instant may show up on two pages).

Page tokens are opaque to clients: base64url of ``<created ms>:<game id>`` of the
last game of a page; the next page holds games strictly older in (created, id)
order, so a cursor stays valid while games are created.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Sequence
from typing import Any

from services.retention.policy import note_ended

STATUSES = ("waiting", "active", "finished", "aborted")
Cursor = tuple[int, str]


class BadPageToken(ValueError):
    """A page token we did not hand out."""


def index_key(game_type: str, visibility: str, status: str) -> str:
    """The sorted set of one game type, visibility and status."""
    return f"chaiwala:games:{game_type}:{visibility}:{status}"


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


def _decode(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class GameIndex:
    """Read and update the listing index."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    async def record(self, game_type: str, visibility: str, status: str, game_id: str, created_ms: int) -> None:
        """File a game under its new status (and out of every other)."""
        for other in STATUSES:
            if other != status:
                await self.redis.zrem(index_key(game_type, visibility, other), game_id)
        await self.redis.zadd(index_key(game_type, visibility, status), {game_id: created_ms})
        await note_ended(self.redis, game_id, status, int(time.time() * 1000))

    async def forget(self, game_type: str, visibility: str, game_id: str) -> None:
        """Drop a game from every status of the listing (a deleted game)."""
        for status in STATUSES:
            await self.redis.zrem(index_key(game_type, visibility, status), game_id)

    async def page(
        self, game_type: str, visibility: str, statuses: Sequence[str], limit: int, after: Cursor | None
    ) -> list[Cursor]:
        """Up to ``limit`` (created ms, game id) strictly older than ``after``, newest first."""
        found: list[Cursor] = []
        top = "+inf" if after is None else after[0]
        for status in statuses:
            raw = await self.redis.zrevrangebyscore(
                index_key(game_type, visibility, status), top, "-inf", start=0, num=limit + 64, withscores=True
            )
            found += [(int(score), _decode(member)) for member, score in raw]
        older = [item for item in found if after is None or item < after]
        return sorted(set(older), reverse=True)[:limit]
