"""Webhook subscriptions and deliveries in Redis, all under one hash tag (one Redis Cluster slot).

* ``chaiwala:webhooks:{webhooks}:subs``         – hash: webhook id -> subscription JSON (secret included).
* ``chaiwala:webhooks:{webhooks}:deliveries``   – hash: delivery id -> delivery record JSON.
* ``chaiwala:webhooks:{webhooks}:log:<webhook>`` – sorted set: the subscription's deliveries by creation
  time (the delivery log; the oldest beyond :data:`LOG_LIMIT` are forgotten).
* ``chaiwala:webhooks:{webhooks}:due``          – sorted set: pending deliveries by due time (Unix ms);
  a dispatcher claims one by pushing its score to a lease expiry, as the conductor claims games.
* ``chaiwala:webhooks:{webhooks}:dead``         – list: the dead-letter list (newest first, bounded).

A delivery's id is derived from (event id, webhook id), so fanning one outbox event out twice
(a dispatcher died between fan-out and acknowledging the outbox) creates no second delivery.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

TAG = "{webhooks}"
SUBS = f"chaiwala:webhooks:{TAG}:subs"
DELIVERIES = f"chaiwala:webhooks:{TAG}:deliveries"
DUE = f"chaiwala:webhooks:{TAG}:due"
DEAD = f"chaiwala:webhooks:{TAG}:dead"
LOG_LIMIT = 1000
DEAD_LIMIT = 10_000
RECENT_ATTEMPTS = 10


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

    def to_json(self) -> bytes:
        """The stored record."""
        return orjson.dumps(asdict(self))

    @classmethod
    def from_json(cls, raw: bytes | str) -> Delivery:
        """A stored record."""
        return cls(**orjson.loads(raw))

    def record_attempt(self, attempt: dict[str, Any]) -> None:
        """Count an attempt and keep it among the recent ones."""
        self.attempts += 1
        self.recent = [*self.recent, attempt][-RECENT_ATTEMPTS:]


# KEYS: deliveries, due, log of the subscription.  ARGV: now ms, log limit, then per delivery: id, record.
# A delivery that exists already is left alone (the same event fanned out twice).  Returns the new ids.
_ENQUEUE = """
local added = {}
for i = 3, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[2], ARGV[1], ARGV[i])
    redis.call('ZADD', KEYS[3], ARGV[1], ARGV[i])
    table.insert(added, ARGV[i])
  end
end
local excess = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[2])
if excess > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[3], 0, excess - 1)) do
    redis.call('HDEL', KEYS[1], old)
    redis.call('ZREM', KEYS[2], old)
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

# KEYS: deliveries, due, dead.  ARGV: id, record, due ms ('' = not pending), dead ('1'/'0'), dead limit.
# Only for a delivery that still exists (its subscription may have been deleted meanwhile).
_SAVE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('ZREM', KEYS[2], ARGV[1]) else redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
if ARGV[4] == '1' then
  redis.call('LPUSH', KEYS[3], ARGV[1])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
end
return 1
"""

# KEYS: subs, deliveries, due, log of the subscription.  ARGV: webhook id.
_DELETE = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
redis.call('DEL', KEYS[4])
return 1
"""


def _subscription(raw: bytes | str) -> Subscription:
    return Subscription(**orjson.loads(raw))


class WebhookStore:
    """Subscriptions, deliveries, their due times and the dead-letter list."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._enqueue = redis.register_script(_ENQUEUE)
        self._claim = redis.register_script(_CLAIM)
        self._save = redis.register_script(_SAVE)
        self._delete = redis.register_script(_DELETE)

    async def add_subscription(self, subscription: Subscription) -> None:
        """Store a new subscription."""
        await self.redis.hset(SUBS, subscription.webhook_id, orjson.dumps(asdict(subscription)))

    async def subscriptions(self) -> list[Subscription]:
        """Every subscription, oldest first."""
        raw = await self.redis.hgetall(SUBS)
        return sorted((_subscription(v) for v in raw.values()), key=lambda s: (s.created_ms, s.webhook_id))

    async def subscription(self, webhook_id: str) -> Subscription | None:
        """One subscription, if it exists."""
        raw = await self.redis.hget(SUBS, webhook_id)
        return None if raw is None else _subscription(raw)

    async def delete_subscription(self, webhook_id: str) -> bool:
        """Remove a subscription with its log and pending deliveries; ``False`` if there was none."""
        done = await self._delete(keys=[SUBS, DELIVERIES, DUE, log_key(webhook_id)], args=[webhook_id])
        return bool(done)

    async def enqueue(self, webhook_id: str, deliveries: list[Delivery], now_ms: int) -> list[Delivery]:
        """Add new deliveries for one subscription, due now; return those that were new."""
        args: list[Any] = [now_ms, LOG_LIMIT]
        for item in deliveries:
            args += [item.delivery_id, item.to_json()]
        added = {
            item.decode() if isinstance(item, bytes) else str(item)
            for item in await self._enqueue(keys=[DELIVERIES, DUE, log_key(webhook_id)], args=args)
        }
        return [item for item in deliveries if item.delivery_id in added]

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[Delivery]:
        """Claim up to ``limit`` due deliveries until ``now_ms + lease_ms``."""
        raw = await self._claim(keys=[DUE, DELIVERIES], args=[now_ms, now_ms + lease_ms, limit])
        return [Delivery.from_json(raw[i + 1]) for i in range(0, len(raw), 2)]

    async def save(self, delivery: Delivery, due_ms: int | None, dead: bool = False) -> bool:
        """Write a delivery back: pending again at ``due_ms``, or done (``None``), or dead-lettered."""
        args = [delivery.delivery_id, delivery.to_json(), "" if due_ms is None else due_ms, "1" if dead else "0"]
        done = await self._save(keys=[DELIVERIES, DUE, DEAD], args=[*args, DEAD_LIMIT])
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
        """Pending deliveries and dead letters kept."""
        return int(await self.redis.zcard(DUE)), int(await self.redis.llen(DEAD))
