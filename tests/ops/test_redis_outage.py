"""Redis pulled out from under the stack and put back (issue #13, item 4).

A Redis of this test's own (a real ``redis-server`` with AOF, restarted on the same port
and data directory), a real rules service and a real gateway.  While Redis is down every
call is a 503 ``store_unavailable`` with ``Retry-After`` (UNAVAILABLE over gRPC) and
changes nothing; the first request after Redis answers again succeeds.  The background
processes (conductor, tournament director, webhook dispatcher) log the outage once and its end
once, with a gauge, instead of a traceback per pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.embedded_redis import EmbeddedRedis, free_port, start_redis
from services.common.errors import error_detail_from_metadata
from tests.support.client import assert_problem, auth, create_game
from tests.support.stack import (
    ConductorProcess,
    DirectorProcess,
    MatchmakerProcess,
    WebhookProcess,
    rules_and_gateway,
)

GAME = "darjeeling"


class Outage:
    """A Redis that can be stopped and started again at the same address with the same data."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.redis: EmbeddedRedis = start_redis(data_dir, port=self.port)

    @property
    def url(self) -> str:
        """The Redis URL, the same before and after a restart."""
        return self.redis.url  # the password stays in the data folder's auth.conf across restarts

    def stop(self) -> None:
        """Take Redis away (a clean shutdown, so the AOF holds everything)."""
        self.redis.stop()

    def start(self) -> None:
        """Bring it back on the same port and data."""
        self.redis = start_redis(self.data_dir, port=self.port)


@pytest.fixture()
def outage_stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    outage = Outage(tmp_path / "redis")
    try:
        with rules_and_gateway(outage.url, GAME, redis_url=outage.url) as (service, gateway):
            yield {"outage": outage, "gateway": gateway, "service": service}
    finally:
        outage.stop()


def _assert_unavailable(response: httpx.Response) -> None:
    assert_problem(response, 503, "store_unavailable")
    assert response.headers["retry-after"] == "1"


def test_redis_down_is_503_with_retry_after_and_the_next_request_after_it_returns_succeeds(
    outage_stack: dict[str, Any],
) -> None:
    outage: Outage = outage_stack["outage"]
    with httpx.Client(base_url=outage_stack["gateway"].url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=9)
        game_id, tokens = created["game_id"], [s["token"] for s in created["seats"]]
        seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        move = {"move": legal["moves"][0], "expected_version": legal["version"]}
        outage.stop()
        _assert_unavailable(client.get(f"/v1/games/{game_id}"))
        _assert_unavailable(client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat])))
        two = {"game_type": GAME, "players": [{"name": "a"}, {"name": "b"}]}
        _assert_unavailable(client.post("/v1/games", json=two))
        _assert_unavailable(client.get(f"/v1/games/{game_id}/events"))
        with grpc.insecure_channel(outage_stack["service"].address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            with pytest.raises(grpc.RpcError) as failed:
                stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), timeout=30)
            assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
            detail = error_detail_from_metadata(failed.value.trailing_metadata())
            assert detail is not None and detail.code == "store_unavailable"
        outage.start()
        # The very first request after Redis is back is served: no retry back-off to sit out.
        assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"]
        accepted = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(tokens[seat]))
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["version"] == legal["version"] + 1
        metrics = client.get("/metrics").text
    assert 'route="/v1/games/{game_id}",status="503"' in metrics
    assert "chaiwala_gateway_limit_errors_total" in metrics and "chaiwala_http_requests_total" in metrics
    assert 'status="500"' not in metrics


# --------------------------------------------------------------------------------------------------
# The background processes through an outage: one warning, one info, no traceback per pass.

INFO = {"CHAIWALA_LOG_LEVEL": "info"}
LOOP_FAILURES = ("sweep_failed", "attend_failed", "dispatch_failed", "outbox_read_failed", "retention_sweep_failed")


def _events(log: str, event: str) -> list[str]:
    """The console-format lines whose event is ``event``."""
    return [line for line in log.splitlines() if re.search(rf"\]\s+{event}\b", line)]


def _wait_for_gauge(process: Any, value: float, seconds: float = 60) -> None:
    """Poll ``chaiwala_store_available`` on the process's metrics endpoint until it is ``value``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if process.metric("chaiwala_store_available") == value:
                return
        except httpx.HTTPError:
            pass  # still starting
        assert process.process.poll() is None, f"{process.log_path} exited"
        assert time.monotonic() < deadline, f"chaiwala_store_available never {value}: {process.log_path.read_text()}"
        time.sleep(0.1)


def test_the_background_processes_log_an_outage_once_and_its_end_once(tmp_path: Path) -> None:
    outage = Outage(tmp_path / "redis")
    processes = [
        ConductorProcess(outage.url, tmp_path / "conductor.log", extra_env=INFO),
        DirectorProcess(outage.url, {}, tmp_path / "director.log", extra_env=INFO, wait=False),
        WebhookProcess(outage.url, tmp_path / "webhook.log", wait=False),
        MatchmakerProcess(outage.url, {}, tmp_path / "matchmaker.log", wait=False),
    ]
    try:
        for process in processes:  # started at once, then each serving
            process.ready()
        for process in processes:
            _wait_for_gauge(process, 1)
        outage.stop()
        for process in processes:
            _wait_for_gauge(process, 0)
        # Several passes of every loop fail meanwhile (the conductor retries every second, the
        # director and the dispatcher every 0.1-0.2 s); none may add a line.
        time.sleep(1.5)
        outage.start()
        for process in processes:
            _wait_for_gauge(process, 1)
            assert process.metric("chaiwala_store_outages_total") == 1
    finally:
        for process in processes:
            process.stop()
        outage.stop()
    for process in processes:
        log = process.log_path.read_text(encoding="utf-8", errors="replace")
        assert len(_events(log, "store_unavailable")) == 1, log
        assert len(_events(log, "store_available")) == 1, log
        assert "Traceback" not in log and not any(_events(log, failure) for failure in LOOP_FAILURES), log
