"""Player identity through the real stack: a real platform issuer (RS256 and ES256 keys, its JWKS on
a real HTTP server), a rules service trusting it, a uvicorn gateway; guest sessions from the
server's own issuer; the same answers over gRPC.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from redis import Redis
from redis.asyncio import Redis as AsyncRedis

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from services.common.errors import error_detail_from_metadata
from services.identity.guest import keys_hash
from services.identity.settings import IdentitySettings
from services.rating.ledger import FinishedGame, Ledger
from tests.support import secrets
from tests.support.client import assert_problem, shown_as_guest
from tests.support.issuer import AUDIENCE, ISSUER, Issuer, SigningKey
from tests.support.stack import Gateway, Services, free_port

GAME = "alubari"
ROTATION_SECONDS = 2.0  # guest keys rotate every two seconds here, so a test can see a rotation


@pytest.fixture(scope="module")
def issuer() -> Iterator[Issuer]:
    with Issuer([SigningKey.rsa("r1"), SigningKey.ec("e1")]) as platform:
        yield platform


def _identity(issuer: Issuer, **overrides: Any) -> IdentitySettings:
    settings: dict[str, Any] = {
        "trusted_issuers": json.dumps([issuer.config()]),
        "jwks_refresh_min_seconds": 0.2,
        "guest_key_rotation_hours": ROTATION_SECONDS / 3600,
        "guest_token_ttl_seconds": 120,
        "session_limit": "100000/minute",
        **overrides,
    }
    return IdentitySettings(**settings)


class IdentityStack:
    """One rules service with its own identity settings and a gateway in front of it."""

    def __init__(self, redis_url: str, identity: IdentitySettings, shared: bool = False, **gateway: Any) -> None:
        self.services = Services(redis_url, identity=identity)
        self.service = self.services.start(GAME)
        # No Redis for the limiter unless ``shared``: counters of this process only, so limits here
        # are this test's.
        self.gateway = Gateway({GAME: self.service.address}, redis_url=redis_url if shared else "", **gateway)
        self.http = httpx.Client(base_url=self.gateway.url, timeout=60)

    def close(self) -> None:
        self.http.close()
        self.gateway.stop()
        self.services.stop(self.service)
        self.services.close()


@pytest.fixture(scope="module")
def stack(redis_url: str, issuer: Issuer) -> Iterator[IdentityStack]:
    running = IdentityStack(redis_url, _identity(issuer), session_limit="1000/minute")
    try:
        yield running
    finally:
        running.close()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _session(http: httpx.Client, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = http.post("/v1/sessions", json=body) if body is not None else http.post("/v1/sessions")
    assert response.status_code == 201, response.text
    session: dict[str, Any] = response.json()
    secrets.remember(session["token"])
    return session


def _me(http: httpx.Client, token: str) -> httpx.Response:
    return http.get("/v1/me", headers=_bearer(token))


def test_platform_tokens_of_both_key_types_name_the_player(stack: IdentityStack, issuer: Issuer) -> None:
    rsa, ec = issuer.keys
    cases = [
        (issuer.token(rsa, sub="42", name="Asha Rao"), "acme:42", "Asha Rao"),
        (issuer.token(ec, sub="u-7", preferred_username="ravi"), "acme:u-7", "ravi"),
        (issuer.token(ec, sub="s9"), "acme:s9", "s9"),
        (issuer.token(rsa, sub="s10", name="\x07Tidy\u200b Name "), "acme:s10", "Tidy Name"),
    ]
    for token, player_id, name in cases:
        response = _me(stack.http, token)
        assert response.status_code == 200, response.text
        assert response.json() == {"player_id": player_id, "name": name, "issuer_alias": "acme", "ratings": []}


def test_a_key_rotated_in_by_the_platform_verifies_after_its_jwks_changes(
    stack: IdentityStack, issuer: Issuer
) -> None:
    old = list(issuer.keys)
    new = SigningKey.ec("e-rotated")
    token = issuer.token(new, sub="rotated")
    assert_problem(_me(stack.http, token), 401, "invalid_player_token")  # not published yet
    issuer.publish([*old, new])
    try:
        deadline = time.monotonic() + 30
        while (response := _me(stack.http, token)).status_code != 200 and time.monotonic() < deadline:
            assert_problem(response, 401, "invalid_player_token")
            time.sleep(0.1)  # the verifier refetches at most every 0.2 s
        assert response.status_code == 200 and response.json()["player_id"] == "acme:rotated"
    finally:
        issuer.publish(old)


def _segment(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def _signed_with_hmac(issuer: Issuer, secret: bytes) -> str:
    """HS256 over valid claims, keyed with the platform's public key: the algorithm-confusion attack."""
    now = int(time.time())
    head = _segment({"alg": "HS256", "typ": "JWT", "kid": issuer.keys[0].kid})
    body = _segment({"iss": ISSUER, "aud": AUDIENCE, "sub": "hs", "iat": now, "exp": now + 600})
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def _tampered(issuer: Issuer) -> str:
    head, _, signature = issuer.token(issuer.keys[0], sub="honest").split(".")
    now = int(time.time())
    forged = _segment({"iss": ISSUER, "aud": AUDIENCE, "sub": "admin", "iat": now, "exp": now + 600})
    return f"{head}.{forged}.{signature}"


def _public_pem(issuer: Issuer) -> bytes:
    public = issuer.keys[0].private.public_key()
    return bytes(public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


BAD_TOKENS: dict[str, Callable[[Issuer], str]] = {
    "expired": lambda i: i.token(i.keys[0], exp=int(time.time()) - 3600, iat=int(time.time()) - 7200),
    "not yet valid": lambda i: i.token(i.keys[1], nbf=int(time.time()) + 3600),
    "wrong audience": lambda i: i.token(i.keys[0], aud="someone-else"),
    "wrong issuer": lambda i: i.token(i.keys[1], iss="https://evil.test"),
    "no expiry": lambda i: i.token(i.keys[0], exp=None),
    "alg none": lambda i: jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": "n", "exp": int(time.time()) + 600},
                                     None, algorithm="none", headers={"kid": i.keys[0].kid}),
    "HS256 keyed with the public key": lambda i: _signed_with_hmac(i, _public_pem(i)),
    "unknown kid": lambda i: i.token(SigningKey.ec("never-published")),
    "tampered payload": _tampered,
    "signed by another key under a known kid": lambda i: i.token(SigningKey("e1", "ES256", SigningKey.ec("x").private)),
    "garbage in JWT shape": lambda i: "abc.def.ghi",
    # Times must be numbers (PyJWT reads "exp": "1893456000" as a number), and a platform token
    # may live at most CHAIWALA_PLAYER_TOKEN_MAX_LIFETIME_SECONDS (a day by default).
    "exp as a string": lambda i: i.token(i.keys[0], exp=str(int(time.time()) + 600)),
    "iat as a string": lambda i: i.token(i.keys[0], iat=str(int(time.time()))),
    "nbf as a string": lambda i: i.token(i.keys[0], nbf=str(int(time.time()) - 5)),
    "exp as true": lambda i: i.token(i.keys[0], exp=True),
    "valid for a year": lambda i: i.token(i.keys[0], exp=int(time.time()) + 365 * 86400),
    "issued a year before it expires": lambda i: i.token(i.keys[0], iat=int(time.time()) - 364 * 86400),
}


@pytest.mark.parametrize("name", list(BAD_TOKENS))
def test_a_bad_player_token_is_refused_as_invalid_and_changes_nothing(
    stack: IdentityStack, issuer: Issuer, redis_url: str, name: str
) -> None:
    token = BAD_TOKENS[name](issuer)
    secrets.remember(token)
    with Redis.from_url(redis_url) as redis:
        ring = redis.hgetall(keys_hash(ROTATION_SECONDS))
        assert_problem(_me(stack.http, token), 401, "invalid_player_token")
        assert_problem(stack.http.post("/v1/sessions/refresh", headers=_bearer(token)), 401, "invalid_player_token")
        assert redis.hgetall(keys_hash(ROTATION_SECONDS)) == ring  # no key made, none retired: nothing signed


def test_me_needs_a_player_token(stack: IdentityStack) -> None:
    assert_problem(stack.http.get("/v1/me"), 401, "unauthenticated")
    assert_problem(_me(stack.http, "a-seat-token-without-dots-0123456789"), 401, "unauthenticated")


def test_a_guest_session_is_minted_used_refreshed_and_verifiable_from_outside(stack: IdentityStack) -> None:
    session = _session(stack.http, {"name": "Mira"})
    assert set(session) == {"player_id", "token", "expires_at"}
    assert session["player_id"].startswith("guest:")
    me = _me(stack.http, session["token"])
    assert me.status_code == 200
    mira = shown_as_guest("Mira", session["player_id"])  # a guest's name carries its guest mark
    assert me.json() == {"player_id": session["player_id"], "name": mira, "issuer_alias": "guest", "ratings": []}

    refreshed = stack.http.post("/v1/sessions/refresh", headers=_bearer(session["token"]))
    assert refreshed.status_code == 200, refreshed.text
    renewed = refreshed.json()
    secrets.remember(renewed["token"])
    assert renewed["player_id"] == session["player_id"] and renewed["expires_at"] >= session["expires_at"]
    assert _me(stack.http, renewed["token"]).json()["name"] == mira  # marked once, not again

    document = stack.http.get("/.well-known/jwks.json")
    assert document.status_code == 200 and "max-age" in document.headers["cache-control"]
    keys = document.json()["keys"]
    assert keys and all("d" not in key and key["kty"] == "EC" and key["alg"] == "ES256" for key in keys)
    published = jwt.PyJWKSet.from_dict(document.json())
    for token in (session["token"], renewed["token"]):
        key = published[jwt.get_unverified_header(token)["kid"]]
        claims = jwt.decode(token, key.key, algorithms=["ES256"], audience="chaiwala", issuer="urn:chaiwala:guest")
        assert f"guest:{claims['sub']}" == session["player_id"]


def test_an_unnamed_guest_gets_a_name_and_bad_bodies_are_refused(stack: IdentityStack) -> None:
    session = _session(stack.http)
    assert _me(stack.http, session["token"]).json()["name"].startswith("Guest ")
    assert_problem(stack.http.post("/v1/sessions", json={"name": "bad\x00name"}), 400, "bad_player")
    assert_problem(stack.http.post("/v1/sessions", json={"name": "x" * 65}), 400, "bad_player")
    assert_problem(stack.http.post("/v1/sessions", json={"player_id": "guest:me"}), 400, "invalid_request")


def test_only_guest_tokens_are_refreshed_here(stack: IdentityStack, issuer: Issuer) -> None:
    platform = issuer.token(issuer.keys[0])
    assert_problem(stack.http.post("/v1/sessions/refresh", headers=_bearer(platform)), 403, "not_a_guest_token")
    assert_problem(stack.http.post("/v1/sessions/refresh"), 401, "unauthenticated")


def test_guest_keys_rotate_and_the_jwks_publishes_old_and_new(stack: IdentityStack) -> None:
    first = _session(stack.http)
    first_kid = jwt.get_unverified_header(first["token"])["kid"]
    deadline = time.monotonic() + 30
    while True:  # the next slot's key signs the next session (slots last ROTATION_SECONDS)
        second = _session(stack.http)
        second_kid = jwt.get_unverified_header(second["token"])["kid"]
        if second_kid != first_kid or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert second_kid != first_kid
    kids = [key["kid"] for key in stack.http.get("/.well-known/jwks.json").json()["keys"]]
    assert first_kid in kids and second_kid in kids
    for session in (first, second):
        assert _me(stack.http, session["token"]).json()["player_id"] == session["player_id"]


def test_identity_over_grpc_gives_the_same_answers_and_refusals(stack: IdentityStack, issuer: Issuer) -> None:
    with grpc.insecure_channel(stack.service.address) as channel:
        stub = identity_pb2_grpc.IdentityServiceStub(channel)
        session = stub.CreateSession(identity_pb2.CreateSessionRequest(name="Grpc"), timeout=30)
        secrets.remember(session.token)
        assert session.player_id.startswith("guest:") and session.expires_at.seconds > time.time()
        me = stub.GetMe(identity_pb2.GetMeRequest(), metadata=[("authorization", f"Bearer {session.token}")])
        grpc_name = shown_as_guest("Grpc", session.player_id)
        assert (me.player_id, me.name, me.issuer_alias) == (session.player_id, grpc_name, "guest")
        expired = issuer.token(issuer.keys[0], exp=int(time.time()) - 3600, iat=int(time.time()) - 7200)
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetMe(identity_pb2.GetMeRequest(), metadata=[("authorization", f"Bearer {expired}")])
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        detail = error_detail_from_metadata(refused.value.trailing_metadata())
        assert detail is not None and detail.code == "invalid_player_token"
        assert stub.GetJwks(identity_pb2.GetJwksRequest()).keys


def test_guest_sessions_can_be_turned_off(redis_url: str, issuer: Issuer, stack: IdentityStack) -> None:
    guest = _session(stack.http)  # minted where guests are on
    closed = IdentityStack(redis_url, _identity(issuer, guest_sessions=False))
    try:
        refused = closed.http.post("/v1/sessions", json={"name": "Mira"})
        problem = assert_problem(refused, 403, "guest_sessions_disabled")
        assert "turned off" in problem["detail"]
        assert closed.http.get("/.well-known/jwks.json").json() == {"keys": []}
        assert_problem(_me(closed.http, guest["token"]), 401, "invalid_player_token")  # its issuer is not trusted here
        assert _me(closed.http, issuer.token(issuer.keys[1], sub="p1")).json()["player_id"] == "acme:p1"
    finally:
        closed.close()


def test_guest_sessions_are_rate_limited_per_address(redis_url: str, issuer: Issuer) -> None:
    limited = IdentityStack(redis_url, _identity(issuer), session_limit="3/minute")
    try:
        for _ in range(3):
            _session(limited.http)
        refused = limited.http.post("/v1/sessions")
        assert_problem(refused, 429, "rate_limited")
        assert int(refused.headers["retry-after"]) >= 1
        # Other calls of the same address are not held back by the session quota.
        assert limited.http.get("/.well-known/jwks.json").status_code == 200
    finally:
        limited.close()


def test_guest_sessions_over_grpc_have_the_same_quota(redis_url: str, issuer: Issuer) -> None:
    # An amount no other test uses: the count is per address (all tests are 127.0.0.1) and amount.
    limited = IdentityStack(redis_url, _identity(issuer, session_limit="4/minute"), session_limit="1000/minute")
    wary = IdentityStack(redis_url, _identity(issuer, session_limit="4/minute", trusted_gateways=""),
                         session_limit="1000/minute")  # fmt: skip
    try:
        with grpc.insecure_channel(limited.service.address) as channel:
            stub = identity_pb2_grpc.IdentityServiceStub(channel)
            for _ in range(4):
                secrets.remember(stub.CreateSession(identity_pb2.CreateSessionRequest(), timeout=30).token)
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateSession(identity_pb2.CreateSessionRequest(), timeout=30)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_detail_from_metadata(refused.value.trailing_metadata()).code == "rate_limited"
            # Claiming to be a gateway helps only a peer trusted as one; this one is (loopback), so
            # its relayed calls were counted by the gateway, not again here.
            relayed = [("x-chaiwala-client-address", "203.0.113.9")]
            answer = stub.CreateSession(identity_pb2.CreateSessionRequest(), metadata=relayed, timeout=30)
            secrets.remember(answer.token)
        _session(limited.http)  # REST: the gateway's own count (1000/minute), not the identity service's
        assert_problem(wary.http.post("/v1/sessions"), 429, "rate_limited")  # no gateway trusted: counted here
    finally:
        limited.close()
        wary.close()


def test_guest_sessions_over_rest_and_grpc_draw_on_one_quota(redis_url: str, issuer: Issuer) -> None:
    # The gateway counts in Redis here, under the same setting as the identity service: one count.
    limit = "7/minute"  # an amount no other test uses (the count is per address and amount)
    shared = IdentityStack(redis_url, _identity(issuer, session_limit=limit), shared=True, session_limit=limit)
    try:
        with grpc.insecure_channel(shared.service.address) as channel:
            stub = identity_pb2_grpc.IdentityServiceStub(channel)
            for _ in range(4):
                _session(shared.http)  # REST, counted by the gateway
            for _ in range(3):
                secrets.remember(stub.CreateSession(identity_pb2.CreateSessionRequest(), timeout=30).token)
            # Seven sessions from 127.0.0.1 whichever way they were asked: the eighth is refused both ways.
            refused = shared.http.post("/v1/sessions")
            problem = assert_problem(refused, 429, "rate_limited")
            assert problem["detail"].startswith("session_quota limit of 7 per 1 minute")
            assert int(refused.headers["retry-after"]) >= 1
            with pytest.raises(grpc.RpcError) as over_grpc:
                stub.CreateSession(identity_pb2.CreateSessionRequest(), timeout=30)
            assert over_grpc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_detail_from_metadata(over_grpc.value.trailing_metadata()).code == "rate_limited"
    finally:
        shared.close()


def test_me_carries_the_players_ratings(stack: IdentityStack, issuer: Issuer, redis_url: str) -> None:
    player = f"rated-{uuid.uuid4().hex[:8]}"

    async def rate() -> None:  # a rated game recorded by the rating domain, as the director records one
        redis = AsyncRedis.from_url(redis_url)
        try:
            seats = [{"name": "Asha", "external_id": f"acme:{player}"}, {"name": "Bot", "bot": "random"}]
            await Ledger(redis).record(FinishedGame(f"{GAME}-{player}", GAME, seats, [1, 2], 1))
        finally:
            await redis.aclose()

    token = issuer.token(issuer.keys[0], sub=player, name="Asha")
    assert _me(stack.http, token).json()["ratings"] == []
    asyncio.run(rate())
    (rating,) = _me(stack.http, token).json()["ratings"]
    assert rating["external_id"] == f"acme:{player}" and rating["game_type"] == GAME and rating["games"] == 1


def test_identity_calls_pass_over_an_unreachable_rules_service(stack: IdentityStack) -> None:
    # Two game types, one of them served by nobody: whichever the gateway asks first, it answers.
    gateway = Gateway({GAME: stack.service.address, "darjeeling": f"127.0.0.1:{free_port()}"})
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as http:
            for _ in range(4):  # the first service asked rotates over both
                assert http.get("/.well-known/jwks.json").status_code == 200
    finally:
        gateway.stop()
