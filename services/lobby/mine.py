"""A player's own games: the index behind ``GET /v1/me/games``.

``chaiwala:player:{<player id>}:games`` holds the ids of every game a seat of which carries that
player id (a verified identity, or an operator's assignment), scored by creation time.  It is an
index, not the truth: it is filed right after the game's creation or the seat's join, and every
listing reads each game's metadata for its status and whose turn it is
(``lifecycle.to_act``, written by every commit), the player's deadline (the lifecycle's clock), the
last activity (``lifecycle.touched_ms``, else its start, else its creation) and the result, so a
"my games" screen needs no request per game.

Order of a listing: the games where it is the player's turn, then the other active games, then
those waiting for players, then the ended ones, newest first within each; at most
:data:`WINDOW` of the player's newest games are considered (older ones are in their replays).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import orjson
from pydantic_settings import BaseSettings, SettingsConfigDict

from services.clock.clock import deadlines
from services.common import errors
from services.filing.keys import game_keys
from services.filing.store import VISIBILITIES

WINDOW = 500
MAX_PAGE_TOKEN = 256
BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# A creation's hold on a quota slot outlives a killed process by at most this long.
RESERVATION_SECONDS = 60
META_FIELDS = ["game_type", "status", "version", "players", "lifecycle", "created_ms", "visibility", "result"]
_RANK = {"waiting": 2, "finished": 3, "aborted": 3}


class PlayerLimits(BaseSettings):
    """How many unfinished games (waiting or active) one player may have created or joined."""

    model_config = SettingsConfigDict(env_prefix="CHAIWALA_", extra="ignore")

    # A player past it is refused a new game (429 player_quota) until one of theirs ends.
    player_open_games: int = 50


def games_key(player_id: str) -> str:
    """The index of one player's games."""
    return f"chaiwala:player:{{{player_id}}}:games"


def creating_key(player_id: str) -> str:
    """The count of one player's game creations in flight (:meth:`PlayerGames.reserved`)."""
    return f"chaiwala:player:{{{player_id}}}:creating"


@dataclass(frozen=True)
class MyGame:
    """One of the player's games as the listing shows it."""

    game_id: str
    game_type: str
    status: str
    version: int
    seat: int
    to_act: list[int]
    created_ms: int
    visibility: str
    players: list[dict[str, Any]]
    # When the player's turn runs out (Unix ms): only while clocked and the seat is to act.
    deadline_ms: int | None = None
    # When the game last changed (Unix ms): its last log entry, else its start, else its creation.
    last_activity_ms: int = 0
    # The stored result once finished ({"scores", "ranking", "winners"}), else None.
    result: dict[str, Any] | None = None

    @property
    def your_turn(self) -> bool:
        """Whether the player's seat is to act now."""
        return self.status == "active" and self.seat in self.to_act

    def rank(self) -> tuple[int, int]:
        """Sort key: your turn, other active, waiting, ended; newest first within each."""
        group = 0 if self.your_turn else _RANK.get(self.status, 1)
        return group, -self.created_ms


class BadPageToken(ValueError):
    """A page token this listing did not hand out."""


def encode_offset(offset: int) -> str:
    """The page token after ``offset`` games."""
    return base64.urlsafe_b64encode(f"me:{offset}".encode()).decode().rstrip("=") if offset else ""


def decode_offset(token: str) -> int:
    """The offset a page token names (0 for the first page)."""
    if not token:
        return 0
    if len(token) > MAX_PAGE_TOKEN or token.strip(BASE64URL):
        raise BadPageToken(token)  # only base64url, as the OpenAPI's pattern says (b64decode would skip others)
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise BadPageToken(token) from None
    prefix, _, number = raw.partition(":")
    if prefix != "me" or not number.isdigit():
        raise BadPageToken(token)
    return int(number)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value or "")


class PlayerGames:
    """Read and file the players' game indexes."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    async def record(self, game_id: str, players: Sequence[dict[str, Any]], created_ms: int) -> None:
        """File a game under every human seat's identity."""
        for player in players:
            external_id = str(player.get("external_id") or "")
            if external_id and not player.get("bot"):
                await self.redis.zadd(games_key(external_id), {game_id: created_ms})

    async def games(self, player_id: str) -> list[MyGame]:
        """The player's games (up to :data:`WINDOW` newest), in listing order."""
        ids = [_text(member) for member in await self.redis.zrevrange(games_key(player_id), 0, WINDOW - 1)]
        async with self.redis.pipeline(transaction=False) as pipe:  # one round trip (per node on a cluster)
            for game_id in ids:
                pipe.hmget(game_keys(game_id)[0], META_FIELDS)
            rows = await pipe.execute() if ids else []
        found = []
        for game_id, values in zip(ids, rows, strict=True):
            game = _game(game_id, player_id, dict(zip(META_FIELDS, (_text(v) for v in values), strict=True)))
            if game is not None:
                found.append(game)
        return sorted(found, key=MyGame.rank)

    @contextlib.asynccontextmanager
    async def reserved(self, player_id: str, limit: int) -> AsyncIterator[None]:
        """Hold one of the player's ``limit`` game slots while a game is created and filed.

        The check counts the player's unfinished games *and* the creations in flight (a counter
        taken with INCR before the check, given back after the game is filed), so 120 concurrent
        creations cannot all pass a check made before any of them was filed.  A creation that
        counts a game twice (filed, not yet given back) refuses early, never late.  The counter
        expires after :data:`RESERVATION_SECONDS`, so a process killed mid-creation frees its slot.
        """
        key = creating_key(player_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, RESERVATION_SECONDS)
            pending, _ = await pipe.execute()
        try:
            await self.check_quota(player_id, limit, in_flight=int(pending) - 1)
            yield
        finally:
            await self.redis.decr(key)

    async def check_quota(self, player_id: str, limit: int, in_flight: int = 0) -> None:
        """Refuse a player who already has ``limit`` unfinished games, counting ``in_flight``
        creations (429 ``player_quota``)."""
        unfinished = [g for g in await self.games(player_id) if g.status in ("waiting", "active")]
        if len(unfinished) + in_flight >= limit:
            message = f"a player may have at most {limit} unfinished games; finish or leave one first"
            raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "player_quota", message)


def _game(game_id: str, player_id: str, meta: dict[str, str]) -> MyGame | None:
    """One game of the index, or ``None`` when it is gone (retention) or the seat is no longer the player's."""
    if not meta["game_type"]:
        return None
    players = orjson.loads(meta["players"])
    seats = [s for s, p in enumerate(players) if p.get("external_id") == player_id and not p.get("bot")]
    if not seats:
        return None  # the player left (or was kicked from) a waiting game
    lifecycle = orjson.loads(meta["lifecycle"] or "{}")
    to_act = [int(s) for s in lifecycle.get("to_act", [])]
    created_ms = int(meta["created_ms"] or 0)
    active_turn = meta["status"] == "active" and seats[0] in to_act
    deadline = deadlines(lifecycle.get("clock")).get(seats[0]) if active_turn else None
    last_ms = int(lifecycle.get("touched_ms") or 0) or int(lifecycle.get("started_ms") or 0) or created_ms
    result = orjson.loads(meta["result"]) if meta["result"] and meta["status"] == "finished" else None
    return MyGame(game_id=game_id, game_type=meta["game_type"], status=meta["status"],
                  version=int(meta["version"] or 0), seat=seats[0], to_act=to_act,
                  created_ms=created_ms, visibility=meta["visibility"] or VISIBILITIES[0],
                  players=players, deadline_ms=deadline, last_activity_ms=last_ms, result=result)  # fmt: skip
