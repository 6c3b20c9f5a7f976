"""The server's own guest issuer: ES256 signing keys shared through Redis, rotated on a clock.

Time is cut into slots of ``rotation`` seconds.  The first process to sign in a slot makes that
slot's key (an ES256 key pair; ES256 because every JWT library and WebCrypto verify it) and
stores it with ``HSETNX`` in one Redis hash, so every gateway worker and rules-service process
signs with the same key: a racing process simply reads the winner's.  A slot's key id names
its slot (``<slot>.<random>``), so verifying needs only that slot's field.

A key signs for its own slot only, and stays published (and accepted) until every token it
could have signed has expired: the end of its slot plus the token lifetime plus the leeway.
Older keys are deleted from the hash when the published set is read.  The hash is named after
the rotation period (slots of another length are another ring): changing the period starts a new
ring, and guest tokens signed by the old one are no longer accepted (guests start new sessions).

The private halves live in Redis sealed with the master key ring (:mod:`services.common.sealing`,
bound to their hash and slot), so a copy of Redis signs nothing; the key id stays readable (it is
public).  A key stored before sealing is read as it is.  Only public halves ever leave this module
(:meth:`GuestKeys.published`).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm
from redis.asyncio import Redis, RedisCluster

from services.common.sealing import keyring, replace_if_unchanged
from services.identity.player import Player, default_guest_name, player_id, shown_name
from services.identity.settings import GUEST_ALIAS
from services.lobby.seats import player_name

ALGORITHM = "ES256"
KEYS_PREFIX = "identity:guest:keys:"
MAX_CACHED_KEYS = 256


@dataclass(frozen=True)
class SigningKey:
    """One slot's key pair."""

    kid: str
    slot: int
    private: ec.EllipticCurvePrivateKey

    def public_jwk(self) -> dict[str, Any]:
        """The public half as a JWK (no private member)."""
        jwk: dict[str, Any] = ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**jwk, "kid": self.kid, "use": "sig", "alg": ALGORITHM}


def _new_key(slot: int) -> SigningKey:
    return SigningKey(f"{slot}.{secrets.token_hex(4)}", slot, ec.generate_private_key(ec.SECP256R1()))


def _context(hash_name: str, slot: int) -> str:
    """What a slot's sealed private key is bound to: its ring and its slot."""
    return f"guest-key:{hash_name}:{slot}"


def _encode(key: SigningKey, hash_name: str) -> str:
    pem = key.private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return json.dumps({"kid": key.kid, "pem": keyring().seal_text(pem.decode(), _context(hash_name, key.slot))})


def _decode(slot: int, raw: bytes | str, hash_name: str) -> SigningKey:
    data = json.loads(raw)
    pem = keyring().open_text(str(data["pem"]), _context(hash_name, slot))
    private = serialization.load_pem_private_key(pem.encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    return SigningKey(str(data["kid"]), slot, private)


def keys_hash(rotation: float) -> str:
    """The Redis hash of the key ring whose slots last ``rotation`` seconds."""
    return f"{KEYS_PREFIX}{rotation:g}"


def _kid_of(raw: bytes | str) -> str:
    return str(json.loads(raw)["kid"])


async def reseal_guest_keys(redis: Redis | RedisCluster) -> int:
    """Seal every stored guest signing key with the key ring's current key (``chaiwala secrets
    reseal``); the number rewritten (each a compare-and-set)."""
    rewritten = 0
    async for raw_key in redis.scan_iter(match=f"{KEYS_PREFIX}*"):
        hash_name = raw_key.decode() if isinstance(raw_key, bytes) else str(raw_key)
        stored: dict[Any, Any] = await redis.hgetall(hash_name)  # type: ignore[misc]
        for field, raw in stored.items():
            slot = int(field)
            fresh = _encode(_decode(slot, raw, hash_name), hash_name).encode()
            rewritten += await replace_if_unchanged(redis, hash_name, str(slot), raw, fresh)
    return rewritten


class GuestKeys:
    """The guest issuer's key ring in Redis."""

    def __init__(self, redis: Redis | RedisCluster, rotation: float, token_ttl: int, leeway: int) -> None:
        self.redis = redis
        self.rotation = rotation
        self.hash = keys_hash(rotation)
        self.token_ttl = token_ttl
        self.leeway = leeway
        self._cache: dict[int, SigningKey] = {}

    def slot_of(self, now: float) -> int:
        """The slot ``now`` falls in."""
        return int(now // self.rotation)

    def published_until(self, slot: int) -> float:
        """When the last token a slot's key may have signed expires (leeway included)."""
        return (slot + 1) * self.rotation + self.token_ttl + self.leeway

    async def signing_key(self, now: float) -> SigningKey:
        """The key of ``now``'s slot, made (once, by whichever process is first) when missing."""
        slot = self.slot_of(now)
        key = await self._load(slot)
        if key is None:
            await self.redis.hsetnx(self.hash, str(slot), _encode(_new_key(slot), self.hash))  # type: ignore[misc]
            key = await self._load(slot)
        assert key is not None
        return key

    async def public_key(self, kid: str, now: float) -> ec.EllipticCurvePublicKey | None:
        """The public key ``kid`` if it is a key of this ring still accepted at ``now``."""
        slot_text, _, _ = kid.partition(".")
        if not slot_text.isdigit() or len(slot_text) > 12:
            return None
        slot = int(slot_text)
        if slot > self.slot_of(now) or self.published_until(slot) < now:
            return None
        key = await self._load(slot)
        if key is not None and key.kid != kid:  # kept from before Redis lost the ring? read it again
            self._cache.pop(slot, None)
            key = await self._load(slot)
        return key.private.public_key() if key is not None and key.kid == kid else None

    async def published(self, now: float) -> list[dict[str, Any]]:
        """Every key still accepted at ``now``, public halves only, newest first; drops expired ones."""
        stored: dict[Any, Any] = await self.redis.hgetall(self.hash)  # type: ignore[misc]
        keys, expired = [], []
        for field, raw in stored.items():
            slot = int(field)
            if self.published_until(slot) < now:
                expired.append(field)
            elif slot <= self.slot_of(now):
                cached = self._cache.get(slot)
                keys.append(
                    cached if cached is not None and _kid_of(raw) == cached.kid else _decode(slot, raw, self.hash)
                )
        if expired:
            await self.redis.hdel(self.hash, *expired)  # type: ignore[misc]
        return [key.public_jwk() for key in sorted(keys, key=lambda key: -key.slot)]

    async def _load(self, slot: int) -> SigningKey | None:
        cached = self._cache.get(slot)
        if cached is not None:
            return cached
        raw = await self.redis.hget(self.hash, str(slot))  # type: ignore[misc]
        if raw is None:
            return None
        key = _decode(slot, raw, self.hash)
        if len(self._cache) >= MAX_CACHED_KEYS:
            self._cache.pop(min(self._cache))
        self._cache[slot] = key
        return key


@dataclass(frozen=True)
class IssuedToken:
    """A freshly signed guest token."""

    player: Player
    token: str


class GuestIssuer:
    """Mints and refreshes guest player tokens (``guest:<id>``)."""

    def __init__(self, keys: GuestKeys, issuer: str, audience: str) -> None:
        self.keys = keys
        self.issuer = issuer
        self.audience = audience

    async def mint(self, name: str = "", subject: str = "", now: float | None = None) -> IssuedToken:
        """A token for ``subject`` (a new guest when empty) named ``name`` (checked like any player name)."""
        now = time.time() if now is None else now
        subject = subject or secrets.token_urlsafe(16)
        name = player_name(name, default_guest_name(subject))
        key = await self.keys.signing_key(now)
        issued = int(now)
        expires = issued + self.keys.token_ttl
        claims = {
            "iss": self.issuer,
            "aud": self.audience,
            "sub": subject,
            "name": name,
            "iat": issued,
            "nbf": issued,
            "exp": expires,
        }
        token = jwt.encode(claims, key.private, algorithm=ALGORITHM, headers={"kid": key.kid})
        player = Player(player_id(GUEST_ALIAS, subject), shown_name(GUEST_ALIAS, claims, subject), GUEST_ALIAS, subject,
                        expires)  # fmt: skip
        return IssuedToken(player, token)

    async def key(self, kid: str) -> ec.EllipticCurvePublicKey | None:
        """The public key that verifies a guest token signed with ``kid`` (``None``: not ours or retired)."""
        return await self.keys.public_key(kid, time.time())
