"""The gateway's rate limits on a real Redis Cluster (``CHAIWALA_REDIS_CLUSTER``): they limit.

One request's windows (per address, per credential, quotas) live in different slots, usually on
different masters; the limiter charges them one script call per slot, in order, so a cluster
refuses exactly what one Redis, or the library checking window by window, refuses, and no check
fails open (``chaiwala_gateway_limit_errors_total`` stays 0).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from limits.aio.storage import RedisClusterStorage
from prometheus_client import CollectorRegistry
from redis.crc import key_slot

from gateway.limits import Limiter, LimitMetrics, _window_keys
from gateway.problems import Problem
from gateway.settings import GatewaySettings
from tests.support.redis_cluster import ClusterInfo, start_cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    """A 3-master cluster for this module."""
    with start_cluster() as info:
        yield info


def _scope(token: str, address: str, method: str = "GET", path: str = "/v1/games") -> dict[str, Any]:
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    return {"type": "http", "method": method, "path": path, "headers": headers, "client": (address, 5000)}


def _limiter(redis_url: str, cluster: bool, **limits: str) -> Limiter:
    settings = GatewaySettings(redis_url=redis_url, redis_cluster=cluster, **limits)
    return Limiter(settings, LimitMetrics(CollectorRegistry(), settings))


async def _outcomes(limiter: Limiter, scopes: list[dict[str, Any]]) -> list[str]:
    refusals = [await limiter.check(scope) for scope in scopes]
    return [refusal.name if refusal is not None else "ok" for refusal in refusals]


def _errors(limiter: Limiter) -> float:
    return limiter.metrics.errors._value.get()  # type: ignore[attr-defined,no-any-return]


def test_limits_limit_on_a_cluster_as_checked_one_by_one(cluster: ClusterInfo) -> None:
    """The same refusals as the library's own checks in turn, with no limit check failing."""
    tokens = [f"tok-{uuid.uuid4().hex}" for _ in range(2)]
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.9"
    limits = {"rate_limit_per_token": "3/minute", "rate_limit_per_address": "6/minute",
              "create_limit": "2/minute;4/hour"}  # fmt: skip
    plan = [(0, "POST"), (0, "POST"), (0, "POST"), (0, "GET"), (1, "GET"), (1, "GET"), (1, "GET")]
    scopes = [_scope(tokens[token], address, method) for token, method in plan]
    on_cluster = _limiter(cluster.url, True, **limits)
    assert isinstance(on_cluster.storage, RedisClusterStorage)
    outcomes = asyncio.run(_outcomes(on_cluster, scopes))
    in_turn = asyncio.run(_outcomes(_limiter("", False, **limits), scopes))  # memory storage, hit by hit
    assert outcomes == in_turn == ["ok", "ok", "create_quota", "rate_per_token", "ok", "ok", "rate_per_address"]
    assert _errors(on_cluster) == 0


def test_one_requests_windows_span_several_masters(cluster: ClusterInfo) -> None:
    """What made one script call fail on a cluster (CROSSSLOT): the windows of one request are on
    different masters, and each window's two keys hold their counts on one of them."""
    limiter = _limiter(cluster.url, True, rate_limit_per_token="50/minute", rate_limit_per_address="50/minute",
                       create_limit="50/minute;500/hour")  # fmt: skip
    assert isinstance(limiter.storage, RedisClusterStorage)
    # A random credential and address could put every window on one master (about one in 27): pick
    # ones whose windows span several, which is the case under test.  Every try runs in the one
    # event loop, as in a gateway: the cluster client's connections belong to the loop that opened
    # them (a second asyncio.run failed the next check with RuntimeError, and the limit let it through).

    async def span_masters() -> set[tuple[str, int]]:
        owners: set[tuple[str, int]] = set()
        for _ in range(100):
            token, address = f"tok-{uuid.uuid4().hex}", f"10.7.{uuid.uuid4().int % 250}.1"
            assert await _outcomes(limiter, [_scope(token, address, "POST")]) == ["ok"]
            windows = [("rate_per_address", f"addr:{address}"), ("rate_per_token", f"cred:{_credential(token)}"),
                       ("create_quota", f"cred:{_credential(token)}")]  # fmt: skip
            owners = set()
            for name, key in windows:
                for item in limiter.rates[name]:
                    previous, current = _window_keys(limiter.storage, name, key, item)
                    assert key_slot(previous.encode()) == key_slot(current.encode())
                    owners.add(_holder(cluster, current))
            if len(owners) > 1:
                break
        return owners

    owners = asyncio.run(span_masters())
    assert len(owners) > 1, owners
    assert _errors(limiter) == 0


def test_failed_authentications_are_counted_on_a_cluster(cluster: ClusterInfo) -> None:
    """The stricter bucket of failed authentications (the library's own script) refuses past its amount."""
    limiter = _limiter(cluster.url, True, auth_failure_limit="2/minute")
    scope = _scope("wrong", f"10.8.{uuid.uuid4().int % 250}.3")

    async def fail_three() -> list[bool]:
        return [await limiter.auth_failed(scope) is not None for _ in range(3)]

    assert asyncio.run(fail_three()) == [False, False, True]
    assert _errors(limiter) == 0


def _credential(token: str) -> str:
    from gateway.limits import _credential as credential

    return credential({"headers": [(b"authorization", f"Bearer {token}".encode())]})


def _holder(cluster: ClusterInfo, key: str) -> tuple[str, int]:
    """The master holding ``key`` (read from each node, no cluster routing)."""
    for host, port in cluster.startup_nodes:
        with cluster.node(host, port) as node:
            if node.execute_command("CLUSTER COUNTKEYSINSLOT", key_slot(key.encode())) and node.exists(key):
                return host, port
    raise AssertionError(f"no master holds {key}")


def test_stream_leases_and_the_session_quota_hold_on_a_cluster(cluster: ClusterInfo) -> None:
    """The caps that hold across gateways (stream leases, guest sessions) on a cluster: each key's
    script on its own slot's master, and no check failing."""
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.11"
    limiter = _limiter(cluster.url, True, session_limit="2/minute", sse_streams_per_token="1")
    keys = {"sse_streams_per_address": f"addr:{address}", "sse_streams_per_token": f"cred:{uuid.uuid4().hex}"}

    async def scenario() -> list[str]:
        try:
            outcomes = await _outcomes(limiter, [_scope("", address, "POST", "/v1/sessions")] * 3)
            assert limiter.streams.leases is not None
            first = await limiter.streams.open(keys)
            await limiter.streams.leases.renew()
            with pytest.raises(Problem) as refused:
                await limiter.streams.open(keys)
            assert refused.value.code == "too_many_streams"
            await limiter.streams.close(first)
            await limiter.streams.close(await limiter.streams.open(keys))  # its slot came back
            return outcomes
        finally:
            await limiter.close()

    assert asyncio.run(scenario()) == ["ok", "ok", "session_quota"]
    assert _errors(limiter) == 0
