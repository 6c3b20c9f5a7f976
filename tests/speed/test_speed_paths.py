"""What the speed work (issue #35, docs/lab/speed.md) relies on, checked through real components.

* The protobuf runtime is upb (the C backend), here and in a server started as ``make run`` does.
* ``POST /moves``'s one-move body is read straight from its JSON (``gateway.routes._one_move``):
  it plays exactly what the same move posted through the full parse plays, and every body the
  short cut does not take is refused or accepted as before.
* Idle waits: an outbox consumer's blocking read (``services.outbox.wait``) hands over an event
  appended while it waits and gives up when asked to stop; the conductor's idle look
  (``AttentionQueue.next_due``) finds the earliest game of any shard.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf.internal import api_implementation
from redis import asyncio as aioredis

from services.common.attention import AttentionQueue, new_game_id, queue_key, shard_of
from services.outbox import emit, ensure_group, read_outbox
from services.outbox.wait import wait_outbox
from tests.support.client import assert_problem, auth, create_game

ROOT = Path(__file__).resolve().parents[2]
GAME = "darjeeling"


def test_protobuf_runs_on_upb_here_and_in_a_server() -> None:
    assert api_implementation.Type() == "upb"
    # A server's interpreter: the environment make run gives it, the rules service's imports.
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'gen'}"}
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    code = "import services.rules.server; from google.protobuf.internal import api_implementation as a; print(a.Type())"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "upb"


def _game(client: httpx.Client) -> tuple[str, list[str]]:
    created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}], seed=35)
    return created["game_id"], [seat["token"] for seat in created["seats"]]


def _first_move(client: httpx.Client, game_id: str, tokens: list[str]) -> tuple[dict[str, Any], str, int]:
    game = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    token = tokens[game["to_act"][0]]
    listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
    return listing["moves"][0], token, listing["version"]


def _comparable(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: answer[key] for key in ("version", "status", "to_act", "state")} | {
        "events": [(event["version"], event.get("seat"), event["event"]) for event in answer["events"]]
    }


def test_one_move_body_plays_what_the_full_parse_plays(client: httpx.Client) -> None:
    answers = []
    for body_of in (
        lambda move, version: {"move": move, "expected_version": version},  # the short cut
        lambda move, version: {"moves": [move], "expected_version": str(version)},  # the full parse
    ):
        game_id, tokens = _game(client)
        move, token, version = _first_move(client, game_id, tokens)
        answer = client.post(f"/v1/games/{game_id}/moves", json=body_of(move, version), headers=auth(token))
        assert answer.status_code == 200, answer.text
        answers.append(_comparable(answer.json()))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    "extra",
    [
        {"expected_version": True},
        {"expected_version": -1},
        {"expected_version": 2**32},
        {"expected_version": None},
        {"moves": [{}]},
        {"unknown": 1},
    ],
)
def test_bodies_the_short_cut_leaves_are_refused_as_before(client: httpx.Client, extra: dict[str, Any]) -> None:
    game_id, tokens = _game(client)
    move, token, _version = _first_move(client, game_id, tokens)
    answer = client.post(f"/v1/games/{game_id}/moves", json={"move": move, **extra}, headers=auth(token))
    assert_problem(answer, 400, "invalid_request")
    after = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert after["version"] == _version  # nothing was applied


def test_a_malformed_move_is_refused_by_the_games_parser(client: httpx.Client) -> None:
    game_id, tokens = _game(client)
    _move, token, version = _first_move(client, game_id, tokens)
    answer = client.post(f"/v1/games/{game_id}/moves", json={"move": {"no_such_field": 1}, "expected_version": version},
                         headers=auth(token))  # fmt: skip
    assert_problem(answer, 400, "malformed_move")


def test_an_idle_outbox_consumer_wakes_for_an_event_and_stops_when_asked(redis_url: str) -> None:
    async def scenario() -> None:
        redis = aioredis.Redis.from_url(redis_url)
        group, consumer = f"speed-{uuid.uuid4().hex}", "c1"
        try:
            await ensure_group(redis, group, start="$")
            assert await read_outbox(redis, group, consumer) == []
            stop = asyncio.Event()
            waiting = asyncio.create_task(wait_outbox(redis, group, consumer, stop, poll_seconds=0.1, seconds=30))
            await asyncio.sleep(0.2)  # let it block (an event before that is found all the same)
            event_id = await emit(redis, "speed.test", {"n": 1}, new_game_id(GAME))
            got = await waiting
            assert got, "the idle consumer woke with events"
            # Other tests share this Redis and write to the outbox too (games created, moves): read
            # on until this test's event is among what the consumer got.
            for _ in range(20):
                if event_id in [event.id for event in got]:
                    break
                got += await wait_outbox(redis, group, consumer, stop, poll_seconds=0.1, seconds=30)
            mine = [event for event in got if event.id == event_id]
            assert len(mine) == 1 and mine[0].data == {"n": 1} and mine[0].entry_id
            stop.set()
            assert await wait_outbox(redis, group, consumer, stop, poll_seconds=0.1, seconds=30) == []
        finally:
            await redis.aclose()

    asyncio.run(scenario())


def test_the_conductors_idle_look_finds_the_earliest_game(redis_url: str) -> None:
    async def scenario() -> None:
        redis = aioredis.Redis.from_url(redis_url)
        games = [new_game_id(GAME) for _ in range(40)]  # spread over the shards
        try:
            queue = AttentionQueue(redis, "speed-test")
            before = await queue.next_due()
            earliest = 1_000 if before is None else min(before, 1_000) - 1
            for offset, game_id in enumerate(games):
                await redis.zadd(queue_key(shard_of(game_id)), {game_id: earliest + 10 + offset})
            await redis.zadd(queue_key(shard_of(games[17])), {games[17]: earliest})
            assert await queue.next_due() == earliest
        finally:
            for game_id in games:
                await redis.zrem(queue_key(shard_of(game_id)), game_id)
            await redis.aclose()

    asyncio.run(scenario())
