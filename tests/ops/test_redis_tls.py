"""Optional TLS to Redis (issue #44): a ``rediss://`` URL with the CA setting reaches a TLS-only Redis
through the platform's clients, and a server the CA did not sign is refused.

The server is Debian's Redis 7 with a throwaway CA made by ``cryptography`` (tests/support/tls_redis.py
says why not the embedded one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client import CollectorRegistry

from gateway.limits import Limiter, LimitMetrics
from gateway.settings import GatewaySettings
from services.common.scriptcall import LeanScript
from services.common.settings import RedisConnection
from services.common.store import redis_client
from tests.support import secrets
from tests.support.tls_redis import TlsRedis, make_pki, start_tls_redis


@pytest.fixture(scope="module")
def tls_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsRedis]:
    server = start_tls_redis(tmp_path_factory.mktemp("tls-redis"))
    secrets.remember(server.password)
    try:
        yield server
    finally:
        server.stop()


async def _round_trip(url: str, cluster: bool = False, blocking: bool = False) -> bytes | None:
    client: Any = redis_client(url, cluster, 2, 2.0, blocking=blocking)
    try:
        await client.set("tls:probe", b"over TLS")
        answer: bytes | None = await client.get("tls:probe")
        # The store's scripts take their own path to the connection (services.common.scriptcall).
        script = LeanScript(client, "return redis.call('GET', KEYS[1])")
        assert script.lean and await script(["tls:probe"]) == answer
        return answer
    finally:
        await client.aclose()


def test_the_store_client_reaches_redis_over_tls_with_the_ca_setting(tls_redis: TlsRedis) -> None:
    settings = RedisConnection(redis_url=tls_redis.url, redis_tls_ca_file=str(tls_redis.pki.ca))
    assert settings.redis_url.startswith("rediss://") and "ssl_ca_certs=" in settings.redis_url
    assert asyncio.run(_round_trip(settings.redis_url)) == b"over TLS"
    assert asyncio.run(_round_trip(settings.redis_url, blocking=True)) == b"over TLS"
    # Mutual TLS: the client's certificate and key reach the handshake (the server verifies them).
    mutual = RedisConnection(redis_url=tls_redis.url, redis_tls_ca_file=str(tls_redis.pki.ca),
                             redis_tls_cert_file=str(tls_redis.pki.client_cert),
                             redis_tls_key_file=str(tls_redis.pki.client_key))  # fmt: skip
    assert asyncio.run(_round_trip(mutual.redis_url)) == b"over TLS"


def test_a_server_or_client_the_ca_did_not_sign_is_refused(tls_redis: TlsRedis, tmp_path: Path) -> None:
    stranger = make_pki(tmp_path / "other", "Another CA")
    # The server's certificate checked against a CA that did not sign it: no connection.
    other_ca = RedisConnection(redis_url=tls_redis.url, redis_tls_ca_file=str(stranger.ca))
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        asyncio.run(_round_trip(other_ca.redis_url))
    # No CA setting: the system's trust store, which does not know the test CA either.
    with pytest.raises(redis.ConnectionError, match="certificate verify failed"):
        asyncio.run(_round_trip(RedisConnection(redis_url=tls_redis.url).redis_url))
    # A client certificate from another CA is refused by the server (the client's files were sent).
    foreign = RedisConnection(redis_url=tls_redis.url, redis_tls_ca_file=str(tls_redis.pki.ca),
                              redis_tls_cert_file=str(stranger.client_cert),
                              redis_tls_key_file=str(stranger.client_key))  # fmt: skip
    with pytest.raises(redis.ConnectionError):
        asyncio.run(_round_trip(foreign.redis_url))
    # A plain connection to the TLS port gets no answer it can use.
    plain = tls_redis.url.replace("rediss://", "redis://", 1)
    with pytest.raises(redis.ConnectionError):
        asyncio.run(_round_trip(plain))


def test_tls_settings_beside_a_plain_url_are_refused() -> None:
    with pytest.raises(ValueError, match="CHAIWALA_REDIS_TLS_CA_FILE set, but REDIS_URL is not rediss://"):
        RedisConnection(redis_url="redis://:secret@127.0.0.1:6379/0", redis_tls_ca_file="/etc/ssl/ca.pem")


def test_the_gateways_limits_and_stream_leases_run_over_tls(tls_redis: TlsRedis) -> None:
    settings = GatewaySettings(redis_url=tls_redis.url, redis_tls_ca_file=str(tls_redis.pki.ca),
                               session_limit="2/minute", sse_streams_per_token=1)  # fmt: skip
    scope = {"type": "http", "method": "POST", "path": "/v1/sessions", "headers": [], "client": ("198.51.100.7", 1)}

    async def scenario() -> None:
        registry = CollectorRegistry()
        limiter = Limiter(settings, LimitMetrics(registry, settings))
        try:
            # The rate windows (the limits package's client) and the session quota (the gateway's).
            assert await limiter.storage.check()
            assert await limiter.check(scope) is None
            assert await limiter.check(scope) is None
            refusal = await limiter.check(scope)
            assert refusal is not None and refusal.name == "session_quota" and refusal.item is not None
            assert registry.get_sample_value("chaiwala_gateway_limit_errors_total") == 0  # no check failed
            # A stream lease taken, counted and given back on the same TLS Redis.
            keys = {"sse_streams_per_address": "addr:198.51.100.7", "sse_streams_per_token": "cred:tls"}
            opened = await limiter.streams.open(keys)
            assert opened.leased
            await limiter.streams.close(opened)
        finally:
            await limiter.close()

    asyncio.run(scenario())
