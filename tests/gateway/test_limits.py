"""The gateway's limits through the real stack, each configured small (issue #13, item 6).

Every gateway here is a real uvicorn on loopback in front of the session's real rules
services, counting in the session's real Redis.  Limits in different tests use different
amounts, so their counters (keyed by amount and window) never meet.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.settings import GatewaySettings
from services.common.settings import ServiceSettings
from tests.support.client import assert_problem, auth, create_game
from tests.support.metrics import samples_sum, scrape
from tests.support.stack import Gateway

GAME = "darjeeling"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def small_gateway(request: pytest.FixtureRequest, stack: dict[str, Any], services: Any) -> Iterator[Gateway]:
    """A gateway with the limits given by the test's ``limits`` marker."""
    overrides = request.node.get_closest_marker("limits").kwargs
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    gateway = Gateway(addresses, redis_url=services.redis_url, **overrides)
    try:
        yield gateway
    finally:
        gateway.stop()


def _metric(url: str, name: str, **labels: str) -> float:
    return samples_sum(scrape(f"{url}/metrics"), name, **labels)


def _assert_rate_limited(response: httpx.Response, limit: str) -> None:
    body = assert_problem(response, 429, "rate_limited")
    assert body["detail"].startswith(f"{limit} limit of ")
    assert int(response.headers["retry-after"]) >= 1
    assert int(response.headers["ratelimit-remaining"]) == 0
    assert int(response.headers["ratelimit-limit"]) > 0 and int(response.headers["ratelimit-reset"]) >= 1


@pytest.mark.limits(rate_limit_per_token="7/minute", rate_limit_per_address="1000/minute")
def test_one_token_is_limited_and_others_are_not(small_gateway: Gateway) -> None:
    with httpx.Client(base_url=small_gateway.url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=1)
        game_id = created["game_id"]
        first, second = (seat["token"] for seat in created["seats"])
        answers = [client.get(f"/v1/games/{game_id}", headers=auth(first)) for _ in range(8)]
        assert [a.status_code for a in answers[:7]] == [200] * 7
        _assert_rate_limited(answers[7], "rate_per_token")
        assert client.get(f"/v1/games/{game_id}", headers=auth(second)).status_code == 200
        assert client.get(f"/v1/games/{game_id}").status_code == 200  # a spectator is limited by address only
        assert client.get("/healthz").status_code == 200  # probes are never limited
    assert _metric(small_gateway.url, "chaiwala_gateway_limited_total", limit="rate_per_token") == 1
    assert _metric(small_gateway.url, "chaiwala_gateway_limit", limit="rate_per_token", window="1 minute") == 7


@pytest.mark.limits(rate_limit_per_address="9/minute")
def test_one_address_is_limited_whatever_tokens_it_sends(small_gateway: Gateway) -> None:
    with httpx.Client(base_url=small_gateway.url, timeout=30) as client:
        statuses = [client.get("/v1/game-types", headers=auth(f"made-up-{n}")).status_code for n in range(9)]
        assert statuses == [200] * 9
        _assert_rate_limited(client.get("/v1/game-types"), "rate_per_address")


@pytest.mark.limits(create_limit="3/minute")
def test_game_creation_has_a_quota(small_gateway: Gateway) -> None:
    with httpx.Client(base_url=small_gateway.url, timeout=30) as client:
        for seed in range(3):
            create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=seed)
        body = {"game_type": GAME, "players": [{"name": "a"}, {"name": "b"}]}
        _assert_rate_limited(client.post("/v1/games", json=body), "create_quota")
        # A different credential (e.g. a tournament platform's API key) has its own quota.
        assert client.post("/v1/games", json=body, headers=auth("platform-key")).status_code == 201


def _raw(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes (bounded by the socket's timeout)."""
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


@pytest.mark.limits(header_timeout_seconds=1.0)
def test_headers_that_never_finish_get_408_and_the_connection_closes(small_gateway: Gateway) -> None:
    silent = _raw(small_gateway.url)
    trickling = _raw(small_gateway.url)
    with silent, trickling:
        trickling.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        for sock in (silent, trickling):
            answer = _read_all(sock)
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
            assert b'"code":"header_timeout"' in answer
    assert httpx.get(f"{small_gateway.url}/healthz", timeout=10).status_code == 200


@pytest.mark.limits(header_timeout_seconds=1.0)
def test_headers_sent_in_time_but_read_late_by_a_busy_gateway_are_answered(small_gateway: Gateway) -> None:
    # A burst of connections can keep the gateway's loop reading other sockets past a deadline
    # while a client's whole request waits in its socket (uvloop runs due timers before it polls
    # again): that client is not slow, and gets its answer, not a 408.  The burst here is one
    # callback of the loop's polling phase (a pipe's reader) that holds it past the deadline.
    busy, wake = os.pipe()
    loop = small_gateway.server.servers[0].get_loop()

    def burst() -> None:
        loop.remove_reader(busy)
        time.sleep(2.5)

    try:
        with _raw(small_gateway.url) as sock:
            assert httpx.get(f"{small_gateway.url}/healthz", timeout=10).status_code == 200  # ``sock`` was accepted
            loop.call_soon_threadsafe(loop.add_reader, busy, burst)
            time.sleep(0.2)  # the reader is in place
            os.write(wake, b"x")
            time.sleep(0.2)  # the loop is in the burst...
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # ...as this arrives
            answer = _read_all(sock)
    finally:
        os.close(busy)
        os.close(wake)
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]


@pytest.mark.limits(body_timeout_seconds=1.0)
def test_a_body_that_never_finishes_gets_408_and_changes_nothing(small_gateway: Gateway) -> None:
    with httpx.Client(base_url=small_gateway.url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=4)
        game_id, token = created["game_id"], created["seats"][0]["token"]
        with _raw(small_gateway.url) as sock:
            sock.sendall(
                f"POST /v1/games/{game_id}/moves HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"move": '.encode()
            )
            answer = _read_all(sock)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
        assert b'"code":"body_timeout"' in answer
        assert client.get(f"/v1/games/{game_id}").json()["version"] == 0


@pytest.mark.limits(sse_streams_per_token=1)
def test_event_streams_are_capped_per_token(small_gateway: Gateway) -> None:
    with httpx.Client(base_url=small_gateway.url, timeout=30) as client:
        created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=5)
        game_id, token = created["game_id"], created["seats"][0]["token"]
        headers = {"Accept": "text/event-stream", **auth(token)}
        with client.stream("GET", f"/v1/games/{game_id}/events", headers=headers) as first:
            assert first.status_code == 200
            second = client.get(f"/v1/games/{game_id}/events", headers=headers)
            assert_problem(second, 503, "too_many_streams")
            assert int(second.headers["retry-after"]) >= 1
            other = {"Accept": "text/event-stream", **auth(created["seats"][1]["token"])}
            with client.stream("GET", f"/v1/games/{game_id}/events", headers=other) as third:
                assert third.status_code == 200
    assert _metric(small_gateway.url, "chaiwala_gateway_limited_total", limit="sse_streams_per_token") == 1


def test_defaults_bind_loopback() -> None:
    assert GatewaySettings().http_host == "127.0.0.1"
    assert ServiceSettings().grpc_host == "127.0.0.1"


def _run(module: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CHAIWALA_")}
    return subprocess.run(
        [sys.executable, "-m", *module], cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "module,env",
    [
        (["gateway"], {"CHAIWALA_HTTP_HOST": "0.0.0.0", "CHAIWALA_HTTP_PORT": "0"}),
        (
            ["services.rules.server", GAME],
            {"CHAIWALA_GRPC_HOST": "0.0.0.0", "CHAIWALA_GRPC_PORT": "0", "REDIS_URL": "redis://127.0.0.1:9/0"},
        ),
    ],
    ids=["gateway", "rules-service"],
)
def test_an_open_server_refuses_a_non_loopback_bind(module: list[str], env: dict[str, str]) -> None:
    refused = _run(module, **env)
    assert refused.returncode != 0
    assert "CHAIWALA_INSECURE_OPEN=1" in refused.stderr and "refusing to serve" in refused.stderr
