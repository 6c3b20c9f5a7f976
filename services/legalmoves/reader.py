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

from services.common import sentences
from services.common.logs import get_logger
from services.common.store import GameStore, game_keys, hash_token
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


def bearer_token(metadata: Sequence[tuple[str, str]]) -> str:
    """The token of the call's ``authorization`` metadata, read as the rules service reads it."""
    for key, value in metadata:
        if key == "authorization" and value.lower().startswith("bearer "):
            return value[7:].strip()
    return ""


def call_language(metadata: Sequence[tuple[str, str]]) -> str:
    """The language the rules service would answer the call in."""
    for key, value in metadata:
        if key == "accept-language":
            return sentences.pick_language(value)
    return sentences.DEFAULT_LANGUAGE


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

    @classmethod
    def from_url(cls, url: str, cluster: bool, registry: CollectorRegistry) -> LegalMovesReader:
        """A reader of the games' Redis at ``url`` (``""``: none, every GET asks the rules service)."""
        return cls(GameStore.from_url(url, cluster).redis if url else None, registry)

    async def read(self, game_id: str, metadata: Sequence[tuple[str, str]]) -> bytes | None:
        """The bearer's stored answer for the game as it is now, or ``None``."""
        token = bearer_token(metadata)
        if self._read is None or not token:
            self.asked.inc()
            return None
        field = entry_field(hash_token(token), call_language(metadata))
        try:
            answer = await self._read(keys=[game_keys(game_id)[0], legal_key(game_id)], args=[field])
        except Exception as error:  # a cache: Redis trouble only costs the rules call
            self.failed.inc()
            log.warning("legal_moves_read_failed", error=type(error).__name__)
            return None
        if answer is None:
            self.asked.inc()
            return None
        self.stored.inc()
        return bytes(answer)

    async def close(self) -> None:
        """Release the client's connections."""
        if self.client is not None:
            await self.client.aclose()
