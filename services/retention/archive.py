"""Compaction: an ended game's full log becomes its replay record, compressed.

A compacted game keeps its ``meta`` hash (status, players, seed and fairness fields, result, log
head: what the listing, ``GET /v1/games/{id}`` and the replay read), marked ``archived`` = ``1``,
and gains ``game:{G}:archive``: zlib-compressed JSON of every log entry without its events —
version, seat, bot, move, kind, state digest, and the first entry's chain hash (the later ones
are derived again when read): what the replay serves and ``chaiwala verify`` recomputes (the
events are the engine's to recompute from the moves).

The snapshot stays under ``game:{G}:state``, zlib-compressed (``GET /v1/games/{id}`` still shows the
final position); the event stream is deleted.  Event listings of a compacted game answer
``game_compacted`` (410): its replay remains.  In ``delete`` mode every key of the game goes, and the
game leaves the listing.

The write is one script over the game's own slot, guarded by the version read, so a conductor
that compacts a game another conductor compacted (or that changed since) writes nothing.  The
same script takes the game off its shard's retention index (which shares the game's slot, as the
commit that put it there does), so no reader ever sees a compacted game still due.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import orjson

from services.common import errors
from services.common.store import GameNotFound
from services.fairness import chain
from services.filing.keys import game_keys, game_type_of
from services.filing.store import GameIndex, ended_key_for, ended_keys, is_ended
from services.games.records import GameMeta, LogEntry
from services.games.store import GameStore

COMPRESSION_LEVEL = 6

# KEYS: meta, state, events, archive, retention index.  ARGV: version read, compressed entries,
# compressed snapshot, game id.  A game that changed since it was read stays on the index.
_COMPACT = """
local meta = redis.call('HMGET', KEYS[1], 'version', 'archived', 'status')
if not meta[1] or meta[2] == '1' then
  redis.call('ZREM', KEYS[5], ARGV[4])
  if not meta[1] then return 'missing' end
  return 'done'
end
if meta[1] ~= ARGV[1] or (meta[3] ~= 'finished' and meta[3] ~= 'aborted') then return 'changed' end
redis.call('HSET', KEYS[1], 'archived', '1')
redis.call('SET', KEYS[4], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
redis.call('DEL', KEYS[3])
redis.call('ZREM', KEYS[5], ARGV[4])
return 'ok'
"""


@dataclass(frozen=True)
class Outcome:
    """What one retention step did to one game: ``compacted``, ``deleted``, or why not."""

    game_id: str
    action: str


def archive_key(game_id: str) -> str:
    """The compressed replay record of a compacted game (in the game's slot)."""
    return f"game:{{{game_id}}}:archive"


def pack_entries(entries: list[LogEntry]) -> bytes:
    """The archive field: every entry's replay fields, compressed.

    Only the first entry keeps its chain hash (the genesis): every later one is derived from the
    previous hash and the entry's own fields (:func:`services.fairness.chain.link`), so storing it
    would cost 32 incompressible bytes per move for nothing.  Archives written before keep every
    hash, and are read as they are.
    """
    rows = [[e.version, e.seat, e.bot, e.move, e.kind, e.hash if i == 0 else None, e.state_digest]
            for i, e in enumerate(entries)]  # fmt: skip
    return zlib.compress(orjson.dumps(rows), COMPRESSION_LEVEL)


def unpack_entries(game_type: str, archive: bytes) -> list[LogEntry]:
    """The entries of an archive field (without events), with the chain hashes it left out re-derived."""
    entries, previous = [], ""
    for v, seat, bot, move, kind, chain_hash, digest in orjson.loads(zlib.decompress(archive)):
        if chain_hash is None:
            move_digest = chain.message_digest(game_type, "Move", move) if move is not None else ""
            chain_hash = chain.link(previous, v, seat, kind, move_digest, digest)
        entries.append(LogEntry(seat, bot, move, [], kind=kind, state_digest=digest, hash=chain_hash, version=v))
        previous = chain_hash
    return entries


async def archived_entries(store: GameStore, game_id: str) -> list[LogEntry]:
    """Every log entry of a compacted game, creation included (events empty)."""
    raw: Any = await store.redis.get(archive_key(game_id))
    if raw is None:
        raise GameNotFound(game_id)
    return unpack_entries(game_type_of(game_id), raw)


def refuse_events(meta: GameMeta) -> None:
    """Event listings of a compacted game: its events are gone, its replay remains (410 over REST)."""
    if meta.archived:
        raise errors.illegal("game_compacted", "this game's event log was compacted; its replay remains")


async def replay_entries(store: GameStore, meta: GameMeta) -> list[LogEntry]:
    """The log entries a replay serves, whether or not the game was compacted."""
    if meta.archived:
        return await archived_entries(store, meta.game_id)
    return await store.entries(meta.game_id, -1)


async def compact(store: GameStore, game_id: str) -> Outcome:
    """Replace an ended game's stream by its compressed replay record, compress its snapshot and
    take it off the retention index, in one step (a missing or compacted game only leaves the index)."""
    try:
        meta, snapshot = await store.load(game_id)
    except GameNotFound:
        return await _compact(store, game_id, ["", b"", b""])
    if meta.archived:
        return await _compact(store, game_id, ["", b"", b""])
    if not is_ended(meta.status):
        return Outcome(game_id, "changed")
    entries = await store.entries(game_id, -1)
    return await _compact(
        store, game_id, [meta.version, pack_entries(entries), zlib.compress(snapshot, COMPRESSION_LEVEL)]
    )


async def _compact(store: GameStore, game_id: str, args: list[Any]) -> Outcome:
    script = store.redis.register_script(_COMPACT)
    answer = await script(
        keys=[*game_keys(game_id), archive_key(game_id), ended_key_for(game_id)], args=[*args, game_id]
    )
    return Outcome(game_id, "compacted" if _text(answer) == "ok" else _text(answer))


async def delete(store: GameStore, game_id: str) -> Outcome:
    """Remove every key of an ended game, its place in the listing and on the retention index."""
    try:
        meta = await store.meta(game_id)
    except GameNotFound:
        await store.redis.zrem(ended_key_for(game_id), game_id)
        return Outcome(game_id, "missing")
    if not is_ended(meta.status):
        return Outcome(game_id, "changed")
    await GameIndex(store.redis).forget(meta.game_type, meta.visibility, game_id)
    # The keys and the index entry share the game's slot: gone together.
    async with store.redis.pipeline(transaction=True) as pipe:
        pipe.delete(*game_keys(game_id), archive_key(game_id))
        pipe.zrem(ended_key_for(game_id), game_id)
        await pipe.execute()
    return Outcome(game_id, "deleted")


async def due_games(store: GameStore, now_ms: int, full_log_ms: int, limit: int) -> list[str]:
    """Ended games whose full-log time is over, oldest first."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for key in ended_keys():
            pipe.zrangebyscore(key, "-inf", now_ms - full_log_ms, start=0, num=limit, withscores=True)
        answers: Any = await pipe.execute()
    due = sorted((score, _text(member)) for raw in answers for member, score in raw)
    return [game_id for _, game_id in due[:limit]]


async def apply_policy(store: GameStore, game_id: str, mode: str) -> Outcome:
    """Compact or delete one due game; either takes it off the retention index."""
    if mode == "delete":
        return await delete(store, game_id)
    return await compact(store, game_id)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
