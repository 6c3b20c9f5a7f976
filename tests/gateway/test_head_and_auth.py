"""Request heads and failed authentications through the real stack (issue #36, items 1 and 3).

Every gateway here is a real uvicorn on loopback in front of the session's real rules services
and webhook dispatcher, counting in the session's real Redis; each test that counts gives its
gateway a limit of its own amount, so its counters meet no other test's.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.client import assert_problem, auth, two_humans
from tests.support.stack import WEBHOOK_OPERATOR_KEY, Gateway

GAME = "darjeeling"
KIB = 1024


@pytest.fixture()
def own_gateway(request: pytest.FixtureRequest, stack: dict[str, Any], services: Any) -> Iterator[Gateway]:
    """A gateway of its own (settings from the test's ``gateway`` marker) routing to the session's services."""
    marker = request.node.get_closest_marker("gateway")
    overrides = dict(marker.kwargs) if marker else {}
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    gateway = Gateway(addresses, redis_url=services.redis_url, service_webhook=stack["webhook"].address, **overrides)
    try:
        yield gateway
    finally:
        gateway.stop()


def _exchange(url: str, request: bytes) -> bytes:
    """Send ``request`` on a raw connection (from a thread, however large) and read until the server closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        refused: list[OSError] = []

        def send() -> None:
            try:
                sock.sendall(request)
            except OSError as error:  # the server may close before the last byte: that is the point
                refused.append(error)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        answer = b""
        while chunk := sock.recv(64 * KIB):
            answer += chunk
        sender.join(timeout=30)
    return answer


def _problem_of(answer: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, json.loads(body)


def _get(path: str, *headers: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _assert_431(answer: bytes, bound: str) -> None:
    status, headers, body = _problem_of(answer)
    assert status == 431, answer[:300]
    assert headers["content-type"] == "application/problem+json" and headers["connection"] == "close"
    assert body["code"] == "headers_too_large" and body["title"] == "Request header fields too large"
    assert bound in body["detail"], body


def _requests_counted(url: str) -> float:
    """Requests the gateway's routes saw (its own edge metric), /metrics itself left out."""
    total = 0.0
    for line in httpx.get(f"{url}/metrics", timeout=10).text.splitlines():
        if line.startswith("chaiwala_http_requests_total{") and 'route="/metrics"' not in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_an_8_mb_header_and_a_1_mb_authorization_are_431_before_any_work(own_gateway: Gateway) -> None:
    url = own_gateway.url
    huge = _exchange(url, _get("/v1/games", "X-Filler: " + "a" * (8 * KIB * KIB)))
    _assert_431(huge, "request line and headers")
    bearer = _exchange(url, _get("/v1/games/g_nothing", "Authorization: Bearer " + "t" * (KIB * KIB)))
    _assert_431(bearer, "request line and headers")
    # A body after a head that is too large changes nothing either: no route ran, nothing was counted.
    body = json.dumps({"game_type": GAME, "players": [{"name": "A"}, {"name": "B"}]}).encode()
    post = b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    post += b"X-Filler: " + b"a" * (40 * KIB) + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    _assert_431(_exchange(url, post), "request line and headers")
    assert _requests_counted(url) == 0


def test_each_header_line_and_the_whole_head_have_their_bound(own_gateway: Gateway) -> None:
    url = own_gateway.url
    line_limit, total_limit = own_gateway.settings.max_header_field_bytes, own_gateway.settings.max_header_bytes
    assert (line_limit, total_limit) == (8 * KIB, 32 * KIB)  # the documented defaults
    # One line just inside its bound is served; one byte more is refused.
    value_room = line_limit - len("X-Note: ")
    fits = _exchange(url, _get("/healthz", "Connection: close", "X-Note: " + "n" * value_room))
    assert fits.startswith(b"HTTP/1.1 200"), fits[:200]
    _assert_431(_exchange(url, _get("/healthz", "X-Note: " + "n" * (value_room + 1))), "header line")
    # Five lines, each inside its bound, are together past the total.
    lines = [f"X-Note-{i}: " + "n" * (7 * KIB) for i in range(5)]
    _assert_431(_exchange(url, _get("/healthz", *lines)), "request line and headers")
    # And the connection of a request that fits is kept for the next one.
    with httpx.Client(base_url=url, timeout=10) as client:
        assert client.get("/healthz", headers={"X-Note": "n" * 7000}).status_code == 200
        assert client.get("/healthz").status_code == 200


@pytest.mark.gateway(max_header_bytes=4 * KIB, max_header_field_bytes=2 * KIB)
def test_the_head_bounds_are_settings(own_gateway: Gateway) -> None:
    url = own_gateway.url
    _assert_431(_exchange(url, _get("/healthz", "X-Note: " + "n" * (3 * KIB))), "larger than 2048 bytes")
    lines = [f"X-Note-{i}: " + "n" * KIB for i in range(5)]
    _assert_431(_exchange(url, _get("/healthz", *lines)), "larger than 4096 bytes")


def _assert_auth_limited(response: httpx.Response) -> None:
    body = assert_problem(response, 429, "rate_limited")
    assert body["detail"].startswith("auth_failures limit of "), body
    assert int(response.headers["retry-after"]) >= 1


@pytest.mark.gateway(auth_failure_limit="5/minute")
def test_failed_authentications_per_address_have_a_strict_bucket(own_gateway: Gateway, stack: dict[str, Any]) -> None:
    with httpx.Client(base_url=str(stack["url"]), timeout=30) as main:
        game_id, tokens = two_humans(main, GAME)
    with httpx.Client(base_url=own_gateway.url, timeout=30) as client:
        path = f"/v1/games/{game_id}"
        assert client.get(path, headers=auth(tokens[0])).status_code == 200  # a good token is no failure
        for attempt in range(5):
            assert_problem(client.get(path, headers=auth(f"guess-{attempt}")), 401, "unauthenticated")
        _assert_auth_limited(client.get(path, headers=auth("guess-5")))
        # From now on every failure from this address is 429; a good credential is still served
        # (gateway.auth_failures), and a request without one too.
        _assert_auth_limited(client.get(path, headers=auth("guess-6")))
        assert client.get(path, headers=auth(tokens[0])).status_code == 200
        _assert_auth_limited(client.get(f"{path}/events?ticket=made-up"))
        assert client.get(path).status_code == 200
    metrics = httpx.get(f"{own_gateway.url}/metrics", timeout=10).text
    assert 'chaiwala_gateway_limit{limit="auth_failures",window="1 minute"} 5.0' in metrics
    assert 'chaiwala_gateway_limited_total{limit="auth_failures"}' in metrics


@pytest.mark.gateway(auth_failure_limit="3/minute")
def test_a_wrong_operator_key_counts_as_a_failed_authentication_but_never_stops_the_right_one(
    own_gateway: Gateway,
) -> None:
    body = {"url": "http://127.0.0.1:9/hook", "events": ["game.finished"]}
    with httpx.Client(base_url=own_gateway.url, timeout=30) as client:
        for attempt in range(3):
            refused = client.post("/v1/webhooks", json=body, headers=auth(f"not-the-key-{attempt}"))
            assert_problem(refused, 403, "api_key_required")
        _assert_auth_limited(client.post("/v1/webhooks", json=body, headers=auth("not-the-key-3")))
        assert client.get("/v1/webhooks", headers=auth(WEBHOOK_OPERATOR_KEY)).status_code == 200
