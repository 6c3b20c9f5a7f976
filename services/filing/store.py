"""Where a game is filed in Redis: its status, the listings, the active set and the retention index.

* **Listings**: ``chaiwala:games:{<shard tag>}:<type>:<visibility>:<status>`` holds the ids of one
  attention shard's games (:mod:`services.common.attention`), scored by creation time (Unix ms),
  so ``GET /v1/games`` pages newest first over the shards in one pipelined round trip and never
  scans keys.
* **Active set**: ``chaiwala:active:{<shard tag>}:<type>``, the active games of a type (metrics).
* **Retention index**: ``chaiwala:retention:{<shard tag>}:ended``, ended (finished or aborted)
  games still holding their full log, scored by when they ended (Unix ms).

Every one of these shares the Redis Cluster slot of the game's own keys, so the step that changes
a game's status moves it in all of them atomically: :data:`FILING` inside a script (the commit,
the status change, the lobby's start), :func:`file_game` inside a transaction (creation).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from services.common.attention import SHARD_COUNT, SHARD_TAGS, shard_of
from services.common.luaparts import Part
from services.filing.keys import game_keys, game_type_of

STATUSES = ("waiting", "active", "finished", "aborted")
ENDED_STATUSES = frozenset({"finished", "aborted"})
VISIBILITIES = ("public", "private")
# The one unsharded retention index of releases before the sharded one (moved by services.games.legacy).
LEGACY_ENDED_INDEX = "chaiwala:retention:ended"
Cursor = tuple[int, str]


def is_ended(status: str) -> bool:
    """Whether a game of this status can change no more (finished or aborted): the one spelling."""
    return status in ENDED_STATUSES


def index_key(game_type: str, visibility: str, status: str, shard: int) -> str:
    """The listing set of one game type, visibility, status and shard."""
    return f"chaiwala:games:{{{SHARD_TAGS[shard]}}}:{game_type}:{visibility}:{status}"


def status_keys(game_id: str, game_type: str, visibility: str) -> list[str]:
    """The sets a game may be filed in, one per status in :data:`STATUSES` order (its shard's)."""
    shard = shard_of(game_id)
    return [index_key(game_type, visibility, status, shard) for status in STATUSES]


def legacy_index_key(game_type: str, visibility: str, status: str) -> str:
    """The unsharded set of releases before the sharded listing (moved by :mod:`services.games.legacy`)."""
    return f"chaiwala:games:{game_type}:{visibility}:{status}"


def active_key(game_type: str, shard: int) -> str:
    """The set of active games of one type and attention shard."""
    return f"chaiwala:active:{{{SHARD_TAGS[shard]}}}:{game_type}"


def active_key_for(game_id: str) -> str:
    """The active set of a game's type and shard."""
    return active_key(game_type_of(game_id), shard_of(game_id))


def ended_key(shard: int) -> str:
    """The retention index of one shard."""
    return f"chaiwala:retention:{{{SHARD_TAGS[shard]}}}:ended"


def ended_key_for(game_id: str) -> str:
    """The retention index of a game's shard."""
    return ended_key(shard_of(game_id))


def ended_keys() -> list[str]:
    """Every shard's retention index."""
    return [ended_key(shard) for shard in range(SHARD_COUNT)]


_LISTINGS = ", ".join(f"{{'{status}', K.listing_{status}}}" for status in STATUSES)

# A game's status and where it is filed.  Arguments: the status, the game id.  Nothing happens
# when the game already has that status (a move of an active game files nothing).  Every key
# here is in the game's slot, so this runs inside the game's own scripts.
FILING = Part(
    "filing",
    ("meta", "active", *(f"listing_{status}" for status in STATUSES), "ended"),
    f"""
local filing_status = take()
local filing_game = take()
if redis.call('HGET', K.meta, 'status') ~= filing_status then
  redis.call('HSET', K.meta, 'status', filing_status)
  local created = redis.call('HGET', K.meta, 'created_ms') or '0'
  for _, listing in ipairs({{{_LISTINGS}}}) do
    if listing[1] == filing_status then redis.call('ZADD', listing[2], created, filing_game)
    else redis.call('ZREM', listing[2], filing_game) end
  end
  if filing_status == 'active' then
    redis.call('SADD', K.active, filing_game)
  elseif filing_status ~= 'waiting' then
    redis.call('SREM', K.active, filing_game)
    local now = redis.call('TIME')
    redis.call('ZADD', K.ended, 'NX', now[1] * 1000 + math.floor(now[2] / 1000), filing_game)
  end
end
""",
)


def filing_keys(game_id: str, visibility: str) -> dict[str, str]:
    """The keys :data:`FILING` names, for ``game_id`` listed as ``visibility``."""
    statuses = status_keys(game_id, game_type_of(game_id), visibility)
    named = {f"listing_{status}": key for status, key in zip(STATUSES, statuses, strict=True)}
    return {"meta": game_keys(game_id)[0], "active": active_key_for(game_id), **named, "ended": ended_key_for(game_id)}


def filing_args(status: str, game_id: str) -> list[str]:
    """The arguments :data:`FILING` takes: file ``game_id`` under ``status``."""
    return [status, game_id]


def file_game(pipe: Any, game_id: str, game_type: str, visibility: str, status: str, created_ms: int) -> None:
    """Queue on ``pipe`` the listing's move of a game to ``status`` (and its retention clock's start)."""
    for other, key in zip(STATUSES, status_keys(game_id, game_type, visibility), strict=True):
        if other == status:
            pipe.zadd(key, {game_id: created_ms})
        else:
            pipe.zrem(key, game_id)
    note_ended(pipe, game_id, status, int(time.time() * 1000))


def note_ended(pipe: Any, game_id: str, status: str, now_ms: int) -> None:
    """Queue the start of a game's retention clock on ``pipe`` when it ends (creation files it
    there; a script does it in :data:`FILING`)."""
    if status in ENDED_STATUSES:
        pipe.zadd(ended_key_for(game_id), {game_id: now_ms}, nx=True)


def _decode(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class GameIndex:
    """Read and update the listing sets."""

    def __init__(self, client: Any) -> None:
        self.redis = client

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
