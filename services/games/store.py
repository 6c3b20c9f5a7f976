"""Games in Redis: metadata, snapshot and event stream, one hash tag per game.

Keys of game ``G`` (the braces make them one Redis Cluster slot, so the commit
script never crosses shards):

* ``game:{G}:meta``   – hash: game type, seed, options, players, token hashes,
  status, version, result.
* ``game:{G}:state``  – the latest snapshot (engine state + RNG), JSON.

The seed, the server secret and the snapshot (whose RNG state predicts every draw) are stored
sealed with the master key ring (:mod:`services.common.sealing`, each bound to its game and
field; :mod:`services.games.sealed`), so a copy of Redis predicts nothing.  Values stored before sealing
are read as they are; a compacted game's snapshot is kept unsealed (its game is over and its
seed revealed).
* ``game:{G}:events`` – stream, one entry per accepted move with ID ``<version>-1``
  (creation, or the start of a game that waited for players, is ``0-1``): seat, bot,
  move, the unredacted events and a kind ("" for a move; "timeout", "resign" for
  lifecycle entries without a move), with its chain hash and state digest; stored as
  :mod:`services.eventlog.codec` says (binary hashes, a compressed body).  This is the
  log of truth; the snapshot is only a cache of replaying it.
* ``game:{G}:idem:<seat>:<key>`` – the first answer to an idempotent submission.

Per game type and attention shard, a set ``chaiwala:active:{<shard tag>}:<type>`` indexes
active games for metrics.  It, the lobby's listing sets and the retention index share the slot
of the game's keys, so the step that ends a game moves it in all of them atomically (the commit
and abort scripts, :data:`services.filing.store.FILING`).  The conductor's work queue
(:mod:`services.common.attention`) lives beside them, and so does the outbox
(:mod:`services.outbox`): every commit that starts, ends or times out a game writes its
domain event to the game's outbox shard in the same atomic step.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Sequence
from typing import Any

import orjson
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from services.common.attention import SHARD_COUNT, attention_script_keys, keys_for_game, score_arg
from services.common.rng import KIND_PCG32, Seed
from services.common.scriptcall import LeanScript
from services.common.store import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_POOL_TIMEOUT_SECONDS,
    GameNotActive,
    GameNotFound,
    VersionConflict,
    bounded_block_ms,
    redis_client,
)
from services.eventlog import codec
from services.filing.keys import game_keys, game_type_of
from services.filing.store import active_key, active_key_for, file_game, filing_args, filing_keys
from services.games.records import Fairness, GameMeta, LogEntry, NewGame, Step, bot_memory_key
from services.games.scripts import COMMIT, LOAD, SET_STATUS
from services.games.sealed import open_for, open_text_for, seal_for, seal_text_for
from services.legalmoves import fingerprint as legal_fingerprint
from services.outbox import events as outbox_events
from services.outbox import stream as outbox_stream
from services.outbox.turns import turns_started

IDEMPOTENCY_TTL_SECONDS = 24 * 3600

_keys = game_keys


def _decode(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


def _entry(game_type: str, fields: dict[Any, Any], entry_id: bytes | str) -> LogEntry:
    version = int(_decode(entry_id).split("-")[0])
    if codec.is_compact(fields):
        body = codec.decode(game_type, fields)
        return LogEntry(body.seat, body.bot, body.move, body.events, kind=body.kind, state_digest=body.state_digest,
                        hash=body.hash, status=body.status, to_act=body.to_act, version=version)  # fmt: skip
    data = {_decode(k): _decode(v) for k, v in fields.items()}  # format 1 (services.eventlog.codec)
    seat = data.get("seat", "")
    move = data.get("move", "")
    return LogEntry(
        version=version,
        seat=int(seat) if seat != "" else None,
        bot=data.get("bot", ""),
        move=orjson.loads(move) if move else None,
        events=orjson.loads(data.get("events") or "[]"),
        hash=data.get("hash", ""),
        state_digest=data.get("digest", ""),
        kind=data.get("kind", ""),
    )


class GameStore:
    """Async access to games in Redis (single server or Redis Cluster)."""

    def __init__(self, client: aioredis.Redis | RedisCluster) -> None:
        self.redis = client
        self._source: tuple[str, bool] | None = None
        # The move's two calls (and the status change) skip redis-py's per-call work on a single server.
        self._commit = LeanScript(client, COMMIT.source)
        self._set_status = LeanScript(client, SET_STATUS.source)
        self._load = LeanScript(client, LOAD)

    @classmethod
    def from_url(
        cls,
        url: str,
        cluster: bool = False,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        pool_timeout: float = DEFAULT_POOL_TIMEOUT_SECONDS,
    ) -> GameStore:
        """Connect to ``url``; ``cluster`` selects the Redis Cluster client.

        At most ``max_connections`` connections (per node on a cluster); a call finding them all
        busy waits up to ``pool_timeout`` seconds for one, then fails as unavailable (503), so a
        burst queues briefly instead of failing at once.
        """
        store = cls(redis_client(url, cluster, max_connections, pool_timeout))
        store._source = (url, cluster)
        return store

    def blocking_client(self, max_connections: int, name: str = "") -> aioredis.Redis | RedisCluster:
        """A client of its own for blocking reads (live-event readers), so they never hold the
        connections calls need; this store's own client when it was not made from a URL.
        ``name``: its connections' name in ``CLIENT LIST``."""
        if self._source is None:
            return self.redis
        url, cluster = self._source
        return redis_client(url, cluster, max_connections, pool_timeout=None, blocking=True, name=name)

    async def close(self) -> None:
        """Release connections."""
        await self.redis.aclose()

    async def create(self, game: NewGame) -> str:
        """Store a new game (and its first attention, atomically); return its id.

        A game that waits for players gets its ``0-1`` stream entry when it starts.
        """
        game_id = game.game_id
        meta_key, state_key, events_key = _keys(game_id)
        queue, _ = keys_for_game(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                meta_key,
                mapping={
                    "game_type": game.game_type,
                    # Decimal, so the full 256 bits fit; "generator" absent marks a game from before the keyed one.
                    "seed": seal_text_for(game_id, "seed", str(game.seed.value)),
                    "generator": game.seed.generator,
                    "options": orjson.dumps(game.options),
                    "players": orjson.dumps(game.players),
                    "token_hashes": orjson.dumps(game.token_hashes),
                    "host_hash": game.host_hash,
                    "status": game.status,
                    "version": 0,
                    "result": "",
                    "lifecycle": orjson.dumps(game.lifecycle),
                    "visibility": game.visibility,
                    "created_ms": game.created_ms,
                    "lobby_rev": 0,
                    "server_secret": seal_text_for(game_id, "secret", game.fairness.server_secret),
                    "seed_commitment": game.fairness.seed_commitment,
                    "seed_source": game.fairness.seed_source,
                    "client_seed": game.fairness.client_seed,
                    "log_head": game.genesis[0] if game.genesis else "",
                    "rated": "1" if game.rated else "",
                    "tournament": game.tournament,
                },
            )
            pipe.set(state_key, seal_for(game_id, "snapshot", game.snapshot))
            if game.genesis is not None:
                creation: dict[Any, Any] = codec.encode(game.game_type, None, "", "", None, [], *game.genesis)
                pipe.xadd(events_key, creation, id="0-1")
            if game.attention_ms is not None:
                pipe.zadd(queue, {game_id: game.attention_ms})
            if game.status == "active":  # the outbox event commits with the game (services.outbox)
                started = outbox_events.game_started(game_id, game.game_type, game.players, game.created_ms)
                outbox_stream.append(pipe, started, game_id)
                to_act = game.lifecycle.get("to_act", [])
                for turn in turns_started(game_id, game.game_type, game.players, to_act, 0, game.lifecycle,
                                          game.created_ms):  # fmt: skip
                    outbox_stream.append(pipe, turn, game_id)
                pipe.sadd(active_key_for(game_id), game_id)
            for fact in game.outbox:
                outbox_stream.append(pipe, fact, game_id)
            file_game(pipe, game_id, game.game_type, game.visibility, game.status, game.created_ms)
            await pipe.execute()
        return game_id

    async def load(self, game_id: str) -> tuple[GameMeta, bytes]:
        """Metadata and snapshot, read together atomically."""
        meta, snapshot, _ = await self.load_with(game_id, ())
        return meta, snapshot

    async def load_with(self, game_id: str, keys: Sequence[str]) -> tuple[GameMeta, bytes, list[bytes | None]]:
        """:meth:`load`, plus the values of ``keys`` (keys of the same game, e.g. idempotency keys),
        all in one round trip: a request that needs them pays no second one."""
        meta_key, state_key, _ = _keys(game_id)
        flat_meta, snapshot, *values = await self._load(keys=[meta_key, state_key, *keys])
        if not flat_meta or snapshot is None:
            raise GameNotFound(game_id)
        meta = self._meta(game_id, dict(zip(flat_meta[::2], flat_meta[1::2], strict=True)))
        snapshot = open_for(game_id, "snapshot", snapshot)
        return meta, zlib.decompress(snapshot) if meta.archived else snapshot, values

    async def meta(self, game_id: str) -> GameMeta:
        """Metadata only."""
        raw = await self.redis.hgetall(_keys(game_id)[0])
        if not raw:
            raise GameNotFound(game_id)
        return self._meta(game_id, raw)

    @staticmethod
    def _meta(game_id: str, raw: dict[Any, Any]) -> GameMeta:
        try:  # bytes, as the store's clients answer (one decode each: ~5 µs less than _decode's checks)
            data = {key.decode(): value.decode() for key, value in raw.items()}
        except AttributeError:  # a client that answers text
            data = {_decode(k): _decode(v) for k, v in raw.items()}
        return GameMeta(
            game_id=game_id,
            game_type=data["game_type"],
            seed=Seed(int(open_text_for(game_id, "seed", data["seed"])), data.get("generator") or KIND_PCG32),
            options=orjson.loads(data["options"]),
            players=orjson.loads(data["players"]),
            token_hashes=orjson.loads(data["token_hashes"]),
            status=data["status"],
            version=int(data["version"]),
            result=orjson.loads(data["result"]) if data.get("result") else None,
            fairness=Fairness(
                server_secret=open_text_for(game_id, "secret", data.get("server_secret", "")),
                seed_commitment=data.get("seed_commitment", ""),
                seed_source=data.get("seed_source", ""),
                client_seed=data.get("client_seed", ""),
            ),
            log_head=data.get("log_head", ""),
            lifecycle=orjson.loads(data["lifecycle"]) if data.get("lifecycle") else {},
            host_hash=data.get("host_hash", ""),
            visibility=data.get("visibility") or "public",
            created_ms=int(data.get("created_ms") or 0),
            lobby_rev=int(data.get("lobby_rev") or 0),
            rated=data.get("rated") == "1",
            tournament=data.get("tournament", ""),
            archived=data.get("archived") == "1",
            identity=legal_fingerprint.identity(data["players"], data["token_hashes"]),
        )

    async def commit(self, step: Step) -> tuple[str, int | bytes]:
        """Write ``step`` (:class:`~services.games.records.Step`) atomically if the game is still at
        ``step.expected_version``: its entries, snapshot, metadata, attention, outbox events, filing,
        bots' memory and legal-moves answers, or nothing.

        Returns ``("ok", new_version)`` or ``("idempotent", first_answer)``; raises
        :class:`VersionConflict`, :class:`GameNotActive` or :class:`GameNotFound`.
        """
        outcome, value = await self._commit(keys=_commit_keys(step), args=_commit_args(step))
        outcome = _decode(outcome)
        if outcome == "ok":
            return "ok", int(_decode(value))
        if outcome == "idempotent":
            return "idempotent", value if isinstance(value, bytes) else str(value).encode()
        if outcome == "conflict":
            raise VersionConflict(int(_decode(value)))
        if outcome == "not_active":
            raise GameNotActive(_decode(value))
        raise GameNotFound(step.game_id)

    def idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        """The Redis key that remembers the first answer to ``key`` from ``seat``."""
        return f"game:{{{game_id}}}:idem:{seat}:{key}" if key else ""

    async def set_status(
        self,
        game_id: str,
        status: str,
        outbox: Sequence[outbox_stream.OutboxEvent] = (),
        visibility: str = "public",
    ) -> str:
        """Move a waiting or active game to ``status`` (e.g. aborted); return its former status.

        ``outbox`` events are written in the same atomic step (only if the status changes).
        """
        keys = SET_STATUS.keys(
            {
                "meta": _keys(game_id)[0],
                "outbox": outbox_stream.outbox_key_for(game_id),
                "bot_memory": bot_memory_key(game_id),
                **attention_script_keys(game_id),
                **filing_keys(game_id, visibility),
            }
        )
        args = SET_STATUS.args(
            {
                "attention": [game_id, ""],
                "outbox": outbox_stream.lua_args(outbox),
                "filing": filing_args(status, game_id),
                "bot_memory": [""],
            }
        )
        outcome, value = await self._set_status(keys=keys, args=args)
        outcome = _decode(outcome)
        if outcome == "missing":
            raise GameNotFound(game_id)
        if outcome == "not_active":
            raise GameNotActive(_decode(value))
        return _decode(value)

    async def count_active(self, game_type: str) -> int:
        """How many games of this type are active (one pipelined round trip over the shards)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for shard in range(SHARD_COUNT):
                pipe.scard(active_key(game_type, shard))
            return sum(int(count) for count in await pipe.execute())

    async def entries(self, game_id: str, after: int = -1) -> list[LogEntry]:
        """Stream entries of versions strictly greater than ``after`` (-1: all, creation included)."""
        start = "-" if after < 0 else f"{after + 1}-0"
        raw: Any = await self.redis.xrange(_keys(game_id)[2], min=start, max="+")
        game_type = game_type_of(game_id)
        return [_entry(game_type, fields, entry_id) for entry_id, fields in raw or []]


def _commit_args(step: Step) -> list[Any]:
    """The commit script's arguments, by part (:data:`services.games.scripts.COMMIT`)."""
    game_type = game_type_of(step.game_id)
    entries: list[Any] = [len(step.entries)]
    for item in step.entries:
        fields = codec.encode(game_type, item.seat, item.bot, item.kind, item.move, item.events, item.hash,
                              item.state_digest, item.status, item.to_act)  # fmt: skip
        entries += [fields["h"], fields["d"], fields["z"]]
    return COMMIT.args(
        {
            "guard": ["1" if step.idempotency_key else "0", step.expected_version, step.previous_head,
                      step.seats_identity],
            "entries": entries,
            "record": [
                seal_for(step.game_id, "snapshot", step.snapshot),  # sealed: the snapshot holds the RNG key
                orjson.dumps(step.result) if step.result is not None else "",
                orjson.dumps(step.lifecycle or {}),
                step.entries[-1].hash if step.entries else step.previous_head,
                step.answer,
                IDEMPOTENCY_TTL_SECONDS,
            ],
            "attention": [step.game_id, score_arg(step.attention_ms)],
            "outbox": outbox_stream.lua_args(step.outbox),
            "filing": filing_args(step.status, step.game_id),
            "bot_memory": [step.bot_memory],
            "legal": legal_fingerprint.commit_args(step.legal),
        }
    )


def _commit_keys(step: Step) -> list[str]:
    """The commit script's keys, by name (all in the game's slot)."""
    # Without an idempotency key a placeholder of the same slot keeps the script single-slot.
    idem = step.idempotency_key or f"game:{{{step.game_id}}}:idem:-"
    keys = list(_game_keys(step.game_id, step.visibility))
    keys[_IDEM_AT] = idem
    return keys


_IDEM_AT = list(COMMIT.key_names).index("idem")


@functools.lru_cache(maxsize=4096)
def _game_keys(game_id: str, visibility: str) -> tuple[str, ...]:
    """The commit's keys, the idempotency key's place left empty: the same for every commit of a
    game (its shard's keys are CRC slot lookups; ~15 µs a commit to name them again)."""
    meta_key, state_key, events_key = _keys(game_id)
    return tuple(COMMIT.keys({
        "idem": "",
        "meta": meta_key,
        "state": state_key,
        "events": events_key,
        "outbox": outbox_stream.outbox_key_for(game_id),
        "legal": legal_fingerprint.legal_key(game_id),
        "bot_memory": bot_memory_key(game_id),
        **attention_script_keys(game_id),
        **filing_keys(game_id, visibility),
    }))  # fmt: skip


# ---- live readers (services.streaming) ------------------------------------------------------
# Plain reads on any client, so the readers of services.streaming.hub can use a client of their own.


async def last_logged_version(client: aioredis.Redis | RedisCluster, game_id: str) -> int:
    """The version of the game's last log entry (-1 while it has none: a waiting game)."""
    raw: Any = await client.xrevrange(_keys(game_id)[2], max="+", min="-", count=1)
    return int(_decode(raw[0][0]).split("-")[0]) if raw else -1


async def read_log(
    client: aioredis.Redis | RedisCluster, game_id: str, after: int, block_ms: int, count: int = 100
) -> list[LogEntry]:
    """Entries after version ``after``, waiting up to ``block_ms`` for the first ([] if none came; the
    wait is bounded by the client's reply timeout, :func:`services.common.store.bounded_block_ms`)."""
    last_id = f"{after}-1" if after >= 0 else "0-0"
    block = bounded_block_ms(client, block_ms / 1000)
    answer: Any = await client.xread({_keys(game_id)[2]: last_id}, block=block, count=count)
    game_type = game_type_of(game_id)
    return [_entry(game_type, fields, entry_id) for _stream, items in answer or [] for entry_id, fields in items]


def events_key(game_id: str) -> str:
    """The game's log stream (what a live reader follows)."""
    return _keys(game_id)[2]


def log_entries(game_id: str, items: Sequence[tuple[str, dict[Any, Any]]]) -> list[LogEntry]:
    """Stream entries of the game's log (id and fields, as ``XREAD`` hands them) as log entries."""
    game_type = game_type_of(game_id)
    return [_entry(game_type, fields, entry_id) for entry_id, fields in items]


async def progresses(client: aioredis.Redis | RedisCluster, game_ids: Sequence[str]) -> list[tuple[str, int]]:
    """:func:`progress` of many games in one round trip (per node)."""
    async with client.pipeline(transaction=False) as pipe:
        for game_id in game_ids:
            pipe.hmget(_keys(game_id)[0], ["status", "version"])
        answers: Any = await pipe.execute()
    return [(_decode(status), int(_decode(version) or -1)) for status, version in answers]


async def progress(client: aioredis.Redis | RedisCluster, game_id: str) -> tuple[str, int]:
    """The game's status and version ("" and -1 for an unknown game)."""
    status, version = await client.hmget(_keys(game_id)[0], ["status", "version"])
    return _decode(status), int(_decode(version) or -1)
