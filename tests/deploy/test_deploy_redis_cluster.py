"""The Redis Cluster test helper: a real 3-master cluster on loopback, checked with redis-py's RedisCluster."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pytest
from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import RedisClusterException, ResponseError

import tests.support.redis_cluster as redis_cluster_module
from tests.support.redis_cluster import ClusterInfo, start_cluster

# Same shape as the store's commit: check the version, write the snapshot, append to the stream, bump.
MOVE_SCRIPT = """
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return {'conflict', tostring(version)} end
version = version + 1
redis.call('SET', KEYS[2], ARGV[2])
redis.call('XADD', KEYS[3], version .. '-1', 'move', ARGV[3])
redis.call('HSET', KEYS[1], 'version', version)
return {'ok', tostring(version)}
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterInfo]:
    """One 3-master cluster for this module."""
    with start_cluster() as info:
        yield info


@pytest.fixture()
def client(cluster: ClusterInfo) -> Iterator[RedisCluster]:
    """A cluster-aware client."""
    nodes = [ClusterNode(host, port) for host, port in cluster.startup_nodes]
    with RedisCluster(startup_nodes=nodes, password=cluster.password, decode_responses=True) as rc:
        yield rc


def game_keys(game_id: str) -> list[str]:
    """The store's key layout for one game: one hash tag per game."""
    return [f"game:{{{game_id}}}:meta", f"game:{{{game_id}}}:state", f"game:{{{game_id}}}:events"]


def test_cluster_has_three_masters_covering_every_slot(cluster: ClusterInfo, client: RedisCluster) -> None:
    """Three masters, no replicas, all 16384 slots assigned, state ok; the URL reaches the cluster."""
    for host, port in cluster.startup_nodes:
        with cluster.node(host, port, decode_responses=True) as node:
            info = node.execute_command("CLUSTER INFO")
            assert info["cluster_state"] == "ok"
            assert int(info["cluster_slots_assigned"]) == 16384
            assert int(info["cluster_size"]) == 3
    masters = {(node.host, node.port) for node in client.get_primaries()}
    assert masters == set(cluster.startup_nodes)
    assert not client.get_replicas()
    with RedisCluster.from_url(cluster.url) as from_url:
        assert from_url.ping()


def test_different_hash_tags_land_on_different_masters(cluster: ClusterInfo, client: RedisCluster) -> None:
    """Games spread over every master; each game's keys all live on the one master owning its slot."""
    owner_of: dict[str, tuple[str, int]] = {}
    index = 0
    while len(set(owner_of.values())) < 3:
        game_id = f"darjeeling-{index:024x}"
        index += 1
        assert index < 1000
        for key in game_keys(game_id):
            client.set(key, game_id) if not key.endswith(":events") else client.xadd(key, {"m": "x"}, id="0-1")
        slots = {client.keyslot(key) for key in game_keys(game_id)}
        assert len(slots) == 1, "one hash tag, one slot"
        node = client.get_node_from_key(game_keys(game_id)[0])
        owner_of[game_id] = (node.host, node.port)
    # Verify on the nodes themselves, without the cluster client's routing: list each node's own keys.
    held_by: dict[tuple[str, int], set[str]] = {}
    for node_host, node_port in cluster.startup_nodes:
        with cluster.node(node_host, node_port, decode_responses=True) as node:
            held_by[(node_host, node_port)] = set(node.scan_iter(match="game:*", count=1000))
    for game_id, owner in owner_of.items():
        for node, keys in held_by.items():
            expected = set(game_keys(game_id)) if node == owner else set()
            assert keys & set(game_keys(game_id)) == expected, (game_id, node)
    assert len(set(owner_of.values())) == 3


def test_a_lua_script_updates_one_game_atomically(client: RedisCluster) -> None:
    """The move-commit shape works on a cluster when every key shares the game's hash tag."""
    script = client.register_script(MOVE_SCRIPT)
    keys = game_keys("tea_rum-00000000000000000000abcd")
    assert script(keys=keys, args=[0, "snapshot-1", "move-1"]) == ["ok", "1"]
    assert script(keys=keys, args=[1, "snapshot-2", "move-2"]) == ["ok", "2"]
    assert script(keys=keys, args=[1, "stale", "stale"]) == ["conflict", "2"]
    assert client.get(keys[1]) == "snapshot-2"
    entries = cast(list[tuple[str, dict[str, str]]], client.xrange(keys[2]))
    assert [fields["move"] for _id, fields in entries] == ["move-1", "move-2"]
    assert client.hget(keys[0], "version") == "2"


def test_a_script_across_hash_tags_is_refused(client: RedisCluster) -> None:
    """Keys of two games in one script would cross slots: the cluster refuses it."""
    first, second = "alubari-000000000000000000000001", "alubari-000000000000000000000002"
    index = 2
    while client.keyslot(game_keys(first)[0]) == client.keyslot(game_keys(second)[0]):
        index += 1
        second = f"alubari-{index:024x}"
    script = client.register_script(MOVE_SCRIPT)
    keys = [game_keys(first)[0], game_keys(second)[1], game_keys(first)[2]]
    with pytest.raises((RedisClusterException, ResponseError)):
        script(keys=keys, args=[0, "s", "m"])


def test_cluster_without_redis_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLUSTER ADDSLOTS/MEET fallback (no redis-cli binary) builds an equally usable cluster."""
    server, _cli = redis_cluster_module.find_redis_binaries()
    monkeypatch.setattr(redis_cluster_module, "find_redis_binaries", lambda: (server, None))
    with start_cluster() as info, RedisCluster.from_url(info.url, decode_responses=True) as rc:
        assert {(n.host, n.port) for n in rc.get_primaries()} == set(info.startup_nodes)
        rc.set("game:{x}:meta", "1")
        assert rc.get("game:{x}:meta") == "1"
    directory = info.directory
    assert not directory.exists(), "the temp directory is removed on exit"
