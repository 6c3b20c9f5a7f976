"""A game's feed ends when the game is over, by one check (``EventHub._end_finished``) run when the
feed opens and by the sweep.

A watch of a game that ended before anyone watched logs nothing more: before the check ran at the
feed's opening, such a watch lingered until the next sweep (5 s by default).  Here the service's
sweep is an hour apart, so only the check at opening can end the watch: a stream of a finished
game sends its history and ends, or the request hangs past the client's timeout and fails.
An abort logs no entry, so only the sweep notices it: a watch open during an abort ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.games.store import GameStore
from services.streaming.hub import EventHub, HubLimits
from tests.support.client import auth, create_game, play_first_move, sse_events_async
from tests.support.stack import Gateway, Services

GAME = "darjeeling"
HOUR = 3600.0
WAIT_SECONDS = 60.0


@pytest.fixture(scope="module")
def gateway_url(redis_url: str) -> Iterator[str]:
    """A rules service whose hub sweeps once an hour, behind a gateway."""
    services = Services(redis_url)
    service = services.start(GAME, live_limits=HubLimits(sweep_seconds=HOUR))
    gateway = Gateway({GAME: service.address}, create_limit="1000/minute")
    try:
        yield gateway.url
    finally:
        gateway.stop()
        services.stop(service)
        services.close()


def _aborted(client: httpx.Client) -> str:
    """A two-seat game, one move played, then aborted (over before anyone watched)."""
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=5)
    game_id: str = created["game_id"]
    assert play_first_move(client, game_id, {s["seat"]: s["token"] for s in created["seats"]}).status_code == 200
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(created["host_token"])).status_code == 200
    return game_id


async def _stream(url: str, game_id: str) -> list[dict[str, str]]:
    """Every message of the game's stream from its start, until it ends (at most WAIT_SECONDS: pings
    keep a lingering stream's reads from ever timing out by themselves)."""
    async with httpx.AsyncClient(base_url=url, timeout=WAIT_SECONDS) as client, asyncio.timeout(WAIT_SECONDS):
        path, headers = f"/v1/games/{game_id}/events", {"Accept": "text/event-stream"}
        async with client.stream("GET", path, headers=headers) as stream:
            assert stream.status_code == 200, await stream.aread()
            return [message async for message in sse_events_async(stream)]


def test_a_watch_of_a_game_over_before_anyone_watched_ends_without_waiting_for_the_sweep(gateway_url: str) -> None:
    with httpx.Client(base_url=gateway_url, timeout=WAIT_SECONDS) as client:
        game_id = _aborted(client)
        logged = [f"{e['version']}:{e['index']}" for e in client.get(f"/v1/games/{game_id}/events").json()]
    for _ in range(3):  # each a fresh feed: the last watch's leaving stopped the one before
        # From the start: the history is sent, then the stream ends (or lingers past the deadline).
        messages = asyncio.run(_stream(gateway_url, game_id))
        assert [m["id"] for m in messages if m["event"] == "game_event"] == logged
        assert messages[-1]["event"] == "end"


def test_the_sweep_ends_a_watch_of_a_game_aborted_while_watched(redis_url: str, gateway_url: str) -> None:
    with httpx.Client(base_url=gateway_url, timeout=WAIT_SECONDS) as client:
        created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=6)
        game_id = created["game_id"]

        async def watch() -> list[Any]:
            store = GameStore.from_url(redis_url)
            hub = EventHub.for_store(store, GAME, HubLimits(sweep_seconds=0.2))
            try:
                async with asyncio.timeout(WAIT_SECONDS), hub.subscribe(game_id) as mailbox:
                    while hub._checks:  # the check at opening is done (the game was live): only the sweep is left
                        await asyncio.sleep(0.05)
                    url, headers = f"/v1/games/{game_id}/abort", auth(created["host_token"])
                    assert (await asyncio.to_thread(client.post, url, headers=headers)).status_code == 200
                    entries = [entry async for entry in mailbox]  # ends only when the feed is stopped
                assert hub.feeds == {}
                assert hub.mux.followed() == 0
                return entries
            finally:
                await hub.close()
                await store.close()

        assert asyncio.run(watch()) == []  # an abort logs no entry
