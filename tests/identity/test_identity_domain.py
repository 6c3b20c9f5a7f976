"""services.identity on its own: configuration refusals, the JWKS cache's bounded refetches, and
the guest key ring's rotation, against a real Redis and a real JWKS server (tests/support/issuer.py).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from redis.asyncio import Redis

from services.common.errors import ServiceError
from services.common.store import new_token
from services.identity.guest import GuestKeys, keys_hash
from services.identity.player import guest_mark
from services.identity.settings import IdentityConfigError, IdentitySettings
from services.identity.verifier import Verifier
from tests.support import secrets
from tests.support.issuer import Issuer, SigningKey


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer([SigningKey.rsa("r1"), SigningKey.ec("e1")]) as platform:
        yield platform


def _settings(*issuers: dict[str, Any], **overrides: Any) -> IdentitySettings:
    return IdentitySettings(trusted_issuers=json.dumps(list(issuers)), **overrides)


@pytest.mark.parametrize(
    "change,reason",
    [
        ({"algorithms": ["HS256"]}, "HS256 is not allowed"),
        ({"algorithms": ["RS256", "none"]}, "none is not allowed"),
        ({"algorithms": []}, "at least one algorithm"),
        ({"alias": "guest"}, "reserved"),
        ({"alias": "Has Space"}, "alias is 1-32"),
        ({"jwks_url": "http://id.acme.test/jwks.json"}, "https"),
        ({"jwks_file": "/tmp/jwks.json"}, "exactly one of jwks_url and jwks_file"),
        ({"audience": " "}, "must not be empty"),
        ({"extra": 1}, "Extra inputs"),
    ],
)
def test_a_bad_issuer_entry_stops_the_configuration_with_its_reason(
    issuer: Issuer, change: dict[str, Any], reason: str
) -> None:
    with pytest.raises(IdentityConfigError, match=reason):
        _settings(issuer.config(**change)).issuers()


def test_issuers_may_not_share_an_alias_or_take_the_guest_issuer(issuer: Issuer) -> None:
    with pytest.raises(IdentityConfigError, match="share one alias"):
        _settings(issuer.config(), issuer.config(issuer="https://other.test")).issuers()
    with pytest.raises(IdentityConfigError, match="guest issuer"):
        _settings(issuer.config(issuer="urn:chaiwala:guest")).issuers()
    with pytest.raises(IdentityConfigError, match="not JSON"):
        IdentitySettings(trusted_issuers="[{").issuers()


async def _with_verifier(redis_url: str, settings: IdentitySettings, body: Any) -> Any:
    redis = Redis.from_url(redis_url)
    try:
        return await body(Verifier(settings, redis))
    finally:
        await redis.aclose()


def test_unknown_key_ids_refetch_the_jwks_at_most_once_per_interval(redis_url: str, issuer: Issuer) -> None:
    settings = _settings(issuer.config(), jwks_refresh_min_seconds=3600)
    rsa, stranger = issuer.keys[0], SigningKey.ec("not-published")

    async def body(verifier: Verifier) -> tuple[int, int]:
        assert (await verifier.player(issuer.token(rsa))) is not None
        fetched = issuer.requests
        for _ in range(20):
            with pytest.raises(ServiceError) as refused:
                await verifier.player(issuer.token(stranger, sub="x"))
            assert refused.value.code == "invalid_player_token"
        return fetched, issuer.requests

    before = issuer.requests
    fetched, after = asyncio.run(_with_verifier(redis_url, settings, body))
    assert fetched == before + 1  # the first token fetched the set
    assert after == fetched  # twenty unknown kids inside the interval fetched nothing more


def test_a_rotated_key_verifies_once_its_jwks_is_refetched(redis_url: str, issuer: Issuer) -> None:
    settings = _settings(issuer.config(), jwks_refresh_min_seconds=0)
    old, new = issuer.keys[1], SigningKey.ec("e2")

    async def body(verifier: Verifier) -> str:
        assert (await verifier.player(issuer.token(old))) is not None
        issuer.publish([*issuer.keys, new])
        try:
            player = await verifier.player(issuer.token(new, sub="7", name="Asha"))
        finally:
            issuer.publish([key for key in issuer.keys if key.kid != new.kid])
        assert player is not None
        return f"{player.player_id} {player.name}"

    assert asyncio.run(_with_verifier(redis_url, settings, body)) == "acme:7 Asha"


def test_seat_tokens_and_operator_keys_are_not_player_tokens(redis_url: str, issuer: Issuer) -> None:
    async def body(verifier: Verifier) -> list[Any]:
        return [await verifier.player(token) for token in (new_token(), "", "operator-key-0123456789")]

    assert asyncio.run(_with_verifier(redis_url, _settings(issuer.config()), body)) == [None, None, None]


def test_the_guest_key_ring_rotates_and_publishes_each_key_until_its_tokens_expire(redis_url: str) -> None:
    hour, ttl, leeway = 3600.0, 600, 30
    start = 1_000 * hour  # slot 1000

    async def body() -> None:
        redis = Redis.from_url(redis_url)
        ring_hash = keys_hash(hour)
        try:
            await redis.delete(ring_hash)
            ring, other_process = GuestKeys(redis, hour, ttl, leeway), GuestKeys(redis, hour, ttl, leeway)
            first = await ring.signing_key(start)
            assert (await other_process.signing_key(start + 10)).kid == first.kid  # shared through Redis
            second = await other_process.signing_key(start + hour)
            assert second.kid != first.kid
            # In the new slot the old key is still published: tokens it signed live up to ttl + leeway longer.
            published = await ring.published(start + hour + 1)
            assert [key["kid"] for key in published] == [second.kid, first.kid]
            assert all(set(key) == {"kty", "crv", "x", "y", "kid", "use", "alg"} for key in published)  # no "d"
            assert await ring.public_key(first.kid, start + hour + ttl + leeway) is not None
            gone = start + hour + ttl + leeway + 1
            assert await ring.public_key(first.kid, gone) is None
            assert [key["kid"] for key in await ring.published(gone)] == [second.kid]
            assert await redis.hlen(ring_hash) == 1  # the retired key was deleted
            assert await ring.public_key(f"{second.slot}.forged", gone) is None
        finally:
            await redis.delete(ring_hash)
            await redis.aclose()

    asyncio.run(body())


def test_guest_tokens_verify_with_the_published_key_and_name_a_guest_player(redis_url: str) -> None:
    async def body(verifier: Verifier) -> tuple[str, str, str]:
        assert verifier.guest is not None
        issued = await verifier.guest.mint("  Mira ")
        secrets.remember(issued.token)
        player = await verifier.player(issued.token)
        assert player == issued.player
        (published,) = [key for key in await verifier.guest.keys.published(time.time())
                        if key["kid"] == jwt.get_unverified_header(issued.token)["kid"]]
        claims = jwt.decode(issued.token, jwt.PyJWK(published).key, algorithms=["ES256"], audience="chaiwala")
        return player.player_id, player.name, claims["sub"]

    player_id, name, sub = asyncio.run(_with_verifier(redis_url, IdentitySettings(), body))
    assert player_id == f"guest:{sub}" and name == f"Mira (guest {guest_mark(sub)})"  # the guest mark


def test_an_issuer_may_publish_its_keys_in_a_file(redis_url: str, issuer: Issuer, tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [issuer.keys[1].public_jwk(), {"kty": "oct", "k": "c2VjcmV0", "kid": "s"}]}))
    config = {**issuer.config(alias="filed"), "jwks_url": "", "jwks_file": str(path)}

    async def body(verifier: Verifier) -> str:
        player = await verifier.player(issuer.token(issuer.keys[1], sub="f1"))
        assert player is not None
        with pytest.raises(ServiceError, match="no key"):  # the RSA key is not in the file
            await verifier.player(issuer.token(issuer.keys[0], sub="f2"))
        return player.player_id

    assert asyncio.run(_with_verifier(redis_url, _settings(config), body)) == "filed:f1"
