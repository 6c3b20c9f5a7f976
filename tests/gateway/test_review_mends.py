"""Small things a frontend review found: no empty seat tokens, short error details, metrics labels, SSE gauge."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.errors import MAX_DETAIL_CHARS, error_detail_from_metadata
from tests.support.client import assert_problem, auth, create_game, sse_events
from tests.support.metrics import exported
from tests.support.stack import Gateway

GAME = "darjeeling"
HUGE = 100_000


def test_seat_tokens_appear_once_at_creation_and_never_as_empty_fields(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=41)
    assert all(seat["token"] for seat in created["seats"])
    token = created["seats"][0]["token"]
    for headers in ({}, auth(token)):
        game = client.get(f"/v1/games/{created['game_id']}", headers=headers).json()
        assert all("token" not in seat for seat in game["seats"])
        fields = ["bot", "external_id", "name", "open", "reserved", "resigned", "seat"]
        assert [sorted(seat) for seat in game["seats"]] == [fields] * 2


@pytest.mark.parametrize(
    "body",
    [
        {"move": {"teleport": {"to": "x" * HUGE}}},
        {"move": "x" * HUGE},
        {"move": {"end_turn": {}}, "x" * HUGE: 1},
        {"game_type": "x" * HUGE},
    ],
)
def test_an_error_detail_echoes_only_a_short_prefix_of_a_huge_input(client: httpx.Client, body: Any) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=42)
    seat = client.get(f"/v1/games/{created['game_id']}").json()["to_act"][0]
    token = created["seats"][seat]["token"]
    path = "/v1/games" if "game_type" in body else f"/v1/games/{created['game_id']}/moves"
    response = client.post(path, json=body, headers=auth(token))
    problem = assert_problem(response, 400)
    assert len(problem["detail"]) <= MAX_DETAIL_CHARS + 1
    assert len(response.content) < 2_000


def test_grpc_refusals_are_clipped_too(stack: dict[str, Any]) -> None:
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.CreateGame(rules_pb2.CreateGameRequest(players=[rules_pb2.PlayerSpec(name="n", bot="b" * HUGE)]))
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    detail = error_detail_from_metadata(refused.value.trailing_metadata())
    assert detail is not None and detail.code == "unknown_bot"
    assert len(detail.message) <= MAX_DETAIL_CHARS + 1


def test_docs_and_openapi_have_their_own_route_labels(client: httpx.Client) -> None:
    for path in ("/docs", "/redoc", "/openapi.json", "/docs/assets/swagger-ui.css"):
        assert client.get(path).status_code == 200, path
    wanted = [
        f'chaiwala_http_requests_total{{method="GET",route="{route}",status="200"}}'
        for route in ("/docs", "/redoc", "/openapi.json", "/docs/assets/{name}")
    ]
    # A request is counted once its handler has returned, which may be a moment after the client has the body.
    deadline = time.monotonic() + 30
    while not all(series in client.get("/metrics").text for series in wanted):
        assert time.monotonic() < deadline, [s for s in wanted if s not in client.get("/metrics").text]
        time.sleep(0.05)


def test_open_sse_streams_are_a_gauge(stack: dict[str, Any]) -> None:
    # A gateway of this test's own: the session gateway's gauge also counts streams other tests
    # opened and left for it to notice closed (on its next write or ping), which could end between
    # two reads here and make an exact count race. Here the count starts at 0 and only this test moves it.
    gateway = Gateway({GAME: stack["services"][GAME].address}, redis_url=stack["gateway"].settings.redis_url)
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as client:
            _count_one_open_stream(client)
    finally:
        gateway.stop()


def _count_one_open_stream(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=43)
    # One move first, so the stream has an event to deliver at once.
    game_id = created["game_id"]
    seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    token = created["seats"][seat]["token"]
    legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token)).status_code == 200
    assert exported(client.get("/metrics").text, "chaiwala_gateway_sse_streams") == 0
    headers = {"Accept": "text/event-stream"}
    with client.stream("GET", f"/v1/games/{created['game_id']}/events", headers=headers) as response:
        assert response.status_code == 200
        stream = sse_events(response)
        first = next(stream)
        # The stream ends (and is no longer counted) only after an ``error`` or ``end`` event: say which.
        assert first["event"] == "game_event", first
        counted = exported(client.get("/metrics").text, "chaiwala_gateway_sse_streams")
        assert counted == 1, f"the open stream is not counted; it went on with {_next_or_timeout(stream)}"
    deadline = time.monotonic() + 30  # the gateway notices the disconnect on its next write or ping
    while exported(client.get("/metrics").text, "chaiwala_gateway_sse_streams") != 0:
        assert time.monotonic() < deadline, "the closed stream is still counted"
        time.sleep(0.05)


def _next_or_timeout(stream: Iterator[dict[str, str]]) -> object:
    """The stream's next message, or the read timeout when it is (rightly) still waiting."""
    try:
        return next(stream, "the end of the response")
    except httpx.ReadTimeout as timeout:
        return timeout
