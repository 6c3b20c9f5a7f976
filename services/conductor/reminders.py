"""The conductor's turn reminders: ``turn.reminder`` facts written when a claimed game has one due.

The schedule is the clock's (:mod:`services.clock.reminders`); the game's attention time already
includes its next reminder, so the conductor claims the game then.  The fact is written only if
the game is still at the version the reminder was computed from (a move since then started
another turn, which has its own ``turn.started``): one small script, in the game's slot, beside
the outbox part every commit uses.
"""

from __future__ import annotations

from typing import Any

from services.clock import clock as clocks
from services.clock.reminders import due_reminders
from services.common.luaparts import Part, Script
from services.conductor import metrics
from services.filing.keys import game_keys
from services.games.records import GameMeta
from services.outbox import stream as outbox_stream
from services.outbox import turns

# Argument: the version the reminders were computed from.
_GUARD = Part(
    "guard",
    ("meta",),
    """
local reminded_version = take()
local meta = redis.call('HMGET', K.meta, 'version', 'status')
if meta[1] ~= reminded_version or meta[2] ~= 'active' then return 0 end
""",
)
REMIND = Script([_GUARD, outbox_stream.PART, Part("answer", (), "return 1")])


async def remind(redis: Any, meta: GameMeta, lifecycle: dict[str, Any], to_act: list[int]) -> int:
    """Write the reminders due now for ``meta`` (its ``lifecycle`` as stored); how many were written."""
    now = clocks.now_ms()
    due = due_reminders(lifecycle.get("clock"), now, to_act)
    events = [turns.reminder(meta, item, now) for item in due]
    if not events:
        return 0
    meta_key, _, _ = game_keys(meta.game_id)
    keys = REMIND.keys({"meta": meta_key, "outbox": outbox_stream.outbox_key_for(meta.game_id)})
    args = REMIND.args({"guard": [str(meta.version)], "outbox": outbox_stream.lua_args(events)})
    written = await redis.eval(REMIND.source, len(keys), *keys, *args)
    if not written:
        return 0
    metrics.REMINDERS.labels(meta.game_type).inc(len(events))
    return len(events)
