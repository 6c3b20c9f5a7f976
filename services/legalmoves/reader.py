"""The gateway's side: a seat's stored legal-moves answer, when it is provably current.

One Lua script reads the game's metadata fingerprint and the seat's answer together and returns
the answer only when the fingerprint it was stored with is the metadata's now
(:mod:`services.legalmoves`).  ``None`` means "ask the rules service": no Redis configured, a
bearer that is not ``Bearer <token>``, no stored answer, or any error reaching Redis (counted).
"""

from __future__ import annotations

from collections.abc import Sequence

from prometheus_client import CollectorRegistry, Counter
from redis import asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from services.common.callmeta import bearer_token, call_language
from services.common.logs import get_logger
from services.common.store import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_SECONDS, hash_token, redis_client
from services.filing.keys import game_keys
from services.legalmoves.fingerprint import LUA_FUNCTIONS, entry_field, legal_key

log = get_logger("gateway")

# KEYS: meta, legal.  ARGV: the field of the bearer's answer.
_READ = (
    LUA_FUNCTIONS
    + """
local fingerprint = legal_fingerprint(KEYS[1])
if not fingerprint then return false end
local stored = redis.call('HMGET', KEYS[2], 'fp', ARGV[1])
if stored[1] ~= fingerprint then return false end
return stored[2]
"""
)


# Where the gateway's limits layer leaves the answer it read in its own round trip (gateway.limits.Rider).
RIDDEN = "chaiwala.legal_moves"


def answer_field(metadata: Sequence[tuple[str, str]]) -> str:
    """The field of the bearer's answer in the call's language ("" without a bearer token)."""
    token = bearer_token(metadata)
    return entry_field(hash_token(token), call_language(metadata)) if token else ""


class LegalMovesReader:
    """Reads stored answers through ``client`` (``None``: never, every GET asks the rules service)."""

    def __init__(self, client: aioredis.Redis | RedisCluster | None, registry: CollectorRegistry) -> None:
        self.client = client
        self._read = client.register_script(_READ) if client is not None else None
        outcomes = Counter(
            "chaiwala_gateway_legal_moves_answers_total",
            "GET legal-moves answers by source: stored (no rules call), asked (the rules service), "
            "failed (Redis error, then asked)",
            ["source"],
            registry=registry,
        )
        self.stored, self.asked, self.failed = (outcomes.labels(s) for s in ("stored", "asked", "failed"))
        reads = Counter(
            "chaiwala_gateway_legal_moves_reads_total",
            "Reads of stored GET legal-moves answers by round trip: the limits' own (limits) or one more (own)",
            ["round_trip"],
            registry=registry,
        )
        self.read_with_limits, self.read_alone = reads.labels("limits"), reads.labels("own")

    @classmethod
    def from_url(cls, url: str, cluster: bool, registry: CollectorRegistry) -> LegalMovesReader:
        """A reader of the games' Redis at ``url`` (``""``: none, every GET asks the rules service)."""
        client = redis_client(url, cluster, DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_SECONDS) if url else None
        return cls(client, registry)

    @staticmethod
    def script_source() -> str:
        """The read script, for a caller that runs it inside a script of its own (gateway.limits)."""
        return _READ

    @staticmethod
    def script_keys(game_id: str) -> list[str]:
        """The read script's keys for a game."""
        return [game_keys(game_id)[0], legal_key(game_id)]

    async def read(
        self, game_id: str, metadata: Sequence[tuple[str, str]], ridden: tuple[object, object] | None = None
    ) -> bytes | None:
        """The bearer's stored answer for the game as it is now, or ``None``.

        ``ridden`` is what another layer already read with this script (its tag is ``(game_id,
        field)``): used when it read this very answer, else read here.
        """
        field = answer_field(metadata)
        if self._read is None or not field:
            self.asked.inc()
            return None
        if ridden is not None and ridden[0] == (game_id, field):
            answer = ridden[1]
            self.read_with_limits.inc()
        else:
            self.read_alone.inc()
            try:
                answer = await self._read(keys=self.script_keys(game_id), args=[field])
            except Exception as error:  # a cache: Redis trouble only costs the rules call
                self.failed.inc()
                log.warning("legal_moves_read_failed", error=type(error).__name__)
                return None
        if not isinstance(answer, bytes | str):
            self.asked.inc()
            return None
        self.stored.inc()
        return answer.encode() if isinstance(answer, str) else answer

    async def close(self) -> None:
        """Release the client's connections."""
        if self.client is not None:
            await self.client.aclose()
