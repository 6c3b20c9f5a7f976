"""Lobby changes to a waiting game, each one compare-and-set on the game's lobby revision.

Joins, leaves and kicks rewrite the seats; the start also writes the first
snapshot, the ``0-1`` stream entry (kind ``start``), the game's first attention
and its ``game.started`` outbox event (:mod:`services.outbox`), all in one script
on the game's slot, so two joins racing for the last seat can never both win and
a started game always has its work queued and its start announced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from services.clock import clock as clocks
from services.common.attention import keys_for_game, score_arg
from services.games.records import GameMeta, game_keys
from services.outbox import events as outbox_events
from services.outbox import stream as outbox_stream

# KEYS: meta, state, events, attention queue, outbox shard.
# ARGV: expected lobby rev, snapshot ('' = none: not a start), attention ('' = none), game id, field count,
#       genesis hash, set-up digest (starts only), then field, value pairs,
#       then the outbox events (services.outbox.stream.lua_args; a start's game.started).
_LOBBY_CAS = (
    """
local meta = redis.call('HMGET', KEYS[1], 'lobby_rev', 'status')
if not meta[2] then return {'missing', ''} end
if meta[2] ~= 'waiting' then return {'not_waiting', meta[2]} end
if tonumber(meta[1] or '0') ~= tonumber(ARGV[1]) then return {'conflict', meta[1]} end
local count = tonumber(ARGV[5])
for i = 0, count - 1 do
  redis.call('HSET', KEYS[1], ARGV[8 + i * 2], ARGV[9 + i * 2])
end
redis.call('HINCRBY', KEYS[1], 'lobby_rev', 1)
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('XADD', KEYS[3], '0-1', 'seat', '', 'bot', '', 'move', '', 'events', '[]', 'kind', 'start',
             'hash', ARGV[6], 'digest', ARGV[7])
  redis.call('HSET', KEYS[1], 'status', 'active', 'log_head', ARGV[6])
end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[4], ARGV[3], ARGV[4]) end
"""
    + outbox_stream.lua_block("KEYS[5]", "8 + count * 2")
    + """
return {'ok', ''}
"""
)


class LobbyConflict(Exception):
    """The seats changed since they were read: read again and retry."""


class NotWaiting(Exception):
    """The game is no longer waiting for players."""

    def __init__(self, status: str) -> None:
        super().__init__(f"the game is {status}")
        self.status = status


@dataclass(frozen=True)
class Start:
    """What starting a game writes besides its seats."""

    snapshot: bytes
    attention_ms: int | None
    # The chain's first hash and the set-up snapshot's digest (services.fairness.chain).
    genesis: tuple[str, str] = ("", "")


def _decode(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class LobbyStore:
    """Compare-and-set updates of waiting games."""

    def __init__(self, client: Any) -> None:
        self._cas = client.register_script(_LOBBY_CAS)

    async def update(self, meta: GameMeta, fields: dict[str, Any], start: Start | None = None) -> None:
        """Write ``fields`` (JSON-encoded where not strings) if the seats are as in ``meta``."""
        meta_key, state_key, events_key = game_keys(meta.game_id)
        queue, _ = keys_for_game(meta.game_id)
        args: list[Any] = [
            meta.lobby_rev,
            start.snapshot if start else "",
            score_arg(start.attention_ms) if start else "",
            meta.game_id,
            len(fields),
            *(start.genesis if start else ("", "")),
        ]
        for name, value in fields.items():
            args += [name, value if isinstance(value, str | bytes) else orjson.dumps(value)]
        args += outbox_stream.lua_args(_started_events(meta, fields, start))
        keys = [meta_key, state_key, events_key, queue, outbox_stream.outbox_key_for(meta.game_id)]
        outcome, value = await self._cas(keys=keys, args=args)
        outcome = _decode(outcome)
        if outcome == "conflict":
            raise LobbyConflict(meta.game_id)
        if outcome != "ok":
            raise NotWaiting(_decode(value) or "gone")


def _started_events(meta: GameMeta, fields: dict[str, Any], start: Start | None) -> list[outbox_stream.OutboxEvent]:
    """A start's ``game.started`` (with the seats as renumbered for the start); nothing otherwise."""
    if start is None:
        return []
    players = fields.get("players", meta.players)
    return [outbox_events.game_started(meta.game_id, meta.game_type, players, clocks.now_ms())]
