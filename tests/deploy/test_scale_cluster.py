"""Scale-out for real: Redis Cluster shards and several instances of each tier.

Every process here is started exactly as the deployment starts it (runtime contract): rules services
as ``python -m services.rules.server darjeeling`` and gateways as ``python -m gateway``, configured
only through environment variables. Redis is real: a 3-master Redis Cluster on loopback for (a), the
session's embedded redis-server for (b).

(a) Full Darjeeling games through gateway -> rules service (CHAIWALA_REDIS_CLUSTER=true) -> cluster;
    the games' keys spread over every master, each game wholly on one master.
(b) Two gateways, two instances of the Darjeeling service, one Redis: the moves of one game alternate
    between the instances (checked on each instance's own /metrics), and the game ends exactly as a
    single-instance run with the same seed and moves does.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from services.common.embedded_redis import free_port
from services.common.processes import stop_process
from services.common.sealing import KEYS_FILE_ENV
from tests.deploy.deploy_contract import ROOT, RULES_SERVICE_NAME
from tests.support.client import auth, create_game, wait_over, within_rate_limit
from tests.support.redis_cluster import ClusterInfo, start_cluster
from tests.support.seeds import seed_hex
from tests.support.stack import grpc_serving

GAME = "darjeeling"
START_TIMEOUT = 60.0


def _require_darjeeling() -> None:
    try:
        from services.common.registry import available_game_types
    except ImportError as exc:  # pragma: no cover - platform not present
        pytest.skip(f"platform code missing: {exc}")
    if GAME not in available_game_types():
        pytest.skip("the Darjeeling engine is not in this checkout")


@dataclass
class Process:
    """A child process started by these tests, with its log file."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def log_tail(self) -> str:
        """The last lines the process wrote (for failure messages)."""
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-30:])

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not exit."""
        stop_process(self.popen, timeout=15)


def spawn(name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> Process:
    """Start ``python -m ...`` with the contract's PYTHONPATH and the given CHAIWALA_* environment."""
    # The suite's master key ring stays (services.common.sealing); every other setting is the test's.
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CHAIWALA_") and k != "REDIS_URL"}
    full_env[KEYS_FILE_ENV] = os.environ[KEYS_FILE_ENV]
    full_env.update(env)
    full_env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{ROOT / 'gen'}"
    full_env.setdefault("CHAIWALA_LOG_FORMAT", "console")
    full_env.setdefault("CHAIWALA_LOG_LEVEL", "warning")
    log = log_dir / f"{name}.log"
    with log.open("wb") as handle:
        popen = subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=full_env, stdout=handle, stderr=handle)
    return Process(name, popen, log)


@dataclass
class Instance:
    """A process of one tier."""

    process: Process


@dataclass
class RulesInstance(Instance):
    """A rules-service process and its ports."""

    grpc_port: int
    metrics_port: int

    @property
    def address(self) -> str:
        """host:port for the gateway."""
        return f"127.0.0.1:{self.grpc_port}"


def start_rules(name: str, redis_url: str, cluster: bool, log_dir: Path) -> RulesInstance:
    """``python -m services.rules.server darjeeling`` on free ports."""
    grpc_port, metrics_port = free_port(), free_port()
    env = {
        "REDIS_URL": redis_url,
        "CHAIWALA_REDIS_CLUSTER": "true" if cluster else "false",
        "CHAIWALA_GRPC_HOST": "127.0.0.1",
        "CHAIWALA_GRPC_PORT": str(grpc_port),
        "CHAIWALA_METRICS_PORT": str(metrics_port),
        "CHAIWALA_GRPC_PROCESSES": "1",  # one process per instance: this test scales by instances
    }
    process = spawn(name, ["-m", "services.rules.server", GAME], env, log_dir)
    return RulesInstance(process, grpc_port, metrics_port)


@dataclass
class GatewayInstance(Instance):
    """A gateway process and its base URL."""

    port: int

    @property
    def url(self) -> str:
        """Base URL."""
        return f"http://127.0.0.1:{self.port}"


def start_gateway(name: str, rules: RulesInstance, log_dir: Path) -> GatewayInstance:
    """``python -m gateway`` routing Darjeeling to ``rules``.

    CHAIWALA_GAMES limits the gateway to Darjeeling so /readyz does not wait for the other three games.
    """
    port = free_port()
    env = {
        "CHAIWALA_HTTP_HOST": "127.0.0.1",
        "CHAIWALA_HTTP_PORT": str(port),
        "CHAIWALA_SERVICE_DARJEELING": rules.address,
        "CHAIWALA_GAMES": GAME,
        "CHAIWALA_HTTP_WORKERS": "1",
    }
    return GatewayInstance(spawn(name, ["-m", "gateway"], env, log_dir), port)


def wait_ready(rules: list[RulesInstance], gateways: list[GatewayInstance]) -> None:
    """Every rules service SERVING (gRPC health, as the container check does), every gateway /readyz 200."""

    deadline = time.monotonic() + START_TIMEOUT
    pending_rules = list(rules)
    pending_gateways = list(gateways)
    while pending_rules or pending_gateways:
        pending: list[Instance] = [*pending_rules, *pending_gateways]
        for instance in pending:
            if instance.process.popen.poll() is not None:
                pytest.fail(f"{instance.process.name} exited:\n{instance.process.log_tail()}")
        if time.monotonic() > deadline:
            names = [i.process.name for i in pending]
            tails = "\n".join(i.process.log_tail() for i in pending)
            pytest.fail(f"not ready in time: {names}\n{tails}")
        for instance in list(pending_rules):
            if grpc_serving(instance.address, RULES_SERVICE_NAME):
                pending_rules.remove(instance)
        for gateway in list(pending_gateways):
            try:
                if httpx.get(f"{gateway.url}/readyz", timeout=2).status_code == 200:
                    pending_gateways.remove(gateway)
            except httpx.HTTPError:
                pass
        time.sleep(0.1)


def submit_count(rules: RulesInstance) -> float:
    """SubmitMoves calls answered OK, read from the instance's own Prometheus endpoint."""
    text = httpx.get(f"http://127.0.0.1:{rules.metrics_port}/metrics", timeout=10).text
    total = 0.0
    for line in text.splitlines():
        if not line.startswith("chaiwala_rpc_requests_total{"):
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}", 1)[0]))
        if labels.get("method") == "SubmitMoves" and labels.get("code") == "OK" and labels.get("game_type") == GAME:
            total += float(line.rsplit(" ", 1)[1])
    return total


# --------------------------------------------------------------------------------------------------
# (a) Redis Cluster
# --------------------------------------------------------------------------------------------------


@dataclass
class ClusterStack:
    """The cluster and the processes using it."""

    cluster: ClusterInfo
    rules: RulesInstance
    gateway: GatewayInstance
    conductor: Instance


@pytest.fixture(scope="module")
def cluster_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClusterStack]:
    """3-master cluster, one Darjeeling service in cluster mode, one gateway."""
    _require_darjeeling()
    log_dir = tmp_path_factory.mktemp("scale-cluster-logs")
    with start_cluster() as cluster:
        rules = start_rules("rules-cluster", cluster.url, True, log_dir)
        gateway = start_gateway("gateway-cluster", rules, log_dir)
        conductor_env = {
            "REDIS_URL": cluster.url,
            "CHAIWALA_REDIS_CLUSTER": "true",
            "CHAIWALA_GRPC_HOST": "127.0.0.1",
            "CHAIWALA_METRICS_PORT": str(free_port()),
        }
        conductor = Instance(spawn("conductor-cluster", ["-m", "services.conductor"], conductor_env, log_dir))
        try:
            wait_ready([rules], [gateway])
            yield ClusterStack(cluster, rules, gateway, conductor)
        finally:
            conductor.process.stop()
            gateway.process.stop()
            rules.process.stop()


def keys_by_node(cluster: ClusterInfo, game_id: str) -> dict[tuple[str, int], set[str]]:
    """The keys of one game held by each master, read from each node directly (no cluster routing)."""
    found = {}
    for host, port in cluster.startup_nodes:
        with cluster.node(host, port, decode_responses=True) as node:
            found[(host, port)] = set(node.scan_iter(match=f"game:{{{game_id}}}:*", count=1000))
    return found


def owner_of_game(cluster: ClusterInfo, game_id: str) -> tuple[str, int]:
    """The one master holding every key of ``game_id`` (asserting the game is not split)."""
    holders = {node: keys for node, keys in keys_by_node(cluster, game_id).items() if keys}
    assert len(holders) == 1, f"{game_id} is split over {sorted(holders)}"
    ((node, keys),) = holders.items()
    assert {f"game:{{{game_id}}}:{part}" for part in ("meta", "state", "events")} <= keys
    return node


def test_games_spread_over_every_shard(cluster_stack: ClusterStack) -> None:
    """Games land on every master, each wholly on one; a move commits on each shard, idempotently."""
    shard_of: dict[str, tuple[str, int]] = {}
    with httpx.Client(base_url=cluster_stack.gateway.url, timeout=120) as client:
        seed = 700
        while len(set(shard_of.values())) < len(cluster_stack.cluster.startup_nodes):
            assert len(shard_of) < 60, f"60 games and still not on every shard: {shard_of}"
            seed += 1
            created = create_game(client, GAME, [{"name": "north"}, {"name": "south"}], seed=seed)
            game_id = created["game_id"]
            tokens = {s["seat"]: s["token"] for s in created["seats"]}
            game = client.get(f"/v1/games/{game_id}").json()
            seat = game["to_act"][0]
            legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
            body = {"move": legal["moves"][0], "expected_version": legal["version"]}
            headers = {**auth(tokens[seat]), "Idempotency-Key": f"first-{seed}"}
            first = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
            assert first.status_code == 200, first.text
            again = client.post(f"/v1/games/{game_id}/moves", json=body, headers=headers)
            assert again.status_code == 200 and again.json() == first.json(), "a retry is answered, not re-applied"
            assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1
            shard_of[game_id] = owner_of_game(cluster_stack.cluster, game_id)
    assert set(shard_of.values()) == set(cluster_stack.cluster.startup_nodes)


def test_a_full_game_on_the_cluster(cluster_stack: ClusterStack) -> None:
    """Two seats play a whole game over REST on the cluster (expected_version; with and without Idempotency-Key)."""
    with httpx.Client(base_url=cluster_stack.gateway.url, timeout=120) as client:
        outcome = play([client], seed=4242, script=None, idempotency=True)
    assert outcome["spectator"]["status"] == "finished"
    assert outcome["spectator"]["result"]["winners"]
    assert len(outcome["replay"]["moves"]) == len(outcome["script"]) == outcome["spectator"]["version"]
    assert outcome["events"], "the event stream on the cluster holds the game"
    owner_of_game(cluster_stack.cluster, outcome["game_id"])


def test_bot_games_finish_on_the_cluster(cluster_stack: ClusterStack) -> None:
    """All-bot games at every player count are played to the end by the conductor, on the cluster
    (the commit script writes the game and its queue shard, one slot, in one step)."""
    with httpx.Client(base_url=cluster_stack.gateway.url, timeout=120) as client:
        for players in range(2, 6):
            body = {
                "game_type": GAME,
                "players": [{"name": f"bot{i}", "bot": "random"} for i in range(players)],
                "seed_hex": seed_hex(900 + players),
            }
            response = client.post("/v1/games", json=body)
            assert response.status_code == 201, response.text
            game_id = response.json()["game_id"]
            final = wait_over(client, game_id)
            assert final["status"] == "finished"
            assert len(final["result"]["scores"]) == players
            owner_of_game(cluster_stack.cluster, game_id)


# --------------------------------------------------------------------------------------------------
# (b) two gateways, two instances of one rules service, one Redis
# --------------------------------------------------------------------------------------------------


@dataclass
class ScaledStack:
    """Two rules instances (A, B) of one game and a gateway in front of each."""

    rules: list[RulesInstance]
    gateways: list[GatewayInstance]


@pytest.fixture(scope="module")
def scaled_stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScaledStack]:
    """Gateway 0 -> Darjeeling instance A, gateway 1 -> instance B, both on the session's Redis."""
    _require_darjeeling()
    log_dir = tmp_path_factory.mktemp("scale-out-logs")
    rules = [start_rules(f"rules-{n}", redis_url, False, log_dir) for n in ("a", "b")]
    gateways = [start_gateway(f"gateway-{n}", r, log_dir) for n, r in zip("01", rules, strict=True)]
    try:
        wait_ready(rules, gateways)
        yield ScaledStack(rules, gateways)
    finally:
        instances: list[Instance] = [*gateways, *rules]
        for instance in instances:
            instance.process.stop()


# Drawn afresh for every game (its committed secret) or chained from it: they differ between two
# runs of the same seed and moves by design (README "Fairness").
PER_GAME = frozenset({"seed_commitment", "server_secret", "log_head", "genesis_hash", "hash"})


def strip_ids(value: Any, game_id: str) -> Any:
    """``value`` with the game id and per-game secrets replaced, so two runs of the same game compare equal."""
    if isinstance(value, dict):
        return {k: "<per-game>" if k in PER_GAME else strip_ids(v, game_id) for k, v in value.items()}
    if isinstance(value, list):
        return [strip_ids(v, game_id) for v in value]
    if isinstance(value, str):
        return value.replace(game_id, "<game>")
    return value


def play(
    clients: list[httpx.Client], seed: int, script: list[tuple[int, Any]] | None, idempotency: bool = False
) -> dict[str, Any]:
    """Create a 2-seat game and play it to the end, request i going through ``clients[i % len(clients)]``.

    With ``script`` None, moves are chosen at random among the legal ones and recorded; otherwise the
    recorded (seat, move) list is replayed, each move checked to be legal. With ``idempotency`` every
    other move carries an Idempotency-Key (both commit paths are used). Returns the game id, the final
    views, events, replay and script.
    """
    created = create_game(clients[0], GAME, [{"name": "north"}, {"name": "south"}], seed=seed)
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    chooser = random.Random(seed)
    recorded: list[tuple[int, Any]] = []
    step = 0
    while True:
        client = clients[step % len(clients)]
        if script is None:
            game = client.get(f"/v1/games/{game_id}").json()
            if game["status"] != "active":
                break
            seat = game["to_act"][0]
        elif step == len(script):
            break
        else:
            # Replaying: the seat comes from the script; the final comparison checks every seat and move.
            seat = script[step][0]
        reply = within_rate_limit(client, "GET", f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat]))
        legal = reply.json()
        if script is None:
            move = chooser.choice(legal["moves"])
        else:
            move = script[step][1]
            assert move in legal["moves"], f"step {step}: the recorded move is not legal for seat {seat} here"
        headers = auth(tokens[seat])
        if idempotency and step % 2 == 0:
            headers["Idempotency-Key"] = f"move-{step}"
        body = {"move": move, "expected_version": legal["version"]}
        response = within_rate_limit(client, "POST", f"/v1/games/{game_id}/moves", json=body, headers=headers)
        assert response.status_code == 200, response.text
        recorded.append((seat, move))
        step += 1
        assert step < 20_000
    reader = clients[0]
    return {
        "game_id": game_id,
        "script": recorded,
        "spectator": strip_ids(reader.get(f"/v1/games/{game_id}").json(), game_id),
        "seats": [
            strip_ids(reader.get(f"/v1/games/{game_id}", headers=auth(token)).json(), game_id)
            for _seat, token in sorted(tokens.items())
        ],
        "events": strip_ids(reader.get(f"/v1/games/{game_id}/events", params={"after": 0}).json(), game_id),
        "replay": strip_ids(reader.get(f"/v1/games/{game_id}/replay").json(), game_id),
    }


def test_moves_alternate_between_instances_and_match_a_single_instance_run(scaled_stack: ScaledStack) -> None:
    """One game through two gateways / two instances equals the same seed and moves on one instance."""
    instance_a, instance_b = scaled_stack.rules
    before = [submit_count(instance_a), submit_count(instance_b)]
    with (
        httpx.Client(base_url=scaled_stack.gateways[0].url, timeout=60) as via_a,
        httpx.Client(base_url=scaled_stack.gateways[1].url, timeout=60) as via_b,
    ):
        scaled = play([via_a, via_b], seed=31337, script=None)
        moves = len(scaled["script"])
        assert moves >= 2
        after_scaled = [submit_count(instance_a), submit_count(instance_b)]
        # Step i goes through gateway i % 2, i.e. instance A on even steps and B on odd ones.
        assert after_scaled[0] - before[0] == (moves + 1) // 2
        assert after_scaled[1] - before[1] == moves // 2

        single = play([via_a], seed=31337, script=scaled["script"])
        after_single = [submit_count(instance_a), submit_count(instance_b)]
        assert after_single[0] - after_scaled[0] == moves
        assert after_single[1] == after_scaled[1], "the single-instance run never touches instance B"

    assert scaled["spectator"]["status"] == "finished"
    assert scaled["game_id"] != single["game_id"]
    for part in ("spectator", "seats", "events", "replay"):
        assert scaled[part] == single[part], f"{part} differs between the scaled and single-instance runs"


def test_racing_submissions_on_two_instances_have_one_winner(scaled_stack: ScaledStack) -> None:
    """The same move sent at once through both gateways (so both instances): one 200, one 409, one commit."""
    from concurrent.futures import ThreadPoolExecutor

    with (
        httpx.Client(base_url=scaled_stack.gateways[0].url, timeout=60) as via_a,
        httpx.Client(base_url=scaled_stack.gateways[1].url, timeout=60) as via_b,
        ThreadPoolExecutor(max_workers=2) as pool,
    ):
        created = create_game(via_a, GAME, [{"name": "north"}, {"name": "south"}], seed=2718)
        game_id = created["game_id"]
        tokens = {s["seat"]: s["token"] for s in created["seats"]}
        for _round in range(5):
            game = via_a.get(f"/v1/games/{game_id}").json()
            seat = game["to_act"][0]
            legal = via_b.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
            body = {"move": legal["moves"][0], "expected_version": legal["version"]}
            racing = [
                pool.submit(client.post, f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
                for client in (via_a, via_b)
            ]
            statuses = sorted(future.result().status_code for future in racing)
            assert statuses == [200, 409], statuses
            assert via_b.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1
        replay = via_a.get(f"/v1/games/{game_id}/replay").json()
        assert len(replay["moves"]) == 5
