"""Lobby changes to a waiting game, each one compare-and-set on the game's lobby revision.

Joins, leaves and kicks rewrite the seats; the start also writes the first
snapshot, the ``0-1`` stream entry (kind ``start``), the game's first attention,
its ``game.started`` outbox event (:mod:`services.outbox`) and its filing as an
active game (status, listing, active set: :data:`services.filing.store.FILING`), all in one script
on the game's slot, so two joins racing for the last seat can never both win and
a started game always has its work queued and its start announced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from services.clock import clock as clocks
from services.common.attention import keys_for_game, score_arg
from services.common.luaparts import Part, Script
from services.filing.keys import game_keys
from services.filing.store import FILING, filing_args, filing_keys
from services.games.records import GameMeta
from services.games.sealed import seal_for
from services.outbox import events as outbox_events
from services.outbox import stream as outbox_stream
from services.outbox import turns as outbox_turns
from services.outbox.stream import PART as OUTBOX_PART

# Seats change only if the lobby revision is still the one read.  Argument: that revision.
_GUARD = Part(
    "guard",
    ("meta",),
    """
local meta = redis.call('HMGET', K.meta, 'lobby_rev', 'status')
if not meta[2] then return {'missing', ''} end
if meta[2] ~= 'waiting' then return {'not_waiting', meta[2]} end
if tonumber(meta[1] or '0') ~= tonumber(take()) then return {'conflict', meta[1]} end
""",
)

# The metadata fields that change.  Arguments: their count, then name and value per field.
_SEATS = Part(
    "seats",
    ("meta",),
    """
local field_count = tonumber(take())
for _ = 1, field_count do
  local name = take()
  local value = take()
  redis.call('HSET', K.meta, name, value)
end
redis.call('HINCRBY', K.meta, 'lobby_rev', 1)
""",
)

# A start: the first snapshot, the log's ``0-1`` entry and the first attention.  Arguments: the
# snapshot ('' = not a start), the genesis hash, the set-up digest, the game id, its due time ('' = none).
_START = Part(
    "start",
    ("state", "events", "meta", "queue"),
    """
local snapshot = take()
local genesis = take()
local digest = take()
local start_game = take()
local due = take()
if snapshot ~= '' then
  redis.call('SET', K.state, snapshot)
  redis.call('XADD', K.events, '0-1', 'seat', '', 'bot', '', 'move', '', 'events', '[]', 'kind', 'start',
             'hash', genesis, 'digest', digest)
  redis.call('HSET', K.meta, 'log_head', genesis)
end
if due ~= '' then redis.call('ZADD', K.queue, due, start_game) end
""",
)

# The outbox carries a start's game.started; FILING makes a started game active (its status, its
# listing and the active set) in the same step, and leaves a game that still waits as it is.
_LOBBY_CAS = Script([_GUARD, _SEATS, _START, OUTBOX_PART, FILING, Part("answer", (), "return {'ok', ''}")])


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
        self._cas = client.register_script(_LOBBY_CAS.source)

    async def update(self, meta: GameMeta, fields: dict[str, Any], start: Start | None = None) -> None:
        """Write ``fields`` (JSON-encoded where not strings) if the seats are as in ``meta``."""
        _, state_key, events_key = game_keys(meta.game_id)
        queue, _ = keys_for_game(meta.game_id)
        seats: list[Any] = [len(fields)]
        for name, value in fields.items():
            seats += [name, value if isinstance(value, str | bytes) else orjson.dumps(value)]
        started = [seal_for(meta.game_id, "snapshot", start.snapshot), *start.genesis] if start else ["", "", ""]
        args = _LOBBY_CAS.args(
            {
                "guard": [meta.lobby_rev],
                "seats": seats,
                "start": [*started, meta.game_id, score_arg(start.attention_ms) if start else ""],
                "outbox": outbox_stream.lua_args(_started_events(meta, fields, start)),
                "filing": filing_args("active" if start else "waiting", meta.game_id),
            }
        )
        keys = _LOBBY_CAS.keys(
            {
                "state": state_key,
                "events": events_key,
                "queue": queue,
                "outbox": outbox_stream.outbox_key_for(meta.game_id),
                **filing_keys(meta.game_id, meta.visibility),
            }
        )
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
    now = clocks.now_ms()
    lifecycle = fields.get("lifecycle", {})
    turns = outbox_turns.turns_started(meta.game_id, meta.game_type, players, lifecycle.get("to_act", []), 0,
                                       lifecycle, now)  # fmt: skip
    return [outbox_events.game_started(meta.game_id, meta.game_type, players, now), *turns]
