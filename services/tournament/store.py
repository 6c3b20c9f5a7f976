"""Tournaments in Redis: one JSON document per tournament, changed only under WATCH/MULTI.

Keys (``T`` = tournament id; one hash tag per tournament):

* ``tournament:{T}:state`` – the :class:`~services.tournament.model.Tournament` as JSON.
* ``tournament:{T}:seating`` – a short lease held while a director creates a round's games,
  so two directors never create the same table's game twice.
* ``tournaments:index`` – sorted set of ids by creation time (the listing, newest first).
* ``tournaments:running`` – set of running ids (the sweep, the "tournaments running" gauge).

Tournament ids are drawn like game ids (:func:`services.common.attention.new_game_id`), so a
tournament's keys share the slot of one outbox shard: :meth:`TournamentStore.change` writes
the new state and the step's outbox events (``tournament.round_started``,
``tournament.finished``) in one MULTI, on Redis Cluster too, re-reading, re-applying and
retrying when another writer got there first.  The two index keys live elsewhere and are
written outside that MULTI (before the state at creation, after it at the end), so a crash
leaves at worst an index entry without a state, which readers skip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from redis import asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster

from services import outbox
from services.common.attention import new_game_id
from services.common.offsets import check_page_size, decode_offset, encode_offset
from services.common.sealing import replace_if_unchanged
from services.tournament.model import Tournament

INDEX = "tournaments:index"
RUNNING = "tournaments:running"
SEATING_LEASE_MS = 30_000
MAX_PAGE_SIZE = 100
Redis = aioredis.Redis | RedisCluster
# An outbox event a step causes: type, stable id, data.
Event = tuple[str, str, dict[str, Any]]
# A step: change the tournament in place, return the outbox events it causes (None: no change).
Step = Callable[[Tournament], list[Event] | None]


def state_key(tournament_id: str) -> str:
    """The tournament's document."""
    return f"tournament:{{{tournament_id}}}:state"


def seating_key(tournament_id: str) -> str:
    """The lease of the director seating the tournament's current round."""
    return f"tournament:{{{tournament_id}}}:seating"


def new_tournament_id() -> str:
    """A fresh id whose keys share the slot of an outbox shard."""
    return new_game_id("tournament")


class TournamentNotFound(Exception):
    """No tournament with that id."""


class TournamentStore:
    """Async access to tournaments."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis

    @staticmethod
    async def _queue_events(pipe: Any, tournament_id: str, events: list[Event]) -> None:
        for kind, event_id, data in events:
            await outbox.emit(pipe, kind, data, tournament_id, event_id=event_id)

    async def create(self, tournament: Tournament) -> None:
        """Store a new tournament (indexed first: see the module docstring)."""
        tournament_id = tournament.tournament_id
        await self.redis.zadd(INDEX, {tournament_id: tournament.created_ms})
        await self.redis.sadd(RUNNING, tournament_id)
        await self.redis.set(state_key(tournament_id), tournament.to_json())

    async def load(self, tournament_id: str) -> Tournament:
        """The tournament, or :class:`TournamentNotFound`."""
        raw = await self.redis.get(state_key(tournament_id))
        if raw is None:
            raise TournamentNotFound(tournament_id)
        return Tournament.from_json(raw)

    async def change(self, tournament_id: str, step: Step) -> Tournament:
        """Apply ``step`` atomically (retrying on a concurrent write); return the new state."""
        key = state_key(tournament_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        raise TournamentNotFound(tournament_id)
                    tournament = Tournament.from_json(raw)
                    events = step(tournament)
                    if events is None:  # nothing to change
                        await pipe.reset()
                        return tournament
                    pipe.multi()
                    pipe.set(key, tournament.to_json())
                    await self._queue_events(pipe, tournament_id, events)
                    await pipe.execute()
                    break
                except redis_errors.WatchError:
                    continue
        if tournament.status == "finished":
            await self.redis.srem(RUNNING, tournament_id)
        return tournament

    async def take_seating(self, tournament_id: str, owner: str) -> bool:
        """Take the seating lease (``False`` while another director holds it)."""
        return bool(await self.redis.set(seating_key(tournament_id), owner, nx=True, px=SEATING_LEASE_MS))

    async def release_seating(self, tournament_id: str) -> None:
        """Give the seating lease back."""
        await self.redis.delete(seating_key(tournament_id))

    async def running(self) -> list[str]:
        """Ids of running tournaments."""
        return sorted(_text(i) for i in await self.redis.smembers(RUNNING))

    async def count_running(self) -> int:
        """How many tournaments run now."""
        return int(await self.redis.scard(RUNNING))

    async def page(self, page_size: int, page_token: str) -> tuple[list[Tournament], str]:
        """Tournaments newest first, one page, and the next page's token."""
        check_page_size(page_size, MAX_PAGE_SIZE)
        offset = decode_offset("t1", page_token)
        ids = [_text(i) for i in await self.redis.zrevrange(INDEX, offset, offset + page_size)]
        more = len(ids) > page_size
        found = []
        for tournament_id in ids[:page_size]:
            raw = await self.redis.get(state_key(tournament_id))
            if raw is not None:
                found.append(Tournament.from_json(raw))
        return found, encode_offset("t1", offset + page_size) if more else ""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def reseal_tournaments(redis: Any) -> int:
    """Seal every tournament's seed and secret with the key ring's current key (``chaiwala secrets
    reseal``); the number of documents rewritten (each a compare-and-set: a director's write wins)."""
    rewritten = 0
    async for raw_key in redis.scan_iter(match="tournament:{*}:state", count=500):
        raw = await redis.get(raw_key)
        if raw:
            fresh = Tournament.from_json(raw).to_json()
            rewritten += await replace_if_unchanged(redis, _text(raw_key), "", raw, fresh)
    return rewritten
