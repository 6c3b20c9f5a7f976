"""The listing of games: sorted sets per game type, visibility, status and shard.

``chaiwala:games:{<shard tag>}:<type>:<visibility>:<status>`` holds the ids of one attention
shard's games (:mod:`services.common.attention`), scored by creation time (Unix ms), so
``GET /v1/games`` pages newest first with ``ZREVRANGEBYSCORE`` over the shards (one pipelined
round trip) and never scans keys.  A game's sets share the Redis Cluster slot of its own keys,
so the step that changes its status moves it between the sets in the same atomic step: the
creation transaction, the commit script that ends it and the abort script
(:mod:`services.games.scripts`); the lobby's start files it right after its own script.

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

from services.common.attention import SHARD_COUNT, SHARD_TAGS, shard_of
from services.retention.policy import note_ended

STATUSES = ("waiting", "active", "finished", "aborted")
Cursor = tuple[int, str]


class BadPageToken(ValueError):
    """A page token we did not hand out."""


def index_key(game_type: str, visibility: str, status: str, shard: int) -> str:
    """The sorted set of one game type, visibility, status and shard."""
    return f"chaiwala:games:{{{SHARD_TAGS[shard]}}}:{game_type}:{visibility}:{status}"


def status_keys(game_id: str, game_type: str, visibility: str) -> list[str]:
    """The sets a game may be filed in, one per status in :data:`STATUSES` order (its shard's)."""
    shard = shard_of(game_id)
    return [index_key(game_type, visibility, status, shard) for status in STATUSES]


def legacy_index_key(game_type: str, visibility: str, status: str) -> str:
    """The unsharded set of releases before the sharded listing (moved by :mod:`services.games.legacy`)."""
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
        """File a game under its new status (and out of every other), in one atomic step."""
        async with self.redis.pipeline(transaction=True) as pipe:
            file_game(pipe, game_id, game_type, visibility, status, created_ms)
            await pipe.execute()

    async def forget(self, game_type: str, visibility: str, game_id: str) -> None:
        """Drop a game from every status of the listing (a deleted game)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            for key in status_keys(game_id, game_type, visibility):
                pipe.zrem(key, game_id)
            await pipe.execute()

    async def page(
        self, game_type: str, visibility: str, statuses: Sequence[str], limit: int, after: Cursor | None
    ) -> list[Cursor]:
        """Up to ``limit`` (created ms, game id) strictly older than ``after``, newest first."""
        top = "+inf" if after is None else after[0]
        async with self.redis.pipeline(transaction=False) as pipe:
            for status in statuses:
                for shard in range(SHARD_COUNT):
                    key = index_key(game_type, visibility, status, shard)
                    pipe.zrevrangebyscore(key, top, "-inf", start=0, num=limit + 64, withscores=True)
            answers = await pipe.execute()
        found = [(int(score), _decode(member)) for raw in answers for member, score in raw]
        older = [item for item in found if after is None or item < after]
        return sorted(set(older), reverse=True)[:limit]


def file_game(pipe: Any, game_id: str, game_type: str, visibility: str, status: str, created_ms: int) -> None:
    """Queue on ``pipe`` the listing's move of a game to ``status`` (and its retention clock's start)."""
    for other, key in zip(STATUSES, status_keys(game_id, game_type, visibility), strict=True):
        if other == status:
            pipe.zadd(key, {game_id: created_ms})
        else:
            pipe.zrem(key, game_id)
    note_ended(pipe, game_id, status, int(time.time() * 1000))
