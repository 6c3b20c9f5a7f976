"""Stream tickets through the real stack: issue, scope, reuse, expiry, refusals (REST and gRPC)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import grpc
import httpx
import pytest
from redis import Redis

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.identity.feed_rpcs import ticket_key as player_ticket_key
from services.identity.settings import IdentitySettings
from services.rules.tickets import TICKET_TTL_SECONDS, ticket_key
from tests.support.client import assert_problem, auth, create_game, guest, sse_events
from tests.support.seeds import seed_hex
from tests.support.stack import rules_and_gateway

GAME = "darjeeling"
SSE = {"Accept": "text/event-stream"}


@pytest.fixture(scope="module")
def redis(redis_url: str) -> Iterator[Redis]:
    connection = Redis.from_url(redis_url)
    try:
        yield connection
    finally:
        connection.close()


def _game(client: httpx.Client, seed: int) -> tuple[str, dict[int, str]]:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=seed)
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def _ticket(client: httpx.Client, game_id: str, token: str) -> dict[str, Any]:
    response = client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(token))
    assert response.status_code == 201, response.text
    assert response.headers["cache-control"] == "no-store"
    body: dict[str, Any] = response.json()
    assert set(body) == {"ticket", "expires_at"}
    return body


def _play_until_seat_0_took_a_tile(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> None:
    for _ in range(40):
        events = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).json()
        if any("tile" in e["event"].get("tile_taken", {}) for e in events if e.get("seat") == 0):
            return
        seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        body = {"move": legal["moves"][0], "expected_version": legal["version"]}
        answer = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
    raise AssertionError("seat 0 never took a tile")


def _own_tiles(events: list[dict[str, Any]]) -> list[Any]:
    return [e["event"]["tile_taken"]["tile"] for e in events if "tile" in e["event"].get("tile_taken", {})]


def test_a_ticket_is_short_lived_and_stored_only_hashed_with_a_ttl(client: httpx.Client, redis: Redis) -> None:
    game_id, tokens = _game(client, seed=31)
    issued = _ticket(client, game_id, tokens[0])
    expires = datetime.fromisoformat(issued["expires_at"].replace("Z", "+00:00")).timestamp()
    assert 0 < expires - time.time() <= TICKET_TTL_SECONDS
    assert len(issued["ticket"]) >= 40
    ttl = redis.ttl(ticket_key(game_id, issued["ticket"]))
    assert 0 < ttl <= TICKET_TTL_SECONDS
    assert redis.get(ticket_key(game_id, issued["ticket"])) == b"0"
    assert not list(redis.scan_iter(match=f"*{issued['ticket']}*"))  # never stored in clear


def test_events_with_a_ticket_show_what_the_seat_sees_json_and_sse(client: httpx.Client) -> None:
    game_id, tokens = _game(client, seed=21)
    _play_until_seat_0_took_a_tile(client, game_id, tokens)
    as_seat = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).json()
    ticket = _ticket(client, game_id, tokens[0])["ticket"]
    with_ticket = client.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}).json()
    assert with_ticket == as_seat and _own_tiles(with_ticket)
    assert _own_tiles(client.get(f"/v1/games/{game_id}/events").json()) == []
    # The same ticket again (an EventSource reconnecting), this time as SSE.
    last = f"{as_seat[0]['version']}:{as_seat[0]['index']}"
    headers = {"Accept": "text/event-stream", "Last-Event-ID": last}
    streamed = []
    with client.stream("GET", f"/v1/games/{game_id}/events", params={"ticket": ticket}, headers=headers) as response:
        assert response.status_code == 200
        for message in sse_events(response):
            streamed.append(json.loads(message["data"]))
            if len(streamed) == len(as_seat) - 1:
                break
    assert streamed == as_seat[1:]


def test_a_ticket_of_another_game_an_unknown_one_or_a_seat_token_in_the_url_is_a_401(client: httpx.Client) -> None:
    game_a, tokens_a = _game(client, seed=32)
    game_b, tokens_b = _game(client, seed=33)
    ticket_a = _ticket(client, game_a, tokens_a[0])["ticket"]
    for game_id, ticket in (
        (game_b, ticket_a),
        (game_a, "x" * 43),
        (game_a, tokens_a[0]),
        (game_a, ""),
        (game_a, "é"),
        (game_a, "y" * 500),
    ):
        for accept in ("application/json", "text/event-stream"):
            response = client.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}, headers={"Accept": accept})
            body = assert_problem(response, 401, "invalid_ticket")
            assert ticket not in body["detail"] or not ticket
    assert tokens_b  # the other game's seats are untouched


def test_an_expired_ticket_is_a_401(client: httpx.Client, redis: Redis) -> None:
    game_id, tokens = _game(client, seed=34)
    ticket = _ticket(client, game_id, tokens[0])["ticket"]
    key = ticket_key(game_id, ticket)
    assert client.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}).status_code == 200
    redis.pexpire(key, 1)  # let Redis expire it now, as it would after a minute
    while redis.exists(key):
        time.sleep(0.01)
    assert_problem(client.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}), 401, "invalid_ticket")


def test_a_ticket_is_read_only_and_never_a_bearer(client: httpx.Client) -> None:
    game_id, tokens = _game(client, seed=35)
    seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
    ticket = _ticket(client, game_id, tokens[seat])["ticket"]
    move = {"move": legal["moves"][0]}
    assert_problem(client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth(ticket)), 401)
    assert_problem(client.post(f"/v1/games/{game_id}/moves", json=move, params={"ticket": ticket}), 401)
    assert_problem(client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(ticket)), 401)
    assert_problem(client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(ticket)), 401)
    assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"]


def test_tickets_need_a_seat_token_and_never_a_token_in_the_url(client: httpx.Client) -> None:
    game_id, tokens = _game(client, seed=36)
    assert_problem(client.post(f"/v1/games/{game_id}/stream-tickets"), 401, "unauthenticated")
    assert_problem(client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth("forged-token")), 401)
    assert_problem(client.post("/v1/games/darjeeling-000000000000000000000000/stream-tickets", headers=auth("t")), 404)
    assert_problem(client.post("/v1/games/nonsense/stream-tickets", headers=auth("t")), 404)
    for name in ("token", "access_token"):
        response = client.get(f"/v1/games/{game_id}/events", params={name: tokens[0]})
        body = assert_problem(response, 400, "credential_in_url")
        assert tokens[0] not in body["detail"]
    ticket = _ticket(client, game_id, tokens[0])["ticket"]
    both = client.get(f"/v1/games/{game_id}/events", params={"ticket": ticket}, headers=auth(tokens[0]))
    assert_problem(both, 400, "ticket_and_bearer")


def test_grpc_event_rpcs_take_a_ticket_in_the_request(stack: dict[str, Any]) -> None:
    address = stack["services"][GAME].address

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            players = [rules_pb2.PlayerSpec(name="A"), rules_pb2.PlayerSpec(name="B")]
            created = await stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(37)))
            bearer = (("authorization", f"Bearer {created.seats[1].token}"),)
            issued = await stub.CreateStreamTicket(
                rules_pb2.CreateStreamTicketRequest(game_id=created.game_id), metadata=bearer
            )
            assert issued.expires_at.seconds > time.time()
            listing = await stub.ListEvents(rules_pb2.ListEventsRequest(game_id=created.game_id, ticket=issued.ticket))
            assert listing.version == 0
            watch = stub.WatchEvents(rules_pb2.WatchEventsRequest(game_id=created.game_id, ticket="bogus"))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for _ in watch:
                    pass
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.aio.AioRpcError) as both:
                await stub.ListEvents(
                    rules_pb2.ListEventsRequest(game_id=created.game_id, ticket=issued.ticket), metadata=bearer
                )
            assert both.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(grpc.aio.AioRpcError) as spectator:
                await stub.CreateStreamTicket(rules_pb2.CreateStreamTicketRequest(game_id=created.game_id))
            assert spectator.value.code() == grpc.StatusCode.UNAUTHENTICATED

    asyncio.run(scenario())


SHORT_TICKETS = 4  # seconds: CHAIWALA_STREAM_TICKET_SECONDS of the stack below


def test_the_tickets_lifetime_is_a_setting_and_an_open_stream_outlives_it(redis_url: str, redis: Redis) -> None:
    """A service whose tickets live 4 s issues game and player tickets for 4 s; a game stream open
    longer keeps its ticket (renewed every quarter of its life); the player ticket, with no stream,
    expires."""
    identity = IdentitySettings(stream_ticket_seconds=SHORT_TICKETS)
    open_limits = {"create_limit": "500/second", "session_limit": "500/second"}
    with (
        rules_and_gateway(redis_url, GAME, identity=identity, **open_limits) as (_, gateway),
        httpx.Client(base_url=gateway.url, timeout=60) as client,
    ):
        game_id, tokens = _game(client, seed=37)
        game_ticket = _ticket(client, game_id, tokens[0])
        _, player_token = guest(client, "Tara")
        answer = client.post("/v1/me/stream-tickets", headers=auth(player_token))
        assert answer.status_code == 201, answer.text
        player_ticket = answer.json()
        for issued, key in ((game_ticket, ticket_key(game_id, game_ticket["ticket"])),
                            (player_ticket, player_ticket_key(player_ticket["ticket"]))):  # fmt: skip
            expires = datetime.fromisoformat(issued["expires_at"].replace("Z", "+00:00")).timestamp()
            assert 0 < expires - time.time() <= SHORT_TICKETS
            assert 0 < redis.ttl(key) <= SHORT_TICKETS
        params = {"ticket": game_ticket["ticket"]}
        with client.stream("GET", f"/v1/games/{game_id}/events", params=params, headers=SSE) as stream:
            assert stream.status_code == 200
            past = time.monotonic() + SHORT_TICKETS + 2
            while time.monotonic() < past:  # open past the ticket's life: it is renewed all along
                assert redis.exists(ticket_key(game_id, game_ticket["ticket"]))
                time.sleep(0.2)
        assert not redis.exists(player_ticket_key(player_ticket["ticket"]))  # nothing kept this one
        refused = client.get("/v1/me/events", params={"ticket": player_ticket["ticket"]}, headers=SSE)
        assert_problem(refused, 401, "invalid_ticket")
        assert client.get(f"/v1/games/{game_id}/events", params=params).status_code == 200  # still good
