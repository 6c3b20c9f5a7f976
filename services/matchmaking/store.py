"""Tickets, pools and forming groups in Redis, all under one hash tag (one Redis Cluster slot), so each
step below is one Lua script: atomic, and whole or not at all when a matchmaker dies.

* ``chaiwala:mm:{mm}:ticket:<id>``   – hash: ``record`` (the ticket's fixed part, JSON), ``status``
  (``searching``, ``forming`` inside a matchmaker, then ``matched``/``cancelled``/``expired``), ``pool``,
  ``game_id``, ``seat``, ``ended_ms``, ``group``; an ended ticket is kept ``ended_ttl`` seconds.
* ``chaiwala:mm:{mm}:pool:<pool>``   – sorted set: the pool's searching tickets by creation time.
* ``chaiwala:mm:{mm}:pools``         – hash: pool id -> its description, for pools with searching tickets.
* ``chaiwala:mm:{mm}:player:<id>``   – hash: pool id -> the player's searching ticket there (one per pool;
  its length is the player's count against the cap).
* ``chaiwala:mm:{mm}:mine:<id>``     – sorted set: the player's tickets by creation time (the newest 50).
* ``chaiwala:mm:{mm}:expiry``        – sorted set: searching tickets by expiry time.
* ``chaiwala:mm:{mm}:lease:<pool>``  – string: the matchmaker working on a pool now (expires by itself).
* ``chaiwala:mm:{mm}:forming``       – sorted set: groups taken from their pool whose game is being
  created, by the time another matchmaker may take the group over; ``...:group:<id>`` its record.
* ``chaiwala:mm:{mm}:recent:<id>``   – set: the players this player was just seated with.

One slot bounds the matchmaker's Redis work to one node of a cluster: see the operator guide's sizing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.common.store import register_scripts
from services.matchmaking.model import Forming, PoolSpec, Ticket

PREFIX = "chaiwala:mm:{mm}:"
POOLS = f"{PREFIX}pools"
EXPIRY = f"{PREFIX}expiry"
FORMING = f"{PREFIX}forming"
MINE_LIMIT = 50


def ticket_key(ticket_id: str) -> str:
    """A ticket's hash."""
    return f"{PREFIX}ticket:{ticket_id}"


def pool_key(pool_id: str) -> str:
    """A pool's searching tickets."""
    return f"{PREFIX}pool:{pool_id}"


def player_key(player_id: str) -> str:
    """A player's searching ticket per pool."""
    return f"{PREFIX}player:{player_id}"


def mine_key(player_id: str) -> str:
    """A player's tickets, newest last."""
    return f"{PREFIX}mine:{player_id}"


def lease_key(pool_id: str) -> str:
    """The lease on one pool."""
    return f"{PREFIX}lease:{pool_id}"


def group_key(group_id: str) -> str:
    """A forming group's record."""
    return f"{PREFIX}group:{group_id}"


def recent_key(player_id: str) -> str:
    """The players one player was just seated with."""
    return f"{PREFIX}recent:{player_id}"


# KEYS: ticket, pool, pools, player, mine, expiry.  ARGV: id, record, pool id, pool description,
# created ms, expires ms, cap, mine limit.  -> {"ok"|"ticket_exists"|"too_many_tickets", ticket id}
CREATE = """
local held = redis.call('HGET', KEYS[4], ARGV[3])
if held then return {'ticket_exists', held} end
if redis.call('HLEN', KEYS[4]) >= tonumber(ARGV[7]) then return {'too_many_tickets', ''} end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', 'searching', 'pool', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -1 - tonumber(ARGV[8]))
redis.call('ZADD', KEYS[6], ARGV[6], ARGV[1])
return {'ok', ARGV[1]}
"""

# KEYS: ticket, pool, pools, player, expiry.  ARGV: id, pool id, new status, now ms, ended ttl s.
# Ends a searching ticket (cancelled or expired); -> its status after (unchanged when not searching).
END = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'searching' then return status or '' end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'ended_ms', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('ZCARD', KEYS[2]) == 0 then redis.call('HDEL', KEYS[3], ARGV[2]) end
if redis.call('HGET', KEYS[4], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[4], ARGV[2]) end
redis.call('ZREM', KEYS[5], ARGV[1])
return ARGV[3]
"""

# KEYS: group, forming, pool, pools, then each ticket.  ARGV: group id, group record, take-over ms, pool id,
# then each ticket id.  Takes every ticket of the group out of its pool, or none (-> 0) when one is
# no longer searching there.
TAKE = """
for i = 5, #KEYS do
  if redis.call('HGET', KEYS[i], 'status') ~= 'searching' then return 0 end
  if not redis.call('ZSCORE', KEYS[3], ARGV[i]) then return 0 end
end
for i = 5, #KEYS do
  redis.call('HSET', KEYS[i], 'status', 'forming', 'group', ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[i])
end
if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('HDEL', KEYS[4], ARGV[4]) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

# KEYS: group, forming, expiry, then per ticket: ticket, player, recent.  ARGV: group id, game id,
# now ms, ended ttl s, recent ttl s, pool id, then per ticket: id, seat, player id.
# Seats a forming group in its game (once: -> 0 when the group is gone).
SEAT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = (#KEYS - 3) / 3
for i = 0, n - 1 do
  local ticket, player, recent = KEYS[4 + 3 * i], KEYS[5 + 3 * i], KEYS[6 + 3 * i]
  local id, seat = ARGV[7 + 3 * i], ARGV[8 + 3 * i]
  redis.call('HSET', ticket, 'status', 'matched', 'game_id', ARGV[2], 'seat', seat, 'ended_ms', ARGV[3])
  redis.call('EXPIRE', ticket, ARGV[4])
  redis.call('ZREM', KEYS[3], id)
  if redis.call('HGET', player, ARGV[6]) == id then redis.call('HDEL', player, ARGV[6]) end
  for j = 0, n - 1 do
    if j ~= i then redis.call('SADD', recent, ARGV[9 + 3 * j]) end
  end
  if n > 1 then redis.call('EXPIRE', recent, ARGV[5]) end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: group, forming, expiry, then per ticket: ticket, player.  ARGV: group id, now ms, ended ttl s,
# pool id, then each ticket id.  Cancels a forming group whose game the rules service refused.
DROP = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 0, (#KEYS - 3) / 2 - 1 do
  local ticket, player, id = KEYS[4 + 2 * i], KEYS[5 + 2 * i], ARGV[5 + i]
  redis.call('HSET', ticket, 'status', 'cancelled', 'ended_ms', ARGV[2])
  redis.call('EXPIRE', ticket, ARGV[3])
  redis.call('ZREM', KEYS[3], id)
  if redis.call('HGET', player, ARGV[4]) == id then redis.call('HDEL', player, ARGV[4]) end
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# KEYS: forming.  ARGV: now ms, new take-over ms.  -> the id of one group past its take-over time, now
# held for the new period ("" when none).
RECLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then return '' end
redis.call('ZADD', KEYS[1], ARGV[2], due[1])
return due[1]
"""

# KEYS: lease.  ARGV: owner.  Gives a pool's lease back (only the owner's).
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class TicketStore:
    """The matchmaking keys of one Redis (cluster or not)."""

    def __init__(self, redis: Any, ended_ttl_s: int = 24 * 3600, recent_ttl_s: int = 900) -> None:
        self.redis = redis
        self.ended_ttl_s = ended_ttl_s
        self.recent_ttl_s = recent_ttl_s
        self._create, self._end, self._take, self._seat, self._reclaim, self._release, self._drop = register_scripts(
            redis, CREATE, END, TAKE, SEAT, RECLAIM, RELEASE, DROP
        )

    async def create(self, ticket: Ticket, cap: int) -> tuple[str, str]:
        """Store a searching ticket: ``("ok", id)``, or the refusal and the ticket already held."""
        pool_id = ticket.pool_id
        keys = [ticket_key(ticket.ticket_id), pool_key(pool_id), POOLS, player_key(ticket.player_id),
                mine_key(ticket.player_id), EXPIRY]  # fmt: skip
        args = [ticket.ticket_id, ticket.record(), pool_id, ticket.pool.to_json(), ticket.created_ms,
                ticket.expires_ms, cap, MINE_LIMIT]  # fmt: skip
        outcome, held = await self._create(keys=keys, args=args)
        return _text(outcome), _text(held)

    async def get(self, ticket_id: str) -> Ticket | None:
        """A ticket as stored (``None`` when unknown or forgotten)."""
        raw = await self.redis.hgetall(ticket_key(ticket_id))
        if not raw:
            return None
        return Ticket.from_fields({_text(k): _text(v) for k, v in raw.items()})

    async def many(self, ticket_ids: Sequence[str]) -> list[Ticket]:
        """The tickets that still exist, in the order asked."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for ticket_id in ticket_ids:
                pipe.hgetall(ticket_key(ticket_id))
            rows = await pipe.execute() if ticket_ids else []
        return [Ticket.from_fields({_text(k): _text(v) for k, v in row.items()}) for row in rows if row]

    async def end(self, ticket: Ticket, status: str, now_ms: int) -> str:
        """End a searching ticket as ``status``; the ticket's status after."""
        pool_id = ticket.pool_id
        keys = [ticket_key(ticket.ticket_id), pool_key(pool_id), POOLS, player_key(ticket.player_id), EXPIRY]
        return _text(await self._end(keys=keys, args=[ticket.ticket_id, pool_id, status, now_ms, self.ended_ttl_s]))

    async def mine(self, player_id: str) -> list[Ticket]:
        """A player's tickets, newest first."""
        ids = [_text(i) for i in await self.redis.zrevrange(mine_key(player_id), 0, MINE_LIMIT - 1)]
        return await self.many(ids)

    async def searching_count(self, pool_id: str) -> int:
        """How many tickets search in a pool now."""
        return int(await self.redis.zcard(pool_key(pool_id)))

    async def pools(self) -> dict[str, PoolSpec]:
        """Every pool with searching tickets."""
        raw = await self.redis.hgetall(POOLS)
        return {_text(k): PoolSpec.from_json(v) for k, v in raw.items()}

    async def pool_ids(self, pool_id: str, window: int) -> list[str]:
        """The ids of the pool's oldest ``window`` tickets, oldest first (a pool holds searching tickets only)."""
        return [_text(i) for i in await self.redis.zrange(pool_key(pool_id), 0, window - 1)]

    async def due_expiries(self, now_ms: int, limit: int = 200) -> list[str]:
        """Tickets past their expiry time."""
        return [_text(i) for i in await self.redis.zrangebyscore(EXPIRY, "-inf", now_ms, start=0, num=limit)]

    async def recent(self, player_ids: Sequence[str]) -> dict[str, frozenset[str]]:
        """Whom each player was just seated with."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.smembers(recent_key(player_id))
            rows = await pipe.execute() if player_ids else []
        return {p: frozenset(_text(m) for m in row) for p, row in zip(player_ids, rows, strict=True) if row}

    async def lease(self, pool_id: str, owner: str, lease_ms: int) -> bool:
        """Hold a pool for ``lease_ms`` unless another matchmaker holds it."""
        return bool(await self.redis.set(lease_key(pool_id), owner, nx=True, px=lease_ms))

    async def release(self, pool_id: str, owner: str) -> None:
        """Give a pool's lease back."""
        await self._release(keys=[lease_key(pool_id)], args=[owner])

    async def take(self, forming: Forming, takeover_ms: int) -> bool:
        """Take a group's tickets out of their pool atomically (``False``: one was gone, nothing taken)."""
        keys = [group_key(forming.group_id), FORMING, pool_key(forming.pool_id), POOLS,
                *(ticket_key(i) for i in forming.ticket_ids)]  # fmt: skip
        args = [forming.group_id, forming.to_json(), takeover_ms, forming.pool_id, *forming.ticket_ids]
        return bool(await self._take(keys=keys, args=args))

    async def seat(self, forming: Forming, tickets: Sequence[Ticket], game_id: str, now_ms: int) -> bool:
        """Mark a group's tickets matched in ``game_id`` at their seats (``False``: already done)."""
        keys = [group_key(forming.group_id), FORMING, EXPIRY]
        args: list[Any] = [forming.group_id, game_id, now_ms, self.ended_ttl_s, self.recent_ttl_s, forming.pool_id]
        for ticket in tickets:
            keys += [ticket_key(ticket.ticket_id), player_key(ticket.player_id), recent_key(ticket.player_id)]
            args += [ticket.ticket_id, forming.seats.index(ticket.ticket_id), ticket.player_id]
        return bool(await self._seat(keys=keys, args=args))

    async def drop(self, forming: Forming, tickets: Sequence[Ticket], now_ms: int) -> bool:
        """Cancel a forming group's tickets (its game was refused for good)."""
        keys = [group_key(forming.group_id), FORMING, EXPIRY]
        for ticket in tickets:
            keys += [ticket_key(ticket.ticket_id), player_key(ticket.player_id)]
        args = [forming.group_id, now_ms, self.ended_ttl_s, forming.pool_id, *(t.ticket_id for t in tickets)]
        return bool(await self._drop(keys=keys, args=args))

    async def reclaim(self, now_ms: int, takeover_ms: int) -> Forming | None:
        """A forming group whose matchmaker is gone, now held by the caller (``None`` when none)."""
        group_id = _text(await self._reclaim(keys=[FORMING], args=[now_ms, takeover_ms]))
        if not group_id:
            return None
        raw = await self.redis.get(group_key(group_id))
        if raw is None:
            await self.redis.zrem(FORMING, group_id)
            return None
        return Forming.from_json(raw)

    async def forming_count(self) -> int:
        """Groups whose game is being created."""
        return int(await self.redis.zcard(FORMING))
