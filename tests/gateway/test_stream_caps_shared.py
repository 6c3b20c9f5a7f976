"""A credential's SSE cap holds across gateway processes (issue #44: the cap counted per worker, so
a token had 16 streams where 8 were allowed).

Two real ``python -m gateway`` processes on one Redis, in front of the session's rules services:
streams opened on either draw on one count, a closed stream frees its slot at once, streams living
longer than the lease keep theirs (renewed), and a killed process's slots come back when its leases
run out.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from gateway.stream_caps import KEY_PREFIX
from services.common.processes import stop_process
from services.common.sealing import KEYS_FILE_ENV
from tests.support.client import assert_problem, auth, create_game
from tests.support.stack import ROOT, free_port
from tests.support.waiting import eventually

GAME = "darjeeling"
CAP = 2
# Renewed every 2 s (a loaded machine may stall a process for a second or two); a killed process's
# leases run out after this.
LEASE_SECONDS = 6.0
SSE = {"Accept": "text/event-stream"}


def _gateway(stack: dict[str, Any], redis_url: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CHAIWALA_") and k != "REDIS_URL"}
    env = {
        **clean,
        KEYS_FILE_ENV: os.environ[KEYS_FILE_ENV],  # the suite's master key ring (services.common.sealing)
        "REDIS_URL": redis_url,
        "CHAIWALA_HTTP_PORT": str(port),
        "CHAIWALA_HTTP_WORKERS": "1",
        "CHAIWALA_GAMES": GAME,
        f"CHAIWALA_SERVICE_{GAME.upper()}": stack["services"][GAME].address,
        "CHAIWALA_SSE_STREAMS_PER_TOKEN": str(CAP),
        "CHAIWALA_SSE_STREAM_LEASE_SECONDS": str(LEASE_SECONDS),
        "CHAIWALA_AUTH_FAILURE_LIMIT": "1000000/minute",
        "CHAIWALA_LOG_FORMAT": "console",
    }
    with log.open("ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "gateway"], cwd=ROOT, env=env, stdout=out, stderr=out)
    return process, f"http://127.0.0.1:{port}"


def _answering(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Wait until the gateway started by :func:`_gateway` answers ``/healthz``."""

    def answers() -> bool:
        assert process.poll() is None, f"the gateway exited; see {log}"
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(f"{url}/healthz", timeout=5).status_code == 200
        return False

    eventually(answers, "answering /healthz", 60, step=0.1)


@pytest.fixture()
def two_gateways(stack: dict[str, Any], redis_url: str, tmp_path: Path) -> Iterator[list[tuple[Any, str]]]:
    """Two gateway processes sharing the session's Redis (started at once, then each answering)."""
    started: list[tuple[subprocess.Popen[bytes], str]] = []
    try:
        logs = [tmp_path / f"gateway-{name}.log" for name in ("a", "b")]
        for log in logs:
            started.append(_gateway(stack, redis_url, log))
        for (process, url), log in zip(started, logs, strict=True):
            _answering(process, url, log)
        yield started
    finally:
        for process, _ in started:
            stop_process(process)


def _leases(redis_url: str, token: str) -> int:
    """How many leases the token's stream set holds (expired ones stay until a stream is opened)."""
    credential = hashlib.sha256(token.encode()).hexdigest()[:32]  # as gateway.limits names a bearer
    with redis.Redis.from_url(redis_url) as client:
        return int(client.zcard(KEY_PREFIX + "{cred:" + credential + "}"))


def test_a_tokens_stream_cap_holds_across_gateway_processes(
    two_gateways: list[tuple[subprocess.Popen[bytes], str]], redis_url: str
) -> None:
    (process_a, url_a), (_, url_b) = two_gateways
    with httpx.Client(base_url=url_a, timeout=30) as http, contextlib.ExitStack() as streams:
        created = create_game(http, GAME, [{"name": "a"}, {"name": "b"}])
        path, token = f"/v1/games/{created['game_id']}/events", created["seats"][0]["token"]
        headers = {**SSE, **auth(token)}

        def open_on(url: str) -> int:
            """Open a stream (kept open until the test ends when it opened); its status."""
            response = streams.enter_context(httpx.stream("GET", url + path, headers=headers, timeout=30))
            if response.status_code != 200:
                response.read()
                refused(response)
            return response.status_code

        def refused(response: httpx.Response) -> None:
            problem = assert_problem(response, 503, "too_many_streams")
            assert problem["detail"] == f"too many open event streams (sse streams per token: {CAP})"

        # One stream on each process: the token's cap (2) is reached on both.
        assert open_on(url_a) == 200
        with httpx.stream("GET", url_b + path, headers=headers, timeout=30) as on_b:
            assert on_b.status_code == 200
            assert open_on(url_a) == 503
            assert open_on(url_b) == 503
            # Streams living past their lease keep their slots: the leases were renewed.
            time.sleep(1.5 * LEASE_SECONDS)
            assert open_on(url_b) == 503
            assert _leases(redis_url, token) == CAP
        # A closed stream frees its slot at once: its lease is removed, not left to run out (a run-out
        # lease stays in the set until the next opening drops it).
        eventually(lambda: _leases(redis_url, token) == 1, "one lease after a stream closed", 30)
        assert open_on(url_b) == 200
        assert open_on(url_b) == 503

        # A killed process renews nothing more: its stream's slot comes back when the lease runs out.
        process_a.kill()
        process_a.wait(timeout=30)
        killed = time.monotonic()
        status = open_on(url_b)
        if time.monotonic() - killed < LEASE_SECONDS / 2:  # asked well within the dead lease's time
            assert status == 503
        eventually(lambda: open_on(url_b) == 200, "a slot back after the killed process's lease ran out", 60, 0.25)
        assert open_on(url_b) == 503  # and the cap still holds
