"""The notification domain's Redis keys and scripts.

Every key shares the hash tag ``{push}`` (as the webhook store shares ``{webhooks}``), so each
script below runs on one Redis Cluster slot; notifications are few beside moves.

* ``chaiwala:push:{push}:subs:<player>`` – hash: subscription id -> JSON (:class:`Subscription`).
* ``chaiwala:push:{push}:prefs:<player>`` – JSON preferences, owned by
  :mod:`services.identity.preferences` (the webhook dispatcher reads them too).
* ``chaiwala:push:{push}:pending:<player>`` – hash: game id -> the notice waiting to go for that
  game (a newer fact about the game replaces an older one waiting: one notice per game).
* ``chaiwala:push:{push}:fact:<player>:<event id>`` – a fact already turned into a notice (2 days),
  so an outbox entry read twice (a sender killed before acknowledging) queues nothing twice.
* ``chaiwala:push:{push}:due`` – sorted set: players with pending notices, by when they may go
  (now plus the gathering window, or the end of their quiet hours); a claimed player's score is
  pushed to its lease end, so a sender killed mid-send leaves the player to be claimed again.
* ``chaiwala:push:{push}:sent:<message id>`` – set of subscriptions a message reached (2 days):
  a message sent again after a crash skips them.
* ``chaiwala:push:{push}:vapid`` – hash: the server's VAPID key pair (``private``, ``public``),
  written once by whichever sender starts first (:func:`NotifyStore.vapid_keys`).
"""

from __future__ import annotations

from typing import Any

import orjson

from services.common.store import register_scripts
from services.identity.preferences import Preferences, read_preferences, write_preferences
from services.notify.model import Notice, Subscription

PREFIX = "chaiwala:push:{push}:"
DUE = PREFIX + "due"
VAPID = PREFIX + "vapid"
TRIES = PREFIX + "tries"  # hash: player -> "<failed attempts>:<first failure ms>"
FACT_TTL_S = 2 * 24 * 3600
SENT_TTL_S = 2 * 24 * 3600
MAX_SUBSCRIPTIONS = 20  # per player: browsers and devices


def subs_key(player: str) -> str:
    """A player's subscriptions."""
    return f"{PREFIX}subs:{player}"


def pending_key(player: str) -> str:
    """A player's notices waiting to go, by game."""
    return f"{PREFIX}pending:{player}"


def fact_key(player: str, event_id: str) -> str:
    """The mark of one fact queued for one player."""
    return f"{PREFIX}fact:{player}:{event_id}"


def sent_key(message_id: str) -> str:
    """The subscriptions one message reached."""
    return f"{PREFIX}sent:{message_id}"


# KEYS: fact mark, pending, due.  ARGV: game id, notice JSON, due ms, fact TTL, player.
# Once per fact: the notice replaces what waits for its game; the player is due no later than ARGV[3].
_QUEUE = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', tonumber(ARGV[4])) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local score = redis.call('ZSCORE', KEYS[3], ARGV[5])
if not score or tonumber(score) > tonumber(ARGV[3]) then redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5]) end
return 1
"""

# KEYS: due.  ARGV: now ms, lease-until ms, limit.  Players due by now, their score pushed to the lease end.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, player in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], player) end
return due
"""

# KEYS: pending, due.  ARGV: player, next due ms ('' = when what is left may go: now), then
# game id, notice id pairs sent.  Drops the notices sent (unless a newer one replaced them), then
# the player leaves the queue or stays for what is left.
_RELEASE = """
for i = 3, #ARGV, 2 do
  local held = redis.call('HGET', KEYS[1], ARGV[i])
  if held and cjson.decode(held)['notice_id'] == ARGV[i + 1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('ZREM', KEYS[2], ARGV[1])
else redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) end
return 1
"""

# KEYS: vapid.  ARGV: private, public.  The first writer wins; everyone reads the stored pair.
_VAPID = """
redis.call('HSETNX', KEYS[1], 'private', ARGV[1])
if redis.call('HGET', KEYS[1], 'private') == ARGV[1] then redis.call('HSET', KEYS[1], 'public', ARGV[2]) end
return redis.call('HMGET', KEYS[1], 'private', 'public')
"""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _subscription(raw: Any) -> Subscription:
    return Subscription(**orjson.loads(raw))


def _notice(raw: Any) -> Notice:
    return Notice(**orjson.loads(raw))


class NotifyStore:
    """Subscriptions, preferences, pending notices and the VAPID keys, in Redis."""

    def __init__(self, redis: Any) -> None:
        self.redis = redis
        self._queue, self._claim, self._release, self._vapid = register_scripts(redis, _QUEUE, _CLAIM, _RELEASE, _VAPID)

    # ---- subscriptions and preferences -------------------------------------------------------

    async def add_subscription(self, subscription: Subscription) -> bool:
        """Keep ``subscription`` (again: replaced); ``False`` when the player has too many already."""
        key = subs_key(subscription.player_id)
        known = await self.redis.hexists(key, subscription.subscription_id)
        if not known and await self.redis.hlen(key) >= MAX_SUBSCRIPTIONS:
            return False
        record = {**subscription.__dict__}
        await self.redis.hset(key, subscription.subscription_id, orjson.dumps(record))
        return True

    async def subscriptions(self, player: str) -> list[Subscription]:
        """A player's subscriptions, oldest first."""
        found = [_subscription(raw) for raw in (await self.redis.hgetall(subs_key(player))).values()]
        return sorted(found, key=lambda item: (item.created_ms, item.subscription_id))

    async def subscribed(self, players: set[str]) -> set[str]:
        """Those of ``players`` with at least one subscription (one round trip for them all)."""
        order = sorted(players)
        pipe = self.redis.pipeline(transaction=False)
        for player in order:
            pipe.exists(subs_key(player))
        return {player for player, found in zip(order, await pipe.execute(), strict=True) if found}

    async def remove_subscription(self, player: str, subscription_id: str) -> bool:
        """Forget one subscription; whether it existed."""
        return bool(await self.redis.hdel(subs_key(player), subscription_id))

    async def preferences(self, player: str) -> Preferences:
        """A player's preferences (the defaults until they set some)."""
        return await read_preferences(self.redis, player)

    async def set_preferences(self, player: str, preferences: Preferences) -> None:
        """Replace a player's preferences."""
        await write_preferences(self.redis, player, preferences)

    # ---- notices ------------------------------------------------------------------------------

    async def queue(self, player: str, event_id: str, notice: Notice, due_ms: int) -> bool:
        """Queue ``notice`` for ``player`` once per fact ``event_id``; whether it was new."""
        keys = [fact_key(player, event_id), pending_key(player), DUE]
        args = [notice.game_id, orjson.dumps(notice.__dict__), due_ms, FACT_TTL_S, player]
        return bool(await self._queue(keys=keys, args=args))

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """Players with notices due by ``now_ms``, held for this sender until the lease ends."""
        return [_text(item) for item in await self._claim(keys=[DUE], args=[now_ms, now_ms + lease_ms, limit])]

    async def pending(self, player: str) -> list[Notice]:
        """The notices waiting for ``player``, by game."""
        raw = await self.redis.hgetall(pending_key(player))
        return sorted((_notice(value) for value in raw.values()), key=lambda item: item.game_id)

    async def release(self, player: str, sent: list[Notice], next_ms: int) -> None:
        """Drop the notices ``sent``; the player stays due at ``next_ms`` if anything is left."""
        args: list[Any] = [player, next_ms]
        for notice in sent:
            args += [notice.game_id, notice.notice_id]
        await self._release(keys=[pending_key(player), DUE], args=args)

    async def reached(self, message_id: str) -> set[str]:
        """The subscriptions ``message_id`` already reached."""
        return {_text(item) for item in await self.redis.smembers(sent_key(message_id))}

    async def mark_reached(self, message_id: str, subscription_id: str) -> None:
        """Remember that ``message_id`` reached ``subscription_id`` (before anything else happens)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.sadd(sent_key(message_id), subscription_id)
        pipe.expire(sent_key(message_id), SENT_TTL_S)
        await pipe.execute()

    async def due_at(self, player: str) -> int | None:
        """When ``player``'s notices may go next (``None``: nothing waits)."""
        score = await self.redis.zscore(DUE, player)
        return None if score is None else int(score)

    async def next_due(self) -> int | None:
        """When the next player is due (or its lease ends), ``None`` when nobody waits."""
        first = await self.redis.zrange(DUE, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    async def due_count(self, now_ms: int) -> int:
        """Players with notices due by ``now_ms``."""
        return int(await self.redis.zcount(DUE, "-inf", now_ms))

    async def failures(self, player: str) -> tuple[int, int]:
        """Failed attempts in a row for ``player`` and when the first of them was (0, 0: none)."""
        raw = await self.redis.hget(TRIES, player)
        if not raw:
            return 0, 0
        count, first = _text(raw).split(":")
        return int(count), int(first)

    async def set_failures(self, player: str, count: int, first_ms: int) -> None:
        """Record the failures in a row (``count`` 0 forgets them)."""
        if count:
            await self.redis.hset(TRIES, player, f"{count}:{first_ms}")
        else:
            await self.redis.hdel(TRIES, player)

    # ---- keys ---------------------------------------------------------------------------------

    async def vapid_keys(self, private: str, public: str) -> tuple[str, str]:
        """The stored VAPID pair, storing (``private``, ``public``) when none is yet."""
        stored = await self._vapid(keys=[VAPID], args=[private, public])
        return _text(stored[0]), _text(stored[1])
