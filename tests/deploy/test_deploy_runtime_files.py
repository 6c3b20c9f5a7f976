"""Deployment files exercised for real: the container health-check script and the shipped redis.conf."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType

import grpc
import pytest
import redis
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from services.common.embedded_redis import EmbeddedRedis, free_port
from tests.deploy.deploy_contract import ROOT, RULES_SERVICE_NAME
from tests.support.redis_cluster import find_redis_binaries

HEALTHCHECK = ROOT / "deploy" / "healthcheck.py"
REDIS_CONF = ROOT / "deploy" / "redis" / "redis.conf"


def load_healthcheck() -> ModuleType:
    """deploy/healthcheck.py as a module (it is a script, not a package member)."""
    spec = importlib.util.spec_from_file_location("chaiwala_deploy_healthcheck", HEALTHCHECK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def healthcheck() -> ModuleType:
    """The health-check module."""
    return load_healthcheck()


@pytest.fixture()
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    """A real gRPC server exposing grpc.health.v1 on an ephemeral port."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(None)


def test_grpc_check_follows_the_serving_status(
    healthcheck: ModuleType, health_server: tuple[str, health.HealthServicer]
) -> None:
    """Exit 0 only while chaiwala.v1.RulesService is SERVING; unknown or NOT_SERVING is unhealthy."""
    target, servicer = health_server
    assert healthcheck.main(["grpc", target]) == 1, "an unregistered service is not healthy"
    servicer.set(RULES_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    assert healthcheck.main(["grpc", target]) == 0
    servicer.set(RULES_SERVICE_NAME, health_pb2.HealthCheckResponse.NOT_SERVING)
    assert healthcheck.main(["grpc", target]) == 1
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert healthcheck.main(["grpc", target, "--service", ""]) == 0


def test_grpc_check_as_a_script(health_server: tuple[str, health.HealthServicer]) -> None:
    """The script runs standalone, as the container health check calls it."""
    target, servicer = health_server
    servicer.set(RULES_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    completed = subprocess.run(
        [sys.executable, str(HEALTHCHECK), "grpc", target], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr


def test_grpc_check_fails_when_nothing_listens(healthcheck: ModuleType) -> None:
    """No server: unhealthy, not a crash."""
    assert healthcheck.main(["--timeout", "1", "grpc", f"127.0.0.1:{free_port()}"]) == 1


class _Readyz(BaseHTTPRequestHandler):
    ready = True

    def do_GET(self) -> None:
        status = 200 if self.path == "/readyz" and _Readyz.ready else 503
        self.send_response(status)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Silence the default stderr access log."""


def test_http_check_follows_readyz(healthcheck: ModuleType) -> None:
    """Exit 0 on 2xx from /readyz, 1 on 503 or when nothing listens."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Readyz)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/readyz"
        _Readyz.ready = True
        assert healthcheck.main(["http", url]) == 0
        _Readyz.ready = False
        assert healthcheck.main(["http", url]) == 1
    finally:
        server.shutdown()
        server.server_close()
    assert healthcheck.main(["--timeout", "1", "http", f"http://127.0.0.1:{free_port()}/readyz"]) == 1


def start_redis_with_shipped_conf(directory: Path, port: int) -> EmbeddedRedis:
    """redis-server with deploy/redis/redis.conf; only dir, port, bind and logfile differ for the test.

    ``dir`` is applied while the file is read (redis chdirs at once), so the test copy of the file
    has its ``dir`` line pointed at the temp directory; every other line is the shipped one.
    """
    binary, _ = find_redis_binaries()
    lines = REDIS_CONF.read_text(encoding="utf-8").splitlines()
    assert sum(line.startswith("dir ") for line in lines) == 1
    conf = directory / "redis.conf"
    conf.write_text(
        "\n".join(f"dir {directory}" if line.startswith("dir ") else line for line in lines) + "\n", encoding="utf-8"
    )
    process = subprocess.Popen(
        [binary, str(conf), "--port", str(port), "--bind", "127.0.0.1", "--logfile", str(directory / "redis.log")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return EmbeddedRedis(process=process, port=port, data_dir=directory)


def wait_for_ping(client: redis.Redis, process: subprocess.Popen[bytes]) -> None:
    """Block until the server answers (or fail if it exited)."""
    for _ in range(400):
        assert process.poll() is None, "redis-server rejected the shipped configuration"
        try:
            if client.ping():
                return
        except redis.ConnectionError:
            threading.Event().wait(0.025)
    raise AssertionError("redis-server did not start")


def test_shipped_redis_conf_persists_through_the_aof(tmp_path: Path) -> None:
    """A real redis-server accepts redis.conf; writes survive a restart from the AOF alone (RDB removed)."""
    port = free_port()
    server = start_redis_with_shipped_conf(tmp_path, port)
    try:
        with redis.Redis(host="127.0.0.1", port=port, socket_timeout=5, decode_responses=True) as client:
            wait_for_ping(client, server.process)
            config = client.config_get("*")
            assert config["appendonly"] == "yes"
            assert config["appendfsync"] == "everysec"
            assert config["maxmemory-policy"] == "noeviction"
            client.hset("game:{g1}:meta", mapping={"version": 3, "status": "active"})
            client.xadd("game:{g1}:events", {"move": "x"}, id="1-1")
        # SIGTERM: a clean shutdown, which flushes and fsyncs the AOF.
        server.stop()
    finally:
        server.stop()
    assert list(tmp_path.rglob("appendonly.aof*")), "no AOF written"
    for rdb in tmp_path.rglob("dump.rdb"):
        rdb.unlink()
    server = start_redis_with_shipped_conf(tmp_path, port)
    try:
        with redis.Redis(host="127.0.0.1", port=port, socket_timeout=5, decode_responses=True) as client:
            wait_for_ping(client, server.process)
            assert client.hgetall("game:{g1}:meta") == {"version": "3", "status": "active"}
            assert client.xlen("game:{g1}:events") == 1
    finally:
        server.stop()
