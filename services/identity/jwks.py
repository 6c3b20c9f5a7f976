"""A platform issuer's public keys: its JWKS, fetched without blocking and cached with bounds.

* The set is fetched on first use and again once it is older than ``max_age``.
* A token naming a key id the cache does not know triggers a refetch (a platform rotated its
  keys), but at most once per ``min_refresh`` seconds, and one fetch at a time: tokens with
  made-up key ids cannot hammer the platform's JWKS URL.
* A fetch that fails keeps the keys already known (and is logged without any token).
* Documents are bounded (size, key count); symmetric (``oct``) keys and keys marked for
  encryption are dropped, so a published secret can never verify anything.

URLs are fetched with httpx's async client; files are read in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import jwt

from services.common.logs import get_logger
from services.identity.player import invalid_player_token
from services.identity.settings import IssuerConfig

log = get_logger("identity")
MAX_JWKS_BYTES = 256 * 1024
MAX_KEYS = 64
FETCH_TIMEOUT_SECONDS = 5.0


class JwksError(Exception):
    """A JWKS could not be fetched or read (the reason, never a secret)."""


Keys = dict[str, tuple[jwt.PyJWK, str]]  # key id -> the key and the one algorithm it names ("" if none)


def usable_keys(document: Any) -> Keys:
    """The signing keys of a JWKS document by key id ("" for a key without one), bounded."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise JwksError("not a JWKS document (an object with a `keys` list)")
    keys: Keys = {}
    for entry in document["keys"][:MAX_KEYS]:
        if not isinstance(entry, dict) or entry.get("kty") == "oct" or entry.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(entry)
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            continue  # a key type or curve this server cannot use: ignored, as RFC 7517 asks
        keys[str(entry.get("kid", ""))] = (key, str(entry.get("alg", "")))
    return keys


async def _fetch_url(url: str) -> bytes:
    async with (
        httpx.AsyncClient(timeout=FETCH_TIMEOUT_SECONDS, follow_redirects=False) as client,
        client.stream("GET", url, headers={"accept": "application/json"}) as response,
    ):
        if response.status_code != 200:
            raise JwksError(f"HTTP {response.status_code}")
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > MAX_JWKS_BYTES:
                raise JwksError(f"larger than {MAX_JWKS_BYTES} bytes")
        return bytes(body)


def _read_file(path: str) -> bytes:
    with Path(path).open("rb") as handle:
        data = handle.read(MAX_JWKS_BYTES + 1)
    if len(data) > MAX_JWKS_BYTES:
        raise JwksError(f"larger than {MAX_JWKS_BYTES} bytes")
    return data


class JwksSource:
    """The cached public keys of one platform issuer."""

    def __init__(self, config: IssuerConfig, max_age: float, min_refresh: float) -> None:
        self.config = config
        self.max_age = max_age
        self.min_refresh = min_refresh
        self.keys: Keys = {}
        self.fetched_at = float("-inf")  # last successful fetch (monotonic)
        self.attempted_at = float("-inf")  # last fetch, successful or not
        self.fetches = 0
        self._lock = asyncio.Lock()

    async def key(self, kid: str, algorithm: str) -> jwt.PyJWK:
        """The key ``kid`` for ``algorithm``, refetching the set when it is old or lacks ``kid``."""
        if time.monotonic() - self.fetched_at > self.max_age:
            await self._refresh(self.max_age)
        key = self._lookup(kid)
        if key is None:
            await self._refresh(self.min_refresh)
            key = self._lookup(kid)
        if key is None:
            raise invalid_player_token("no key of the issuer has this key id")
        found, named = key
        if named and named != algorithm:  # a key bound to one algorithm signs with no other
            raise invalid_player_token("the token's algorithm does not match its key")
        return found

    def _lookup(self, kid: str) -> tuple[jwt.PyJWK, str] | None:
        if kid:
            return self.keys.get(kid)
        # No key id: only unambiguous when the issuer publishes exactly one key.
        return next(iter(self.keys.values())) if len(self.keys) == 1 else None

    async def _refresh(self, not_within: float) -> None:
        """Fetch the set unless a fetch was attempted less than ``not_within`` seconds ago."""
        async with self._lock:  # one fetch at a time; waiters then see its result
            if time.monotonic() - self.attempted_at < not_within:
                return
            self.attempted_at = time.monotonic()
            self.fetches += 1
            try:
                raw = await self._load()
                keys = usable_keys(json.loads(raw))
            except (JwksError, httpx.HTTPError, OSError, ValueError) as error:
                log.warning("jwks_fetch_failed", issuer=self.config.alias, error=str(error)[:200])
                return
            self.keys = keys
            self.fetched_at = time.monotonic()
            log.info("jwks_fetched", issuer=self.config.alias, keys=len(keys))

    async def _load(self) -> bytes:
        if self.config.jwks_url:
            return await _fetch_url(self.config.jwks_url)
        return await asyncio.to_thread(_read_file, self.config.jwks_file)
