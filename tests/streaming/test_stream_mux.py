"""Many listeners on many games and player feeds, served by a bounded number of Redis connections.

A rules service follows every watched game and every connected player's feed through its stream
mux (services.streaming.mux): a few blocking ``XREAD`` calls over many keys, not a connection per
game or per player.  Here one service, allowed two reader connections, serves spectators on
forty games and twenty players' streams through a real gateway; ``CLIENT LIST`` on the real Redis
counts the readers' connections (named ``chaiwala-streams:<mux>``) while everything is open, and
after a move in every game and a notice to every player reached every listener.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import orjson
from redis import Redis
from redis import asyncio as aioredis

from services.lobby.feed import Feed
from services.streaming.hub import READER_NAME, HubLimits
from tests.support.client import auth, guest, sse_events_async, turn, two_humans
from tests.support.stack import Gateway, Services

GAME = "darjeeling"
SSE = {"Accept": "text/event-stream"}
GAMES, SPECTATORS, PLAYERS, CONNECTIONS = 40, 3, 20, 2
WAIT_SECONDS = 60.0


def _reader_connections(redis_url: str, owner: str) -> int:
    """Connections of the mux ``owner`` that Redis has open now."""
    with Redis.from_url(redis_url) as redis:
        clients: list[dict[str, Any]] = redis.client_list()
    return sum(1 for client in clients if client.get("name") == f"{READER_NAME}:{owner}")


async def _until(client: httpx.AsyncClient, path: str, headers: dict[str, str], opened: asyncio.Queue[int],
                 wanted: Any) -> dict[str, str]:  # fmt: skip
    """Read one SSE stream until a message ``wanted`` accepts (returned); report once it is open."""
    async with client.stream("GET", path, headers={**SSE, **headers}) as response:
        assert response.status_code == 200, await response.aread()
        opened.put_nowait(1)
        async for message in sse_events_async(response):
            assert message["event"] not in ("error", "end"), message
            if wanted(message):
                return message
    raise AssertionError(f"{path} ended before its message")


def _move(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> None:
    """The seat to act plays its first legal move."""
    seat, legal = turn(client, game_id, tokens)
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200


def _moved(message: dict[str, str]) -> bool:
    return message["event"] == "game_event" and int(message["id"].split(":")[0]) >= 1


def _invited(message: dict[str, str]) -> bool:
    return message["event"] == "invited"


def test_many_listeners_on_many_games_and_feeds_use_a_bounded_number_of_connections(redis_url: str) -> None:
    services = Services(redis_url)
    service = services.start(GAME, live_limits=HubLimits(connections=CONNECTIONS))
    many = "100000/second"
    gateway = Gateway({GAME: service.address}, sse_streams_per_address=1000, sse_streams_per_token=10,
                      rate_limit_per_address=many, rate_limit_per_token=many, create_limit=many,
                      session_limit="1000/minute")  # fmt: skip
    mux = service.servicer.live.mux
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as client:
            games = [two_humans(client, GAME) for _ in range(GAMES)]
            players = [guest(client, f"Reader {n}") for n in range(PLAYERS)]

            async def listen() -> list[dict[str, str]]:
                opened: asyncio.Queue[int] = asyncio.Queue()
                limits = httpx.Limits(max_connections=None)
                async with httpx.AsyncClient(base_url=gateway.url, timeout=WAIT_SECONDS, limits=limits) as http:
                    listeners = [
                        asyncio.create_task(_until(http, f"/v1/games/{game_id}/events", {}, opened, _moved))
                        for game_id, _ in games
                        for _ in range(SPECTATORS)
                    ]
                    listeners += [
                        asyncio.create_task(_until(http, "/v1/me/events", auth(token), opened, _invited))
                        for _, token in players
                    ]
                    for _ in listeners:
                        await asyncio.wait_for(opened.get(), WAIT_SECONDS)
                    # Everything open: every game and every feed is followed, by at most CONNECTIONS reads.
                    assert mux.followed() == GAMES + PLAYERS
                    assert 1 <= _reader_connections(redis_url, mux.owner) <= CONNECTIONS
                    for game_id, tokens in games:
                        await asyncio.to_thread(_move, client, game_id, tokens)
                    redis = aioredis.Redis.from_url(redis_url)
                    try:
                        for player_id, _ in players:
                            await Feed(redis).notify(player_id, "invited", {"game_id": "g", "game_type": GAME})
                    finally:
                        await redis.aclose()
                    return list(await asyncio.wait_for(asyncio.gather(*listeners), WAIT_SECONDS))

            heard = asyncio.run(listen())
            assert len(heard) == GAMES * SPECTATORS + PLAYERS
            assert all(orjson.loads(message["data"]) for message in heard)
            assert _reader_connections(redis_url, mux.owner) <= CONNECTIONS
    finally:
        gateway.stop()
        services.stop(service)
        services.close()


def test_a_player_stream_outlives_the_gateways_call_deadline(redis_url: str) -> None:
    # The live stream once carried the unary calls' deadline: every player stream ended with
    # upstream_error (DEADLINE_EXCEEDED) after CHAIWALA_RPC_TIMEOUT_SECONDS.
    services = Services(redis_url)
    service = services.start(GAME)
    gateway = Gateway({GAME: service.address}, session_limit="1000/minute", rpc_timeout_seconds=1)
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as client:
            player_id, token = guest(client, "Patient")

            async def listen() -> dict[str, str]:
                opened: asyncio.Queue[int] = asyncio.Queue()
                async with httpx.AsyncClient(base_url=gateway.url, timeout=WAIT_SECONDS) as http:
                    listener = asyncio.create_task(_until(http, "/v1/me/events", auth(token), opened, _invited))
                    await asyncio.wait_for(opened.get(), WAIT_SECONDS)
                    await asyncio.sleep(3)  # three deadlines pass with the stream open
                    redis = aioredis.Redis.from_url(redis_url)
                    try:
                        await Feed(redis).notify(player_id, "invited", {"game_id": "g", "game_type": GAME})
                    finally:
                        await redis.aclose()
                    return await asyncio.wait_for(listener, WAIT_SECONDS)

            assert asyncio.run(listen())["event"] == "invited"
    finally:
        gateway.stop()
        services.stop(service)
        services.close()
