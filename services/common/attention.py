"""The conductor's work queue: which games need attention, and from when.

A game needs attention when a bot (or a resigned seat, which a bot plays) is to act —
due now — or when a clocked seat is to act — due at its deadline.  The queue is a
sorted set of game ids scored by the due time (Unix ms), sharded in
``SHARD_COUNT`` shards.  Conductors claim due games by pushing their score to a
lease expiry (so a conductor killed mid-move loses nothing: once the lease runs
out, another conductor claims the game again) and remembering the claim in a
hash, which tells a later claimer that it *reclaimed* the work.

Every commit of a game (the Lua script in :mod:`services.games.store`) rewrites
the game's score (or removes it) and drops any claim in the same atomic step, so
a crash between commit and enqueue cannot lose work.  For that to work on Redis
Cluster too, the queue shard of a game must live in the game's own hash slot:
each shard's hash tag is chosen to hash to a fixed slot (spread evenly over the
16384 slots), and :func:`new_game_id` draws random ids until one falls in one of
those slots (about 1000 cheap CRC16 draws).  So all games live in
``SHARD_COUNT`` slots, which still spreads them over every master.

Claims across a Redis restart: a conductor whose Redis went away mid-claim cannot release
the claim, and Redis (with its AOF) comes back with the lease still on the game, so the
game would wait out the lease (30 s) although its conductor is back within a second.  So a
claim records the *epoch* it was made in, the ``run_id`` of the Redis server that took it
(new at every start of the server, never persisted), and every claim pass first makes the
claims of another epoch due at once: whichever conductor claims next (the same one, once it
reaches Redis again) takes the game over as a reclaim.  That is safe for the same reason a
lease running out is: every commit is checked against the version its work was computed
from, so a conductor that still finishes the old claim's work only has its commit refused.
On Redis Cluster the epoch is the node's that holds the shard, so a failover to a replica
voids that shard's claims too.  Claims from before epochs existed count as another epoch.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.crc import key_slot

from services.common.luaparts import Part

# Hash tags hashing to slots k * 1024 + 512 (k = 0..15): computed once, checked by a test.
SHARD_TAGS: tuple[str, ...] = (
    "q0.2257", "q1.8309", "q2.49778", "q3.15338", "q4.19859", "q5.3370", "q6.13636", "q7.68586",
    "q8.8293", "q9.69530", "q10.18534", "q11.13218", "q12.10860", "q13.5884", "q14.1185", "q15.557",
)  # fmt: skip
SHARD_COUNT = len(SHARD_TAGS)
_SHARD_OF_SLOT = {key_slot(tag.encode()): shard for shard, tag in enumerate(SHARD_TAGS)}
LEASE_MS = 30_000
# Published (best effort, after the commit) when a game became due now, so idle conductors
# wake at once instead of at their next poll; the queue, not this hint, is what is durable.
WAKE_CHANNEL = "chaiwala:attention:wake"
# An idle conductor sleeps until the earliest due game, but never longer than this: a commit that
# makes a game due sooner publishes on WAKE_CHANNEL, so no game waits for a sleep to end.
IDLE_WAIT_MS = 5_000

# The id of the running Redis server (a new one at every start, whatever it loaded from disk).
# A claim carries the epoch it was made in; see "Claims across a Redis restart" above.
_EPOCH = """
local epoch = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or ''
"""

# KEYS: queue, claims.  ARGV: now ms, lease-until ms, limit, owner.
# First makes claims of an earlier epoch due now (their owner lost Redis meanwhile), then claims.
# Returns a flat list: game id, '1' if that game was claimed before and never released.
_CLAIM = (
    _EPOCH
    + """
if epoch ~= '' then
  local held = redis.call('HGETALL', KEYS[2])
  for i = 1, #held, 2 do
    if string.sub(held[i + 1], -#epoch - 1) ~= ':' .. epoch then
      local score = redis.call('ZSCORE', KEYS[1], held[i])
      if score and tonumber(score) > tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], ARGV[1], held[i]) end
    end
  end
end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, game in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], game)
  local earlier = redis.call('HGET', KEYS[2], game)
  redis.call('HSET', KEYS[2], game, ARGV[4] .. ':' .. ARGV[2] .. ':' .. epoch)
  table.insert(out, game)
  table.insert(out, earlier and '1' or '0')
end
return out
"""
)

# KEYS: queue, claims.  ARGV: game, lease-until ms (the claim's), new score ('' = none), owner.
# Only if the claim is still this one (nobody committed or reclaimed since): set the new score.
_RELEASE = """
local claim = redis.call('HGET', KEYS[2], ARGV[1])
local mine = ARGV[4] .. ':' .. ARGV[2] .. ':'
if not claim or string.sub(claim, 1, #mine) ~= mine then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


def shard_of(game_id: str) -> int:
    """The queue shard of a game (the one sharing its hash slot); 0 for ids from before sharding."""
    return _SHARD_OF_SLOT.get(key_slot(game_id.encode()), 0)


def queue_key(shard: int) -> str:
    """The sorted set of games due, of one shard."""
    return f"chaiwala:attention:{{{SHARD_TAGS[shard]}}}"


def claims_key(shard: int) -> str:
    """The hash of games claimed by a conductor and not released yet, of one shard."""
    return f"chaiwala:claims:{{{SHARD_TAGS[shard]}}}"


def keys_for_game(game_id: str) -> tuple[str, str]:
    """Queue and claims keys of the game's shard (same slot as the game's own keys)."""
    shard = shard_of(game_id)
    return queue_key(shard), claims_key(shard)


def new_game_id(game_type: str) -> str:
    """A fresh, URL-safe game id naming its type, whose hash slot is one of the queue shards'."""
    while True:
        game_id = f"{game_type}-{secrets.token_hex(12)}"
        if key_slot(game_id.encode()) in _SHARD_OF_SLOT:
            return game_id


async def wake_conductors(client: Any, due_ms: int | None, now_ms: int) -> None:
    """Nudge idle conductors when a game is due before their longest sleep ends (a lost nudge costs
    at most :data:`IDLE_WAIT_MS`); a game due later is found by the next idle look."""
    if due_ms is not None and due_ms <= now_ms + IDLE_WAIT_MS:
        await client.publish(WAKE_CHANNEL, b"")


def score_arg(due_ms: int | None) -> str:
    """The commit script's attention argument: a due time, or '' for none."""
    return "" if due_ms is None else str(due_ms)


# The script part that sets a game's next attention: its claim goes (the step that needed it is
# done) and it is queued at its due time, or dequeued ('' = none).  Arguments: game id, score_arg.
ATTENTION_PART = Part(
    "attention",
    ("queue", "claims"),
    """
local attention_game = take()
local attention_due = take()
redis.call('HDEL', K.claims, attention_game)
if attention_due == '' then redis.call('ZREM', K.queue, attention_game)
else redis.call('ZADD', K.queue, attention_due, attention_game) end
""",
)


def attention_script_keys(game_id: str) -> dict[str, str]:
    """The keys :data:`ATTENTION_PART` names, for ``game_id``."""
    queue, claims = keys_for_game(game_id)
    return {"queue": queue, "claims": claims}


@dataclass(frozen=True)
class Claim:
    """A game a conductor claimed, until ``lease_ms``."""

    game_id: str
    lease_ms: int
    reclaimed: bool


def _decode(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class AttentionQueue:
    """Claim and release games that need a conductor."""

    def __init__(self, client: Any, owner: str, lease_ms: int = LEASE_MS) -> None:
        self.redis = client
        self.owner = owner
        self.lease_ms = lease_ms
        self._claim = client.register_script(_CLAIM)
        self._release = client.register_script(_RELEASE)

    async def claim(self, shard: int, now_ms: int, limit: int) -> list[Claim]:
        """Claim up to ``limit`` games of ``shard`` due by ``now_ms``."""
        lease = now_ms + self.lease_ms
        raw: Sequence[Any] = await self._claim(
            keys=[queue_key(shard), claims_key(shard)], args=[now_ms, lease, limit, self.owner]
        )
        items = [_decode(item) for item in raw]
        return [Claim(items[i], lease, items[i + 1] == "1") for i in range(0, len(items), 2)]

    async def release(self, claim: Claim, due_ms: int | None) -> bool:
        """Give a claimed game back with its next due time, unless a commit already did."""
        queue, claims = keys_for_game(claim.game_id)
        done = await self._release(
            keys=[queue, claims], args=[claim.game_id, claim.lease_ms, score_arg(due_ms), self.owner]
        )
        return bool(done)

    async def depth(self, now_ms: int) -> tuple[int, int]:
        """Games due now over every shard, and the lag (ms) of the oldest one (0 if none)."""
        pipe = self.redis.pipeline(transaction=False)  # one round trip (per node on a cluster)
        for shard in range(SHARD_COUNT):
            pipe.zcount(queue_key(shard), "-inf", now_ms)
            pipe.zrange(queue_key(shard), 0, 0, withscores=True)
        answers = await pipe.execute()
        due = sum(int(count) for count in answers[0::2])
        oldest = [first[0][1] for first in answers[1::2] if first and first[0][1] <= now_ms]
        return due, int(now_ms - min(oldest)) if oldest else 0

    async def next_due(self) -> int | None:
        """The earliest score over every shard (ms: a due time or a claim's lease end), ``None`` if empty."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(SHARD_COUNT):
            pipe.zrange(queue_key(shard), 0, 0, withscores=True)
        scores = [first[0][1] for first in await pipe.execute() if first]
        return int(min(scores)) if scores else None
