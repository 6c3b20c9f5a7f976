"""Ratings in Redis: one hash tag per game type, updated once per finished rated game.

Keys of game type ``T`` (prefix ``rating:{S}:T`` where ``S`` is the hash tag of one outbox
shard, so one MULTI covers a whole update and its event, on Redis Cluster too):

* ``rating:{S}:T:player:<external_id>`` – hash: ``name``, ``mu``, ``sigma``, ``games``.
* ``rating:{S}:T:board`` – sorted set of external ids by ordinal (the leaderboard).
* ``rating:{S}:T:recent:<external_id>`` – list, newest first, of the player's last
  :data:`RECENT_GAMES` rated games (JSON: game id, place, seats, mu before and after).
* ``rating:{S}:T:rated:<game_id>`` – the per-game marker: present once the game's ratings are in
  (``capped`` when the pair cap kept the game from counting).
* ``rating:{S}:T:pair:<day>:<a>|<b>`` – counter: rated games of players ``a`` and ``b`` (sorted) that
  counted on UTC day ``day`` (days since the epoch), kept two days.  A game counts only while every
  pair of its players is under ``CHAIWALA_RATED_PAIR_GAMES_PER_DAY`` (:mod:`services.rating.settings`):
  two accounts of one person cannot farm a rating by playing each other all day.

An update WATCHes the marker and every player's hash, computes the new ratings in Python
(:mod:`services.rating.model`), and writes the marker, the ratings, the leaderboard, the
recent games and the ``rating.updated`` outbox event in one MULTI, so a game delivered twice
(the outbox is at-least-once) or by two directors at once changes each rating exactly once.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from redis import asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from services import outbox
from services.common.attention import SHARD_COUNT, SHARD_TAGS
from services.common.offsets import check_page_size, decode_offset, encode_offset
from services.rating import model
from services.rating.identity import rated_id
from services.rating.settings import RatingSettings

RECENT_GAMES = 20
MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
Redis = aioredis.Redis | RedisCluster
RATING_UPDATED = "rating.updated"
DAY_MS = 86_400_000
PAIR_TTL_SECONDS = 2 * 86_400


def _tag(game_type: str) -> str:
    # The hash tag of one outbox shard, so an update and its rating.updated event share a slot.
    return f"rating:{{{SHARD_TAGS[key_slot(game_type.encode()) % SHARD_COUNT]}}}:{game_type}"


def player_key(game_type: str, external_id: str) -> str:
    """The hash of one player's rating for ``game_type``."""
    return f"{_tag(game_type)}:player:{external_id}"


def board_key(game_type: str) -> str:
    """The leaderboard of ``game_type``."""
    return f"{_tag(game_type)}:board"


def recent_key(game_type: str, external_id: str) -> str:
    """A player's recent rated games of ``game_type``."""
    return f"{_tag(game_type)}:recent:{external_id}"


def marker_key(game_type: str, game_id: str) -> str:
    """Present once ``game_id``'s ratings were applied."""
    return f"{_tag(game_type)}:rated:{game_id}"


def pair_keys(game_type: str, ids: Sequence[str], finished_ms: int) -> list[str]:
    """The day counters of every pair of ``ids`` (each pair once, in sorted order)."""
    day = finished_ms // DAY_MS
    return [f"{_tag(game_type)}:pair:{day}:{a}|{b}" for a, b in itertools.combinations(sorted(ids), 2)]


@dataclass(frozen=True)
class FinishedGame:
    """What a rating update needs of a finished game."""

    game_id: str
    game_type: str
    players: list[dict[str, Any]]
    ranking: list[int]
    finished_ms: int = 0


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _rating_of(external_id: str, name: str, raw: dict[Any, Any]) -> model.Rating:
    data = {_text(k): _text(v) for k, v in raw.items()}
    if not data:
        return model.initial(external_id, name)
    return model.Rating(
        external_id=external_id,
        name=name or data.get("name", ""),
        mu=float(data["mu"]),
        sigma=float(data["sigma"]),
        games=int(data["games"]),
    )


def _names(game: FinishedGame) -> dict[str, str]:
    names: dict[str, str] = {}
    for player in game.players:
        names.setdefault(rated_id(player), str(player.get("name") or ""))
    return names


def _recent_entry(game: FinishedGame, place: int, before: model.Rating, after: model.Rating) -> bytes:
    seats = [{"external_id": rated_id(p), "name": p.get("name", "")} for p in game.players]
    return orjson.dumps(
        {
            "game_id": game.game_id,
            "game_type": game.game_type,
            "place": place,
            "seats": seats,
            "mu_before": before.mu,
            "mu": after.mu,
            "sigma": after.sigma,
            "ordinal": after.ordinal,
            "finished_ms": game.finished_ms,
        }
    )


def _queue_update(pipe: Any, game: FinishedGame, before: list[model.Rating], after: list[model.Rating],
                  places: dict[str, int]) -> None:  # fmt: skip
    pipe.set(marker_key(game.game_type, game.game_id), b"1")
    for old, new in zip(before, after, strict=True):
        key = player_key(game.game_type, new.external_id)
        pipe.hset(key, mapping={"name": new.name, "mu": new.mu, "sigma": new.sigma, "games": new.games})
        pipe.zadd(board_key(game.game_type), {new.external_id: new.ordinal})
        recent = recent_key(game.game_type, new.external_id)
        pipe.lpush(recent, _recent_entry(game, places[new.external_id], old, new))
        pipe.ltrim(recent, 0, RECENT_GAMES - 1)


def updated_event(game: FinishedGame, after: Sequence[model.Rating]) -> dict[str, Any]:
    """The data of the ``rating.updated`` event of one game."""
    return {
        "game_id": game.game_id,
        "game_type": game.game_type,
        "ratings": [rating_dict(r) for r in after],
    }


def rating_dict(rating: model.Rating) -> dict[str, Any]:
    """A rating as the API shows it."""
    return {
        "external_id": rating.external_id,
        "name": rating.name,
        "ordinal": rating.ordinal,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "games": rating.games,
    }


class Ledger:
    """Reads and updates ratings."""

    def __init__(self, redis: Redis, settings: RatingSettings | None = None) -> None:
        self.redis = redis
        self.settings = settings  # None: the environment's, read per update

    def _pair_cap(self) -> int:
        return (self.settings or RatingSettings()).rated_pair_games_per_day

    async def record(self, game: FinishedGame) -> list[model.Rating] | None:
        """Apply ``game`` once; ``None`` when it was applied before, rates nobody, or a pair of its
        players is past today's cap (the game is then marked and never counts)."""
        places = model.placements([rated_id(p) for p in game.players], game.ranking)
        if not places:
            return None
        ids = sorted(places)
        pairs = pair_keys(game.game_type, ids, game.finished_ms or int(time.time() * 1000))
        async with self.redis.pipeline(transaction=True) as pipe:
            while True:
                try:
                    return await self._try_record(pipe, game, pairs, ids, places)
                except redis_errors.WatchError:
                    continue  # another update touched one of these players: read again

    async def _try_record(self, pipe: Any, game: FinishedGame, pairs: list[str], ids: list[str],
                          places: dict[str, int]) -> list[model.Rating] | None:  # fmt: skip
        marker = marker_key(game.game_type, game.game_id)
        keys = [player_key(game.game_type, i) for i in ids]
        await pipe.watch(marker, *keys, *pairs)
        if await pipe.exists(marker):
            await pipe.reset()
            return None
        cap = self._pair_cap()
        counted = [int(await pipe.get(pair) or 0) for pair in pairs]
        if cap > 0 and any(count >= cap for count in counted):
            pipe.multi()
            pipe.set(marker, b"capped")
            await pipe.execute()
            return None
        names = _names(game)
        before = [_rating_of(i, names[i], await pipe.hgetall(key)) for i, key in zip(ids, keys, strict=True)]
        after = model.rate(before, [places[i] for i in ids])
        pipe.multi()
        _queue_update(pipe, game, before, after, places)
        for pair in pairs:
            pipe.incr(pair)
            pipe.expire(pair, PAIR_TTL_SECONDS)
        # The event commits with the ratings (same MULTI, same slot); its id is the fact's.
        event_id = f"evt_rating_{game.game_id}"
        await outbox.emit(pipe, RATING_UPDATED, updated_event(game, after), marker, event_id=event_id)
        await pipe.execute()
        return after

    async def rating(self, game_type: str, external_id: str) -> model.Rating | None:
        """One player's rating, or ``None`` before their first rated game of that type."""
        raw = await self.redis.hgetall(player_key(game_type, external_id))
        return _rating_of(external_id, "", raw) if raw else None

    async def leaderboard(self, game_type: str, page_size: int, page_token: str) -> tuple[list[model.Rating], str]:
        """One page of the leaderboard, best ordinal first, and the next page's token ("" at the end)."""
        check_page_size(page_size, MAX_PAGE_SIZE)
        offset = decode_offset("r1", page_token)
        ids = [_text(i) for i in await self.redis.zrevrange(board_key(game_type), offset, offset + page_size)]
        more = len(ids) > page_size
        ids = ids[:page_size]
        async with self.redis.pipeline(transaction=False) as pipe:
            for external_id in ids:
                pipe.hgetall(player_key(game_type, external_id))
            raws = await pipe.execute()
        ratings = [_rating_of(i, "", raw) for i, raw in zip(ids, raws, strict=True)]
        return ratings, encode_offset("r1", offset + page_size) if more else ""

    async def recent(self, game_type: str, external_id: str, count: int = 10) -> list[dict[str, Any]]:
        """A player's newest rated games of one type."""
        return [orjson.loads(raw) for raw in await self.redis.lrange(recent_key(game_type, external_id), 0, count - 1)]
