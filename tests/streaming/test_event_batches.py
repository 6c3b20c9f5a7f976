"""A move's events as one gRPC message (``RenderedRules.WatchEventBatches``), and its fallback.

The batched watch sends exactly ``WatchEvents``' events, grouped by log entry (one version per
message, none empty), for every viewer and from any resume point; the gateway's fan-out uses it,
and against a rules service without it (an older one during a rolling upgrade) falls back to
``WatchEvents`` with the same stream.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import orjson
import pytest
from grpc import aio

from chaiwala.v1 import rendered_pb2_grpc, rules_pb2, rules_pb2_grpc
from services.common.interceptors import RpcInterceptor
from tests.support.client import auth, create_game, sse_events, turn
from tests.support.stack import Gateway, RunningService, Services

GAME = "darjeeling"
SSE = {"Accept": "text/event-stream"}


def _played(url: str, moves: int) -> tuple[str, dict[int, str]]:
    """A two-seat game with ``moves`` moves played, then aborted (so every watch ends)."""
    with httpx.Client(base_url=url, timeout=60) as client:
        created = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "A"}, {"name": "B"}]})
        assert created.status_code == 201, created.text
        body = created.json()
        game_id, tokens = body["game_id"], {s["seat"]: s["token"] for s in body["seats"]}
        _play(client, game_id, tokens, moves)
        assert client.post(f"/v1/games/{game_id}/abort", headers=auth(body["host_token"])).status_code == 200
    return game_id, tokens


def _play(client: httpx.Client, game_id: str, tokens: dict[int, str], moves: int) -> None:
    for _ in range(moves):
        seat, legal = turn(client, game_id, tokens)
        body = {"move": legal["moves"][0], "expected_version": legal["version"]}
        assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200


def _key(event: rules_pb2.GameEvent) -> bytes:
    return bytes(event.SerializeToString(deterministic=True))


def test_batches_are_the_watched_events_of_each_entry(stack: dict[str, Any]) -> None:
    game_id, tokens = _played(str(stack["url"]), 6)
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        rules, rendered = rules_pb2_grpc.RulesServiceStub(channel), rendered_pb2_grpc.RenderedRulesStub(channel)
        for metadata in ([], [("authorization", f"Bearer {tokens[0]}")]):  # a spectator, a seat
            for after, index in [(0, None), (3, 0)]:
                request = rules_pb2.WatchEventsRequest(game_id=game_id, after=after)
                if index is not None:
                    request.after_index = index
                events = list(rules.WatchEvents(request, metadata=metadata, timeout=30))
                batches = list(rendered.WatchEventBatches(request, metadata=metadata, timeout=30))
                assert [_key(e) for b in batches for e in b.events] == [_key(e) for e in events]
                assert all(b.events and len({e.version for e in b.events}) == 1 for b in batches)
                versions = [b.events[0].version for b in batches]
                assert versions == sorted(set(versions)) and len(versions) >= 6 - after


def _listen(url: str, game_id: str, received: list[dict[str, str]], opened: threading.Event) -> None:
    """A spectator's stream until it ends, into ``received``; ``opened`` is set once it is open."""
    with (
        httpx.Client(base_url=url, timeout=60) as reader,
        reader.stream("GET", f"/v1/games/{game_id}/events", headers=SSE) as response,
    ):
        assert response.status_code == 200
        opened.set()
        for message in sse_events(response):
            received.append(message)
            if message["event"] in ("end", "error"):
                return


@pytest.fixture()
def older_service(services: Services, stack: dict[str, Any]) -> Iterator[str]:
    """The stack's Darjeeling rules servicer served by a server with RulesService only (no RenderedRules)."""
    running: RunningService = stack["services"][GAME]  # type: ignore[assignment]

    async def boot() -> tuple[aio.Server, int]:
        server = aio.server(interceptors=[RpcInterceptor(GAME)])  # the bearer, as create_server has it
        rules_pb2_grpc.add_RulesServiceServicer_to_server(running.servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    server, port = services.loops.run(boot())
    try:
        yield f"127.0.0.1:{port}"
    finally:
        services.loops.run(server.stop(None))


def test_the_gateway_falls_back_to_watch_events_on_an_older_rules_service(
    older_service: str, stack: dict[str, Any]
) -> None:
    gateway = Gateway({GAME: older_service}, rate_limit_per_address="100000/second")
    try:
        # Moves go through the current stack's gateway (same Redis, same game): the gateway no
        # longer retries SubmitMoves on a rules service without RenderedRules (issue #35: no
        # retried RPCs), while its event streams still fall back to WatchEvents.
        with (
            httpx.Client(base_url=gateway.url, timeout=60) as client,
            httpx.Client(base_url=str(stack["url"]), timeout=60) as mover,
        ):
            created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=7)
            game_id, tokens = created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}
            _play(mover, game_id, tokens, 2)
            received: list[dict[str, str]] = []
            opened = threading.Event()
            listener = threading.Thread(target=_listen, args=(gateway.url, game_id, received, opened))
            listener.start()
            assert opened.wait(30)
            _play(mover, game_id, tokens, 4)
            abort = client.post(f"/v1/games/{game_id}/abort", headers=auth(created["host_token"]))
            assert abort.status_code == 200, abort.text
            listener.join(60)
            assert not listener.is_alive()
            logged = client.get(f"/v1/games/{game_id}/events").json()
        assert received[-1]["event"] == "end", received[-3:]
        streamed = [orjson.loads(m["data"]) for m in received if m["event"] == "game_event"]
        assert streamed == logged and len({e["version"] for e in streamed}) >= 6
    finally:
        gateway.stop()
