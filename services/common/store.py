"""Games in Redis: metadata, snapshot and event stream, one hash tag per game.

Keys of game ``G`` (the braces make them one Redis Cluster slot, so the commit
script never crosses shards):

* ``game:{G}:meta``   – hash: game type, seed, options, players, token hashes,
  status, version, result.
* ``game:{G}:state``  – the latest snapshot (engine state + RNG), JSON.
* ``game:{G}:events`` – stream, one entry per accepted move with ID ``<version>-1``
  (creation, or the start of a game that waited for players, is ``0-1``): seat, bot,
  move, the unredacted events and a kind ("" for a move; "timeout", "resign" for
  lifecycle entries without a move), with its chain hash and state digest; stored as
  :mod:`services.eventlog.codec` says (binary hashes, a compressed body).  This is the
  log of truth; the snapshot is only a cache of replaying it.
* ``game:{G}:idem:<seat>:<key>`` – the first answer to an idempotent submission.

A per-game-type set ``chaiwala:active:<type>`` indexes active games for metrics; the
conductor's work queue (:mod:`services.common.attention`) and the lobby's listing
index (:mod:`services.lobby.listing`) live beside them, and so does the outbox
(:mod:`services.outbox`): every commit that starts, ends or times out a game writes its
domain event to the game's outbox shard in the same atomic step.
"""

from __future__ import annotations

import hashlib
import secrets
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from redis import asyncio as aioredis
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from services.common.attention import keys_for_game, score_arg
from services.common.attention import new_game_id as new_game_id
from services.eventlog import codec
from services.legalmoves import fingerprint as legal_fingerprint
from services.legalmoves.fingerprint import LegalEntries
from services.outbox import events as outbox_events
from services.outbox import stream as outbox_stream

IDEMPOTENCY_TTL_SECONDS = 24 * 3600
# Redis unreachable: fail fast and try once more on a fresh connection (a pooled one may be
# stale after a Redis restart), with no back-off, so the first request after Redis is back
# succeeds instead of sleeping through a retry schedule.
CONNECT_TIMEOUT_SECONDS = 2.0
STORE_RETRIES = 1
# Connections per store client (per node on a cluster), and how long a call waits for a free one.
DEFAULT_MAX_CONNECTIONS = 100
DEFAULT_POOL_TIMEOUT_SECONDS = 2.0
# Errors that mean "the store is not answering now", as opposed to a refusal or a bug.
UNAVAILABLE_ERRORS: tuple[type[BaseException], ...] = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    redis_errors.ClusterDownError,
    redis_errors.TryAgainError,
    redis_errors.ReadOnlyError,
    redis_errors.SlotNotCoveredError,
)

# KEYS: meta, state, events, idem (always a key of the game's slot, so Redis Cluster accepts it),
#       attention queue and claims of the game's shard (same slot, see services.common.attention)
# ARGV: expected version, snapshot, status, result json, idem answer, idem ttl, entry count,
#       use idem ('1'/'0'), lifecycle json, attention score ('' = none), game id,
#       previous log head, new log head,
#       then per entry: seat, bot, move json, events json, kind, chain hash, state digest
# Outbox block (services.outbox): KEYS[7] = the game's outbox shard; after the entries, the outbox
#       events (services.outbox.stream.lua_args), written only when the commit is.
# Format-2 entries (services.eventlog.codec): after the outbox events, their count, then per entry
#       the binary chain hash, the binary state digest and the compressed body (fields h, d, z).
#       The commit writes its entries there, with the entry count of ARGV[7] (format 1) = 0.
_COMMIT = (
    """
local use_idem = ARGV[8] == '1'
if use_idem then
  local earlier = redis.call('GET', KEYS[4])
  if earlier then return {'idempotent', earlier} end
end
local meta = redis.call('HMGET', KEYS[1], 'version', 'status')
if not meta[1] then return {'missing', ''} end
if meta[2] ~= 'active' then return {'not_active', meta[2]} end
local version = tonumber(meta[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', meta[1]} end
-- The chain must continue from the head stored with this version (a second guard beside it).
if (redis.call('HGET', KEYS[1], 'log_head') or '') ~= ARGV[12] then return {'conflict', meta[1]} end
local count = tonumber(ARGV[7])
for i = 0, count - 1 do
  local base = 14 + i * 7
  version = version + 1
  redis.call('XADD', KEYS[3], version .. '-1', 'seat', ARGV[base], 'bot', ARGV[base + 1],
             'move', ARGV[base + 2], 'events', ARGV[base + 3], 'kind', ARGV[base + 4],
             'hash', ARGV[base + 5], 'digest', ARGV[base + 6])
end
-- ---- format-2 entries (services.eventlog.codec): after the outbox events ----
local compact_at = 14 + count * 7
compact_at = compact_at + 2 + tonumber(ARGV[compact_at] or '0') * 4
local compact_count = tonumber(ARGV[compact_at] or '0')
for i = 0, compact_count - 1 do
  local base = compact_at + 1 + i * 3
  version = version + 1
  redis.call('XADD', KEYS[3], version .. '-1', 'h', ARGV[base], 'd', ARGV[base + 1], 'z', ARGV[base + 2])
end
-- ---- end format-2 entries ----
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'version', version, 'status', ARGV[3], 'result', ARGV[4], 'lifecycle', ARGV[9],
           'log_head', ARGV[13])
if use_idem then redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6])) end
redis.call('HDEL', KEYS[6], ARGV[11])
if ARGV[10] == '' then redis.call('ZREM', KEYS[5], ARGV[11]) else redis.call('ZADD', KEYS[5], ARGV[10], ARGV[11]) end
"""
    + outbox_stream.lua_block("KEYS[7]", "14 + count * 7")
    + legal_fingerprint.LUA_FUNCTIONS
    + """
-- ---- legal-moves answers (services.legalmoves): KEYS[8] = the game's legal hash; after the
-- format-2 entries, the identity the answers were made from, then their count, then per answer
-- its field and bytes.  Written with the metadata just committed, only if the players and token
-- hashes are still those the answers were made from; the old answers go in any case.
local legal_at = compact_at + 1 + compact_count * 3
local legal_count = tonumber(ARGV[legal_at + 1] or '0')
if KEYS[8] then redis.call('DEL', KEYS[8]) end
if legal_count > 0 and legal_identity(KEYS[1]) == ARGV[legal_at] then
  local fingerprint = legal_fingerprint(KEYS[1])
  if fingerprint then
    local fields = {'fp', fingerprint}
    for i = 0, legal_count - 1 do
      fields[#fields + 1] = ARGV[legal_at + 2 + i * 2]
      fields[#fields + 1] = ARGV[legal_at + 3 + i * 2]
    end
    redis.call('HSET', KEYS[8], unpack(fields))
    redis.call('EXPIRE', KEYS[8], """
    + str(legal_fingerprint.TTL_SECONDS)
    + """)
  end
end
-- ---- end legal-moves answers ----
return {'ok', tostring(version)}
"""
)

# KEYS: meta, attention queue, outbox shard.  ARGV: new status, game id, then the outbox events
# (services.outbox.stream.lua_args).  Waiting or active games only.
_SET_STATUS = (
    """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
if status ~= 'active' and status ~= 'waiting' then return {'not_active', status} end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
"""
    + outbox_stream.lua_block("KEYS[3]", "3")
    + """
return {'ok', status}
"""
)


# ---- one-command load (lean-path: services.common.store.GameStore.load_with) ----
# KEYS: meta, snapshot, then keys of the same game (e.g. idempotency answers).  One atomic read
# in one command: a MULTI of HGETALL + GETs cost redis-py four replies to parse per request.
_LOAD = """
local out = {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or false}
for index = 3, #KEYS do out[#out + 1] = redis.call('GET', KEYS[index]) or false end
return out
"""
# ---- end of the one-command load ----


class StoreError(Exception):
    """Base of the store's refusals."""


class GameNotFound(StoreError):
    """No game with that id."""


class VersionConflict(StoreError):
    """The game moved on since the caller's version."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class GameNotActive(StoreError):
    """The game is finished or aborted."""

    def __init__(self, status: str) -> None:
        super().__init__(f"the game is {status}")
        self.status = status


@dataclass(frozen=True)
class Fairness:
    """A game's seed provenance (see :mod:`services.fairness`); the secret stays server-side until the end."""

    server_secret: str
    seed_commitment: str
    seed_source: str
    client_seed: str


@dataclass(frozen=True)
class GameMeta:
    """What the store knows about a game besides its snapshot."""

    game_id: str
    game_type: str
    seed: int
    options: dict[str, Any]
    players: list[dict[str, str]]
    token_hashes: list[str]
    status: str
    version: int
    result: dict[str, Any] | None
    fairness: Fairness = field(default_factory=lambda: Fairness("", "", "", ""))
    log_head: str = ""
    lifecycle: dict[str, Any] = field(default_factory=dict)
    host_hash: str = ""
    visibility: str = "public"
    created_ms: int = 0
    lobby_rev: int = 0
    # Ratings (services/rating/): whether the game is rated, and its tournament table if any.
    rated: bool = False
    tournament: str = ""
    # Compacted by the retention policy (services.retention.archive): a compressed snapshot, no stream.
    archived: bool = False
    # Digest of the raw players and token hashes read (services.legalmoves.fingerprint.identity).
    identity: str = ""

    def is_host(self, token: str) -> bool:
        """Whether ``token`` is this game's host token."""
        return bool(self.host_hash) and secrets.compare_digest(self.host_hash, hash_token(token))

    def seat_of_token(self, token: str) -> int | None:
        """The seat a bearer token belongs to, if any."""
        digest = hash_token(token)
        for seat, stored in enumerate(self.token_hashes):
            if stored and secrets.compare_digest(stored, digest):
                return seat
        return None


@dataclass(frozen=True)
class LogEntry:
    """One accepted move in the game's stream (version 0 is the creation)."""

    version: int
    seat: int | None
    bot: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    hash: str = ""
    state_digest: str = ""
    kind: str = ""


@dataclass(frozen=True)
class Commit:
    """One entry to append: who, which bot (or ""), the move and its unredacted events.

    ``kind`` is "" for a move; lifecycle entries ("timeout", "resign") have no move.
    ``state_digest`` is the digest of the snapshot the entry produced and ``hash`` the entry's
    chain hash (both set by :func:`services.fairness.chain.seal` before committing).
    """

    seat: int
    bot: str
    move: dict[str, Any] | None
    events: list[dict[str, Any]]
    kind: str = ""
    state_digest: str = ""
    hash: str = ""


@dataclass(frozen=True)
class NewGame:
    """Everything :meth:`GameStore.create` stores for a new game.

    ``genesis`` (the chain's first hash and the set-up snapshot's digest) is set for a game
    that starts at once; a game that waits for players gets it when it starts.
    """

    game_id: str
    seed: int
    options: dict[str, Any]
    players: list[dict[str, Any]]
    token_hashes: list[str]
    host_hash: str
    status: str
    snapshot: bytes
    lifecycle: dict[str, Any]
    visibility: str
    created_ms: int
    attention_ms: int | None
    fairness: Fairness
    genesis: tuple[str, str] | None
    rated: bool = False
    tournament: str = ""

    @property
    def game_type(self) -> str:
        """The game type named by the id."""
        return game_type_of(self.game_id)


def hash_token(token: str) -> str:
    """Seat tokens are long random strings, so a plain SHA-256 is enough to store them."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh seat token."""
    return secrets.token_urlsafe(32)


def game_type_of(game_id: str) -> str:
    """The game type named by a game id's prefix ("" if the id is malformed)."""
    prefix, _, rest = game_id.rpartition("-")
    if not prefix or len(rest) != 24 or any(c not in "0123456789abcdef" for c in rest):
        return ""
    return prefix


def game_keys(game_id: str) -> tuple[str, str, str]:
    """Meta, state and events keys of a game (one hash slot)."""
    tag = f"game:{{{game_id}}}"
    return f"{tag}:meta", f"{tag}:state", f"{tag}:events"


_keys = game_keys


def _active_index(game_type: str) -> str:
    return f"chaiwala:active:{game_type}"


def _decode(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


def _entry(game_type: str, fields: dict[Any, Any], entry_id: bytes | str) -> LogEntry:
    version = int(_decode(entry_id).split("-")[0])
    if codec.is_compact(fields):
        body = codec.decode(game_type, fields)
        return LogEntry(version, body.seat, body.bot, body.move, body.events, body.hash, body.state_digest, body.kind)
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


def _client(
    url: str, cluster: bool, max_connections: int, pool_timeout: float | None
) -> aioredis.Redis | RedisCluster:
    """A Redis (or Redis Cluster) client with a bounded pool; ``pool_timeout=None`` waits as long as needed."""
    if cluster:
        return RedisCluster.from_url(
            url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS, max_connections=max_connections
        )
    retry = Retry(NoBackoff(), STORE_RETRIES)
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_timeout,
        socket_connect_timeout=CONNECT_TIMEOUT_SECONDS,
        retry=retry,
        retry_on_error=[redis_errors.ConnectionError, redis_errors.TimeoutError],
    )
    return aioredis.Redis(connection_pool=pool)


class GameStore:
    """Async access to games in Redis (single server or Redis Cluster)."""

    def __init__(self, client: aioredis.Redis | RedisCluster) -> None:
        self.redis = client
        self._source: tuple[str, bool] | None = None
        self._commit = client.register_script(_COMMIT)
        self._set_status = client.register_script(_SET_STATUS)
        self._load = client.register_script(_LOAD)

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
        store = cls(_client(url, cluster, max_connections, pool_timeout))
        store._source = (url, cluster)
        return store

    def blocking_client(self, max_connections: int) -> aioredis.Redis | RedisCluster:
        """A client of its own for blocking reads (live-event readers), so they never hold the
        connections calls need; this store's own client when it was not made from a URL."""
        if self._source is None:
            return self.redis
        url, cluster = self._source
        return _client(url, cluster, max_connections, pool_timeout=None)

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
                    "seed": game.seed,
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
                    "server_secret": game.fairness.server_secret,
                    "seed_commitment": game.fairness.seed_commitment,
                    "seed_source": game.fairness.seed_source,
                    "client_seed": game.fairness.client_seed,
                    "log_head": game.genesis[0] if game.genesis else "",
                    "rated": "1" if game.rated else "",
                    "tournament": game.tournament,
                },
            )
            pipe.set(state_key, game.snapshot)
            if game.genesis is not None:
                creation: dict[Any, Any] = codec.encode(game.game_type, None, "", "", None, [], *game.genesis)
                pipe.xadd(events_key, creation, id="0-1")
            if game.attention_ms is not None:
                pipe.zadd(queue, {game_id: game.attention_ms})
            if game.status == "active":  # the outbox event commits with the game (services.outbox)
                started = outbox_events.game_started(game_id, game.game_type, game.players, game.created_ms)
                outbox_stream.append(pipe, started, game_id)
            await pipe.execute()
        if game.status == "active":
            await self.redis.sadd(_active_index(game.game_type), game_id)
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
        return meta, zlib.decompress(snapshot) if meta.archived else snapshot, values

    async def meta(self, game_id: str) -> GameMeta:
        """Metadata only."""
        raw = await self.redis.hgetall(_keys(game_id)[0])
        if not raw:
            raise GameNotFound(game_id)
        return self._meta(game_id, raw)

    @staticmethod
    def _meta(game_id: str, raw: dict[Any, Any]) -> GameMeta:
        data = {_decode(k): _decode(v) for k, v in raw.items()}
        return GameMeta(
            game_id=game_id,
            game_type=data["game_type"],
            seed=int(data["seed"]),
            options=orjson.loads(data["options"]),
            players=orjson.loads(data["players"]),
            token_hashes=orjson.loads(data["token_hashes"]),
            status=data["status"],
            version=int(data["version"]),
            result=orjson.loads(data["result"]) if data.get("result") else None,
            fairness=Fairness(
                server_secret=data.get("server_secret", ""),
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

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        snapshot: bytes,
        status: str,
        result: dict[str, Any] | None,
        commits: Sequence[Commit],
        idempotency_key: str = "",
        answer: bytes = b"",
        lifecycle: dict[str, Any] | None = None,
        attention_ms: int | None = None,
        previous_head: str = "",
        outbox: Sequence[outbox_stream.OutboxEvent] = (),
        legal: LegalEntries | None = None,
    ) -> tuple[str, int | bytes]:
        """Append moves atomically if the game is still at ``expected_version``.

        ``commits`` are sealed (chain hash and state digest set) on top of ``previous_head``,
        the head stored with ``expected_version``.  ``outbox`` events are written in the same
        atomic step (only if the commit is); so are ``legal`` answers (:mod:`services.legalmoves`).

        Returns ``("ok", new_version)`` or ``("idempotent", first_answer)``; raises
        :class:`VersionConflict`, :class:`GameNotActive` or :class:`GameNotFound`.
        """
        meta_key, state_key, events_key = _keys(game_id)
        args: list[Any] = [
            expected_version,
            snapshot,
            status,
            orjson.dumps(result) if result is not None else "",
            answer,
            IDEMPOTENCY_TTL_SECONDS,
            0,  # format-1 entries: none (they follow the outbox events, in format 2)
            "1" if idempotency_key else "0",
            orjson.dumps(lifecycle or {}),
            score_arg(attention_ms),
            game_id,
            previous_head,
            commits[-1].hash if commits else previous_head,
        ]
        args += outbox_stream.lua_args(outbox)
        args.append(len(commits))
        game_type = game_type_of(game_id)
        for item in commits:
            fields = codec.encode(game_type, item.seat, item.bot, item.kind, item.move, item.events, item.hash,
                                  item.state_digest)  # fmt: skip
            args += [fields["h"], fields["d"], fields["z"]]
        args += _legal_args(legal)
        # Without an idempotency key a placeholder of the same slot keeps the script single-slot.
        idem = idempotency_key or f"game:{{{game_id}}}:idem:-"
        keys = [meta_key, state_key, events_key, idem, *keys_for_game(game_id), outbox_stream.outbox_key_for(game_id),
                legal_fingerprint.legal_key(game_id)]  # fmt: skip
        outcome, value = await self._commit(keys=keys, args=args)
        outcome = _decode(outcome)
        if outcome == "ok":
            return "ok", int(_decode(value))
        if outcome == "idempotent":
            return "idempotent", value if isinstance(value, bytes) else str(value).encode()
        if outcome == "conflict":
            raise VersionConflict(int(_decode(value)))
        if outcome == "not_active":
            raise GameNotActive(_decode(value))
        raise GameNotFound(game_id)

    def idempotency_key(self, game_id: str, seat: int, key: str) -> str:
        """The Redis key that remembers the first answer to ``key`` from ``seat``."""
        return f"game:{{{game_id}}}:idem:{seat}:{key}" if key else ""

    async def set_status(
        self, game_id: str, game_type: str, status: str, outbox: Sequence[outbox_stream.OutboxEvent] = ()
    ) -> str:
        """Move a waiting or active game to ``status`` (e.g. aborted); return its former status.

        ``outbox`` events are written in the same atomic step (only if the status changes).
        """
        queue, _ = keys_for_game(game_id)
        keys = [_keys(game_id)[0], queue, outbox_stream.outbox_key_for(game_id)]
        outcome, value = await self._set_status(keys=keys, args=[status, game_id, *outbox_stream.lua_args(outbox)])
        outcome = _decode(outcome)
        if outcome == "missing":
            raise GameNotFound(game_id)
        if outcome == "not_active":
            raise GameNotActive(_decode(value))
        await self.mark_inactive(game_type, game_id)
        return _decode(value)

    async def mark_active(self, game_type: str, game_id: str) -> None:
        """Add a game that just started to the active index."""
        await self.redis.sadd(_active_index(game_type), game_id)

    async def mark_inactive(self, game_type: str, game_id: str) -> None:
        """Drop a finished (or aborted) game from the active index."""
        await self.redis.srem(_active_index(game_type), game_id)

    async def count_active(self, game_type: str) -> int:
        """How many games of this type are active."""
        return int(await self.redis.scard(_active_index(game_type)))

    async def entries(self, game_id: str, after: int = -1) -> list[LogEntry]:
        """Stream entries of versions strictly greater than ``after`` (-1: all, creation included)."""
        start = "-" if after < 0 else f"{after + 1}-0"
        raw: Any = await self.redis.xrange(_keys(game_id)[2], min=start, max="+")
        game_type = game_type_of(game_id)
        return [_entry(game_type, fields, entry_id) for entry_id, fields in raw or []]


def _legal_args(legal: LegalEntries | None) -> list[Any]:
    """The commit script's legal-moves block: identity, count, then field and bytes per answer."""
    if legal is None:
        return ["", 0]
    return [legal.identity, len(legal.answers), *(part for answer in legal.answers for part in answer)]


# ---- live readers (services.streaming) ------------------------------------------------------
# Plain reads on any client, so the readers of services.streaming.hub can use a client of their own.


async def last_logged_version(client: aioredis.Redis | RedisCluster, game_id: str) -> int:
    """The version of the game's last log entry (-1 while it has none: a waiting game)."""
    raw: Any = await client.xrevrange(_keys(game_id)[2], max="+", min="-", count=1)
    return int(_decode(raw[0][0]).split("-")[0]) if raw else -1


async def read_log(
    client: aioredis.Redis | RedisCluster, game_id: str, after: int, block_ms: int, count: int = 100
) -> list[LogEntry]:
    """Entries after version ``after``, waiting up to ``block_ms`` for the first ([] if none came)."""
    last_id = f"{after}-1" if after >= 0 else "0-0"
    answer: Any = await client.xread({_keys(game_id)[2]: last_id}, block=block_ms, count=count)
    game_type = game_type_of(game_id)
    return [_entry(game_type, fields, entry_id) for _stream, items in answer or [] for entry_id, fields in items]


async def progress(client: aioredis.Redis | RedisCluster, game_id: str) -> tuple[str, int]:
    """The game's status and version ("" and -1 for an unknown game)."""
    status, version = await client.hmget(_keys(game_id)[0], ["status", "version"])
    return _decode(status), int(_decode(version) or -1)
