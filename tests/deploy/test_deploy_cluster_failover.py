"""A Redis Cluster master that goes silent: the store's cluster client gives up in bounded time.

``make two-hosts`` kills a host and cuts it off; here one master of a real 3-master cluster on
loopback is stopped (``SIGSTOP``: its connections stay open and connects still succeed, but nothing
answers, as with a host that dropped off the network), then continued.  Checked:

* the call clients' settings: reply and connect timeouts, few retries, a longer reply timeout for
  blocking readers (:mod:`services.common.cluster_client`);
* a call on the silent master's keys ends with an error that means "unavailable" (a 503), well
  before anything waiting for redis-py's defaults would (once the other masters mark it failed,
  the cluster, without a replica to promote here, refuses every call: also "unavailable");
* the slot-map refresh leaves the silent node out (:class:`LiveNodesFirst`), and keeps it among
  the startup nodes to try again later;
* through the real gateway and rules service: a game on the silent master is answered 503
  ``store_unavailable`` with ``Retry-After`` (problem+json), not left to the gateway's deadline (504),
  and plays again once the master is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from services.common.cluster_client import (
    BLOCKING_REPLY_TIMEOUT_SECONDS,
    CALL_REPLY_TIMEOUT_SECONDS,
    CLUSTER_RETRIES,
    CONNECT_TIMEOUT_SECONDS,
    FailoverCluster,
    LiveNodesFirst,
)
from services.common.store import is_unavailable, redis_client
from services.filing.keys import game_keys
from tests.deploy.test_scale_cluster import (
    GatewayInstance,
    RulesInstance,
    _require_darjeeling,
    spawn,
    start_rules,
    wait_ready,
)
from tests.support.client import assert_problem, auth, create_game
from tests.support.redis_cluster import ClusterInfo, start_cluster
from tests.support.waiting import eventually

# A bound on one call while its master is silent: far above what the bounded client takes
# (CLUSTER_RETRIES + 1 attempts of a few seconds each), far below redis-py's defaults (10 retries of
# a 5 s reply timeout each, plus the slot-map refreshes through the silent node).
CALL_BOUND_SECONDS = 40.0


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    """A cluster of this module's own: its tests stop one of its masters."""
    with start_cluster() as info:
        yield info


@contextlib.contextmanager
def silenced(cluster: ClusterInfo, index: int) -> Iterator[tuple[str, int]]:
    """The ``index``-th master stopped (SIGSTOP) for the block; continued, and the cluster ok again, after."""
    pid = cluster.pids[index]
    os.kill(pid, signal.SIGSTOP)
    try:
        yield cluster.startup_nodes[index]
    finally:
        os.kill(pid, signal.SIGCONT)
        eventually(lambda: _cluster_ok(cluster), "the cluster ok again after its master came back", 60, 0.2)


def _cluster_ok(cluster: ClusterInfo) -> bool:
    for host, port in cluster.startup_nodes:
        with cluster.node(host, port, socket_timeout=1, decode_responses=True) as node:
            if node.execute_command("CLUSTER INFO")["cluster_state"] != "ok":
                return False
    return True


def slots_of(cluster: ClusterInfo, node: tuple[str, int]) -> set[int]:
    """The slots ``node`` serves, as the last node sees them (not the one the tests stop)."""
    host, port = cluster.startup_nodes[-1]
    with cluster.node(host, port, decode_responses=True) as client:
        ranges = client.execute_command("CLUSTER SLOTS")
    owned: set[int] = set()
    for (first, last), master in ((tuple(r[:2]), r[2]) for r in _as_list(ranges)):
        if (master[0], int(master[1])) == node:
            owned.update(range(int(first), int(last) + 1))
    return owned


def _as_list(ranges: object) -> list[list[object]]:
    """CLUSTER SLOTS as ``[first, last, [host, port, id], ...]`` rows (redis-py may key them by range)."""
    if isinstance(ranges, dict):
        return [[first, last, [*master["primary"]]] for (first, last), master in ranges.items()]
    return list(ranges)  # type: ignore[call-overload]


def key_on(slots: set[int], prefix: str) -> str:
    """A key whose slot is one of ``slots``."""
    return next(f"{prefix}{{{n}}}" for n in range(100_000) if key_slot(f"{prefix}{{{n}}}".encode()) in slots)


def test_cluster_clients_are_bounded(cluster: ClusterInfo) -> None:
    """Call clients wait seconds for a reply and retry a few times; blocking readers wait longer."""
    calls = redis_client(cluster.url, True, 10, 2.0)
    readers = redis_client(cluster.url, True, 10, None, blocking=True)
    assert isinstance(calls, FailoverCluster) and isinstance(readers, FailoverCluster)
    options = calls.get_connection_kwargs()
    assert options["socket_timeout"] == CALL_REPLY_TIMEOUT_SECONDS
    assert options["socket_connect_timeout"] == CONNECT_TIMEOUT_SECONDS
    assert calls.retry.get_retries() == CLUSTER_RETRIES
    assert readers.get_connection_kwargs()["socket_timeout"] == BLOCKING_REPLY_TIMEOUT_SECONDS
    assert BLOCKING_REPLY_TIMEOUT_SECONDS > 10  # the longest block a reader asks for (identity feed: 10 s)


def test_a_silent_master_is_left_out_of_the_refresh_and_its_calls_fail_as_unavailable(cluster: ClusterInfo) -> None:
    """With a master silent: the slot map reloads from the nodes that answer (the silent one stays a
    startup node, to be tried again later), and a call on its keys ends with an "unavailable" error."""

    async def run() -> tuple[set[str], bool, set[str], BaseException | None]:
        client = redis_client(cluster.url, True, 10, 2.0)
        assert isinstance(client, RedisCluster)
        lost = key_on(slots_of(cluster, cluster.startup_nodes[0]), "lost")
        await client.set(lost, "1")  # the slot map is loaded and a connection open before the stop
        manager = client.nodes_manager
        assert isinstance(manager, LiveNodesFirst)
        with silenced(cluster, 0):
            silent = await manager.silent_nodes()
            await asyncio.wait_for(manager.initialize(), CALL_BOUND_SECONDS)
            covered, names = len(manager.slots_cache) == 16384, set(manager.startup_nodes)
            try:
                await asyncio.wait_for(client.set(lost, "2"), CALL_BOUND_SECONDS)
                failure: BaseException | None = None
            except Exception as error:
                failure = error
        await client.aclose()
        return silent, covered, names, failure

    silent, covered, names, failure = asyncio.run(run())
    host, port = cluster.startup_nodes[0]
    assert silent == {f"{host}:{port}"}
    assert covered
    assert names == {f"{h}:{p}" for h, p in cluster.startup_nodes}
    assert failure is not None and is_unavailable(failure), repr(failure)


@pytest.fixture(scope="module")
def services(cluster: ClusterInfo, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayInstance]:
    """A Darjeeling rules service and a gateway on the cluster (the gateway's limits too)."""
    _require_darjeeling()
    log_dir: Path = tmp_path_factory.mktemp("cluster-failover-logs")
    rules: RulesInstance = start_rules("rules-failover", cluster.url, True, log_dir)
    port = _free_port()
    env = {
        "CHAIWALA_HTTP_HOST": "127.0.0.1",
        "CHAIWALA_HTTP_PORT": str(port),
        "CHAIWALA_SERVICE_DARJEELING": rules.address,
        "CHAIWALA_GAMES": "darjeeling",
        "CHAIWALA_HTTP_WORKERS": "1",
        "REDIS_URL": cluster.url,
        "CHAIWALA_REDIS_CLUSTER": "true",
    }
    gateway = GatewayInstance(spawn("gateway-failover", ["-m", "gateway"], env, log_dir), port)
    try:
        wait_ready([rules], [gateway])
        yield gateway
    finally:
        gateway.process.stop()
        rules.process.stop()


def _free_port() -> int:
    from services.common.embedded_redis import free_port

    return free_port()


def test_the_gateway_answers_503_while_a_games_master_is_silent(
    cluster: ClusterInfo, services: GatewayInstance
) -> None:
    """A game on the silent master: 503 store_unavailable with Retry-After (not a 504 after the deadline)."""
    lost_slots = slots_of(cluster, cluster.startup_nodes[0])
    with httpx.Client(base_url=services.url, timeout=60) as client:
        seed, created = 0, None
        while created is None or key_slot(game_keys(created["game_id"])[0].encode()) not in lost_slots:
            seed += 1
            assert seed < 200, "no game landed on the first master"
            created = create_game(client, "darjeeling", [{"name": "a"}, {"name": "b"}], seed=seed)
        game_id, token = created["game_id"], created["seats"][0]["token"]
        with silenced(cluster, 0):
            answer = client.get(f"/v1/games/{game_id}", headers=auth(token))
            body = assert_problem(answer, 503, "store_unavailable")
            assert int(answer.headers["retry-after"]) >= 1, body
        eventually(
            lambda: client.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 200,
            "the game answered again once its master was back",
            60,
            0.5,
        )
