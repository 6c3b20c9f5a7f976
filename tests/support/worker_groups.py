"""A rules service of two processes and a gateway of two uvicorn workers, each group on one port,
over a private Redis: real processes (``python -m services.rules.server``, ``python -m gateway``).

Started once and shared by the tests that look at the groups (tests/processes/conftest.py): the
test that kills the groups' parents leaves them dead, and the next test to ask gets new ones.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from services.common.embedded_redis import free_port, start_redis
from services.common.processes import stop_process
from services.common.workers import METRICS_DIR_PREFIX
from tests.support.fleet import ROOT

GAME = "darjeeling"


def metrics_dirs(owner: int) -> list[Path]:
    """The multiprocess metrics folders of the group whose parent is ``owner``."""
    return list(Path(tempfile.gettempdir()).glob(f"{METRICS_DIR_PREFIX}{owner}-*"))


class WorkerGroups:
    """The two groups and their Redis; ``url`` the gateway's, ``metrics`` the rules group's scrape."""

    def __init__(self, tmp: Path) -> None:
        self.server = start_redis(tmp / "redis", appendonly=False)
        self.grpc_port, self.metrics_port, self.http_port = free_port(), free_port(), free_port()
        base = {**os.environ, "REDIS_URL": self.server.url, "CHAIWALA_LOG_FORMAT": "console",
                "CHAIWALA_LOG_LEVEL": "warning"}  # fmt: skip
        self.log = (tmp / "groups.log").open("ab")
        self.service = subprocess.Popen(
            [sys.executable, "-m", "services.rules.server", GAME], cwd=ROOT, stdout=self.log, stderr=self.log,
            env={**base, "CHAIWALA_GRPC_PROCESSES": "2", "CHAIWALA_GRPC_PORT": str(self.grpc_port),
                 "CHAIWALA_METRICS_PORT": str(self.metrics_port)},
        )  # fmt: skip
        self.gateway = subprocess.Popen(
            [sys.executable, "-m", "gateway"], cwd=ROOT, stdout=self.log, stderr=self.log,
            env={**base, "CHAIWALA_HTTP_WORKERS": "2", "CHAIWALA_HTTP_PORT": str(self.http_port),
                 "CHAIWALA_GAMES": GAME, f"CHAIWALA_SERVICE_{GAME.upper()}": f"127.0.0.1:{self.grpc_port}"},
        )  # fmt: skip
        try:
            _wait(f"{self.metrics}", self.service)
            _wait(f"{self.url}/readyz", self.gateway)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        """The gateway's base URL."""
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def metrics(self) -> str:
        """The rules group's one scrape."""
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def running(self) -> bool:
        """Both parents still run (a test may have killed them)."""
        return self.service.poll() is None and self.gateway.poll() is None

    def stop(self) -> None:
        """Stop both groups (if still running) and the Redis."""
        stop_process(self.gateway)
        stop_process(self.service)
        self.log.close()
        self.server.stop()


def _wait(url: str, process: subprocess.Popen[bytes], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the process group exited early"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")
