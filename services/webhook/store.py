"""Webhook subscriptions and deliveries in Redis, all under one hash tag (one Redis Cluster slot).

* ``chaiwala:webhooks:{webhooks}:subs``         – hash: webhook id -> subscription JSON; its signing
  ``secret`` is sealed with the master key ring (:mod:`services.common.sealing`, bound to the webhook
  id), so a copy of Redis cannot sign deliveries (a secret stored before sealing is read as it is).
* ``chaiwala:webhooks:{webhooks}:deliveries``   – hash: delivery id -> delivery record JSON.
* ``chaiwala:webhooks:{webhooks}:log:<webhook>`` – sorted set: the subscription's deliveries by creation
  time (the delivery log; the oldest beyond :data:`LOG_LIMIT` are forgotten).
* ``chaiwala:webhooks:{webhooks}:due``          – sorted set: pending deliveries by due time (Unix ms);
  a dispatcher claims one by pushing its score to a lease expiry, as the conductor claims games.
* ``chaiwala:webhooks:{webhooks}:dead-letters`` – sorted set: the dead-letter list by time of death
  (bounded); a redelivery takes its letter off, so ``chaiwala_webhook_dead_letters`` follows it.
* ``chaiwala:webhooks:{webhooks}:lane:<webhook>:<game>`` – sorted set: one game's undelivered
  deliveries to one subscription by ``sequence``; only the first is in ``due`` (per-game order,
  see ``docs/concepts/webhooks-order.md``).  ``...:lanes:<webhook>`` – set: the games with a lane.

A delivery's id is derived from (event id, webhook id), so fanning one outbox event out twice
(a dispatcher died between fan-out and acknowledging the outbox) creates no second delivery.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from services.common.sealing import keyring, replace_if_unchanged
from services.common.store import register_scripts

TAG = "{webhooks}"
PREFIX = f"chaiwala:webhooks:{TAG}:"
SUBS = f"{PREFIX}subs"
DELIVERIES = f"{PREFIX}deliveries"
DUE = f"{PREFIX}due"
# A sorted set (id -> when it died), not the list of earlier versions (kept under ``:dead``, unread):
# a redelivery or a forgotten delivery leaves it in O(log n).
DEAD = f"{PREFIX}dead-letters"
LOG_LIMIT = 1000
DEAD_LIMIT = 10_000
RECENT_ATTEMPTS = 10
OPENED_LIMIT = 1000  # subscriptions whose opened secret a store keeps


def log_key(webhook_id: str) -> str:
    """The delivery log of one subscription."""
    return f"chaiwala:webhooks:{TAG}:log:{webhook_id}"


def delivery_id(event_id: str, webhook_id: str) -> str:
    """The stable ``webhook-id`` of one event's delivery to one subscription."""
    return "msg_" + hashlib.sha256(f"{event_id}|{webhook_id}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Subscription:
    """An operator's subscription: where to, which event types, the signing secret."""

    webhook_id: str
    url: str
    events: list[str]
    secret: str
    created_ms: int


@dataclass
class Delivery:
    """One event for one subscription, and how its attempts went."""

    delivery_id: str
    webhook_id: str
    event: dict[str, Any]
    created_ms: int
    status: str = "pending"
    attempts: int = 0
    # Start of the retry window (creation, or the last redeliver request).
    window_ms: int = 0
    next_ms: int = 0
    delivered_ms: int = 0
    recent: list[dict[str, Any]] = field(default_factory=list)
    # The game whose events this subscription gets in order ("" = an event of no game: no order).
    lane: str = ""

    def to_json(self) -> bytes:
        """The stored record (orjson writes a dataclass as ``asdict`` would, some 60 times faster)."""
        return orjson.dumps(self)

    @classmethod
    def from_json(cls, raw: bytes | str) -> Delivery:
        """A stored record."""
        return cls(**orjson.loads(raw))

    def record_attempt(self, attempt: dict[str, Any]) -> None:
        """Count an attempt and keep it among the recent ones."""
        self.attempts += 1
        self.recent = [*self.recent, attempt][-RECENT_ATTEMPTS:]


# Lua shared by the scripts below.  A game's deliveries to one subscription wait in its lane (a
# sorted set by sequence); only the lane's head is in ``due``.  ``release`` takes a delivery out of
# its lane (delivered, dead-lettered or forgotten) and makes the next one due at once.  Lane keys
# are built here from the prefix, under the same hash tag as every key passed in (one slot).
_LANES = f"""
local PREFIX = '{PREFIX}'
local function lane_key(webhook, game) return PREFIX .. 'lane:' .. webhook .. ':' .. game end
local function lanes_key(webhook) return PREFIX .. 'lanes:' .. webhook end
local function release(due, webhook, game, id, now)
  if game == nil or game == '' or game == cjson.null then return end
  local lane = lane_key(webhook, game)
  if redis.call('ZREM', lane, id) == 0 then return end
  local next_id = redis.call('ZRANGE', lane, 0, 0)[1]
  if next_id then
    redis.call('ZADD', due, 'NX', now, next_id)
  else
    redis.call('SREM', lanes_key(webhook), game)
  end
end
local function forget(deliveries, due, dead, id, now)
  local record = redis.call('HGET', deliveries, id)
  redis.call('HDEL', deliveries, id)
  redis.call('ZREM', due, id)
  redis.call('ZREM', dead, id)
  if record then
    local item = cjson.decode(record)
    release(due, item.webhook_id, item.lane, id, now)
  end
end
"""

# KEYS: deliveries, due, log of the subscription, dead.  ARGV: now ms, log limit, webhook id, then
# per delivery: id, record, lane (game id, '' = none), sequence.  A delivery that exists already is
# left alone (the same event fanned out twice).  Returns the new ids.
_ENQUEUE = _LANES + """
local added = {}
local now = tonumber(ARGV[1])
for i = 4, #ARGV, 4 do
  local id, game = ARGV[i], ARGV[i + 2]
  if redis.call('HSETNX', KEYS[1], id, ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[3], now, id)
    if game == '' then
      redis.call('ZADD', KEYS[2], now, id)
    else
      local lane = lane_key(ARGV[3], game)
      if redis.call('ZCARD', lane) == 0 then redis.call('ZADD', KEYS[2], now, id) end
      redis.call('ZADD', lane, tonumber(ARGV[i + 3]), id)
      redis.call('SADD', lanes_key(ARGV[3]), game)
    end
    table.insert(added, id)
  end
end
local excess = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[2])
if excess > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[3], 0, excess - 1)) do
    forget(KEYS[1], KEYS[2], KEYS[4], old, now)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, excess - 1)
end
return added
"""

# KEYS: due, deliveries.  ARGV: now ms, lease-until ms, limit.  Returns id, record pairs.
_CLAIM = """
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))) do
  local record = redis.call('HGET', KEYS[2], id)
  if record then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    table.insert(out, id)
    table.insert(out, record)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
"""

# KEYS: deliveries, due, dead.  ARGV: id, record, due ms ('' = not pending), dead ('1'/'0'), dead
# limit, now ms, webhook id, lane.  Only for a delivery that still exists (its subscription may have
# been deleted meanwhile).  A delivery done with (delivered or dead) lets the next of its lane go.
_SAVE = _LANES + """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[1]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
if ARGV[4] == '1' then
  redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
  local excess = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[5])
  if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, excess - 1) end
end
if ARGV[3] == '' then release(KEYS[2], ARGV[7], ARGV[8], ARGV[1], tonumber(ARGV[6])) end
return 1
"""

# KEYS: deliveries, due, dead.  ARGV: id, record, now ms, webhook id, lane.  Off the dead-letter list
# and due now; a delivery still waiting in its lane behind an earlier one keeps waiting its turn.
_REDELIVER = _LANES + """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[5] ~= '' then
  local lane = lane_key(ARGV[4], ARGV[5])
  if redis.call('ZSCORE', lane, ARGV[1]) and redis.call('ZRANGE', lane, 0, 0)[1] ~= ARGV[1] then return 2 end
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""

# KEYS: subs, deliveries, due, log of the subscription, dead.  ARGV: webhook id.
_DELETE = _LANES + """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[5], id)
end
redis.call('DEL', KEYS[4])
for _, game in ipairs(redis.call('SMEMBERS', lanes_key(ARGV[1]))) do
  redis.call('DEL', lane_key(ARGV[1], game))
end
redis.call('DEL', lanes_key(ARGV[1]))
return 1
"""


def _context(webhook_id: str) -> str:
    """What a subscription's sealed secret is bound to."""
    return f"webhook-secret:{webhook_id}"


def _subscription(raw: bytes | str) -> Subscription:
    data = orjson.loads(raw)
    data["secret"] = keyring().open_text(str(data["secret"]), _context(str(data["webhook_id"])))
    return Subscription(**data)


def subscription_record(subscription: Subscription) -> bytes:
    """The stored form of a subscription: its JSON with the secret sealed."""
    sealed = keyring().seal_text(subscription.secret, _context(subscription.webhook_id))
    return orjson.dumps({**asdict(subscription), "secret": sealed})


async def reseal_subscriptions(redis: Any) -> int:
    """Seal every subscription's secret with the key ring's current key (``chaiwala secrets reseal``);
    the number rewritten (each a compare-and-set: a concurrent change wins)."""
    rewritten = 0
    for webhook_id, raw in (await redis.hgetall(SUBS)).items():
        rewritten += await replace_if_unchanged(redis, SUBS, webhook_id, raw, subscription_record(_subscription(raw)))
    return rewritten


class WebhookStore:
    """Subscriptions, deliveries, their due times and the dead-letter list."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._enqueue, self._claim, self._save, self._delete, self._redeliver = register_scripts(
            redis, _ENQUEUE, _CLAIM, _SAVE, _DELETE, _REDELIVER
        )
        self._opened: dict[bytes, Subscription] = {}  # stored record -> subscription (secret opened)

    def _open(self, raw: bytes | str) -> Subscription:
        """A stored subscription, its secret opened once per record rather than once per read (the
        dispatcher reads every subscription for every batch of events and delivery)."""
        key = raw if isinstance(raw, bytes) else raw.encode()
        found = self._opened.get(key)
        if found is None:
            if len(self._opened) >= OPENED_LIMIT:
                self._opened.clear()
            found = self._opened[key] = _subscription(raw)
        return found

    async def add_subscription(self, subscription: Subscription) -> None:
        """Store a new subscription."""
        await self.redis.hset(SUBS, subscription.webhook_id, subscription_record(subscription))

    async def subscriptions(self) -> list[Subscription]:
        """Every subscription, oldest first."""
        raw = await self.redis.hgetall(SUBS)
        return sorted((self._open(v) for v in raw.values()), key=lambda s: (s.created_ms, s.webhook_id))

    async def subscription(self, webhook_id: str) -> Subscription | None:
        """One subscription, if it exists."""
        raw = await self.redis.hget(SUBS, webhook_id)
        return None if raw is None else self._open(raw)

    async def subscriptions_of(self, webhook_ids: set[str]) -> dict[str, Subscription]:
        """The subscriptions of ``webhook_ids`` that still exist, by id (one round trip)."""
        order = sorted(webhook_ids)
        raw = await self.redis.hmget(SUBS, order) if order else []
        return {webhook_id: self._open(item) for webhook_id, item in zip(order, raw, strict=True) if item is not None}

    async def delete_subscription(self, webhook_id: str) -> bool:
        """Remove a subscription with its log and pending deliveries; ``False`` if there was none."""
        done = await self._delete(keys=[SUBS, DELIVERIES, DUE, log_key(webhook_id), DEAD], args=[webhook_id])
        return bool(done)

    async def enqueue(self, webhook_id: str, deliveries: list[Delivery], now_ms: int) -> list[Delivery]:
        """Add new deliveries for one subscription, due now or (a game's) once the earlier ones of
        their game are done with; return those that were new."""
        args: list[Any] = [now_ms, LOG_LIMIT, webhook_id]
        for item in deliveries:
            args += [item.delivery_id, item.to_json(), item.lane, int(item.event.get("sequence") or 0)]
        added = {
            item.decode() if isinstance(item, bytes) else str(item)
            for item in await self._enqueue(keys=[DELIVERIES, DUE, log_key(webhook_id), DEAD], args=args)
        }
        return [item for item in deliveries if item.delivery_id in added]

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[Delivery]:
        """Claim up to ``limit`` due deliveries until ``now_ms + lease_ms``."""
        raw = await self._claim(keys=[DUE, DELIVERIES], args=[now_ms, now_ms + lease_ms, limit])
        return [Delivery.from_json(raw[i + 1]) for i in range(0, len(raw), 2)]

    async def next_due(self) -> int | None:
        """When the earliest pending delivery is due (Unix ms; a claimed one's lease end), ``None`` if none."""
        first = await self.redis.zrange(DUE, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def save(self, delivery: Delivery, due_ms: int | None, now_ms: int, dead: bool = False) -> bool:
        """Write a delivery back: pending again at ``due_ms``, or done (``None``), or dead-lettered;
        a done one lets the next delivery of its game go."""
        args = [delivery.delivery_id, delivery.to_json(), "" if due_ms is None else due_ms, "1" if dead else "0"]
        args += [DEAD_LIMIT, now_ms, delivery.webhook_id, delivery.lane]
        done = await self._save(keys=[DELIVERIES, DUE, DEAD], args=args)
        return bool(done)

    async def redeliver(self, delivery: Delivery, now_ms: int) -> bool:
        """Queue ``delivery`` again (off the dead-letter list): due now, unless an earlier delivery
        of its game is still undone (then it keeps its place behind it); ``False`` if it is gone."""
        args = [delivery.delivery_id, delivery.to_json(), now_ms, delivery.webhook_id, delivery.lane]
        done = await self._redeliver(keys=[DELIVERIES, DUE, DEAD], args=args)
        return bool(done)

    async def delivery(self, delivery_id: str) -> Delivery | None:
        """One delivery record, if it is still kept."""
        raw = await self.redis.hget(DELIVERIES, delivery_id)
        return None if raw is None else Delivery.from_json(raw)

    async def log_page(self, webhook_id: str, offset: int, count: int) -> list[Delivery]:
        """Deliveries of one subscription, newest first, from ``offset``."""
        ids = await self.redis.zrevrange(log_key(webhook_id), offset, offset + count - 1)
        if not ids:
            return []
        records = await self.redis.hmget(DELIVERIES, ids)
        return [Delivery.from_json(r) for r in records if r is not None]

    async def counts(self) -> tuple[int, int]:
        """Deliveries due (or in flight) and dead letters kept (those waiting behind an earlier
        delivery of their game are not counted as due)."""
        return int(await self.redis.zcard(DUE)), int(await self.redis.zcard(DEAD))
