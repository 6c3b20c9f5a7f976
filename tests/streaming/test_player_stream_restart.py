"""A player's stream (``GET /v1/me/events``) rides out its rules service going away and coming back.

The rules services recycle their gRPC connections every few minutes (``grpc.max_connection_age_ms``)
and restart on deploys; either cuts the gateway's ``WatchMyEvents`` with UNAVAILABLE.  The gateway
reopens it after the last notice it relayed, so the player's stream goes on with no ``error``, no
gap and no repeat (before, it ended with ``upstream_error``).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import orjson

from tests.support.client import auth, guest, sse_events
from tests.support.stack import Gateway, Services

GAME = "darjeeling"
SSE = {"Accept": "text/event-stream"}


def _an_ended_game(client: httpx.Client, token: str) -> str:
    """A waiting game the player hosts, aborted at once: its ``game_finished`` reaches their feed."""
    waiting = client.post("/v1/games", json={"game_type": GAME, "players": [{"me": True}, {"open": True}]},
                          headers=auth(token))  # fmt: skip
    assert waiting.status_code == 201, waiting.text
    body = waiting.json()
    aborted = client.post(f"/v1/games/{body['game_id']}/abort", json={}, headers=auth(body["host_token"]))
    assert aborted.status_code == 200, aborted.text
    return str(body["game_id"])


def _until_finished(events: Iterator[dict[str, str]], game_id: str, seen: list[dict[str, str]]) -> None:
    for message in events:
        seen.append(message)
        assert message.get("event") != "error", message
        if message.get("event") == "game_finished" and orjson.loads(message["data"])["game_id"] == game_id:
            return
    raise AssertionError(f"the stream ended before {game_id} finished: {seen[-3:]}")


def test_a_player_stream_rides_out_a_rules_service_restart(services: Services) -> None:
    service = services.start(GAME)
    port = service.port
    gateway = Gateway({GAME: service.address})
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as client:
            _, asha = guest(client, "Asha")
            before = _an_ended_game(client, asha)
            seen: list[dict[str, str]] = []
            with client.stream("GET", "/v1/me/events", headers={**SSE, **auth(asha)}) as stream:
                assert stream.status_code == 200
                events = sse_events(stream)
                _until_finished(events, before, seen)
                services.stop(service)  # SIGTERM's path: its watches end with UNAVAILABLE shutting_down
                service = services.start(GAME, port)
                after = _an_ended_game(client, asha)
                _until_finished(events, after, seen)
            feed = client.get("/v1/me/events", headers=auth(asha)).json()
            # Nothing lost, nothing repeated: the stream is the feed.
            assert [m["id"] for m in seen] == [n["id"] for n in feed]
    finally:
        gateway.stop()
        services.stop(service)
