"""Every way a game ends, on every game type, ends it the same way (services.rules.finisher).

The ways: the last move, a resignation, a clock's timeout (the conductor process), an abort (REST),
the conductor's idle abort, and a tournament withdrawal (the director process resigns the seat).
After each, the game is filed where its status says and nowhere else (status field, listing sets,
active set, retention index), exactly one ``game.finished`` or ``game.aborted`` is in the outbox,
and ``GET /v1/games`` lists it under its status and not as active.

The last move and the idle abort run the real code in this process (GamePlay, the conductor's
``attend``) against the stack's Redis: the former so a random game is brought to one move before
its end in one commit instead of hundreds of requests, the latter because the idle limit is
read from this process's environment.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
import orjson
import pytest
from redis import Redis

from services.common.attention import AttentionQueue, Claim, shard_of
from services.common.registry import available_game_types, engine_for
from services.conductor.work import attend
from services.fairness import chain
from services.filing.store import STATUSES, active_key, ended_key_for, index_key
from services.games.records import Commit
from services.games.store import GameStore
from services.outbox import outbox_keys
from services.rules.gameplay import GamePlay
from tests.support.client import auth, two_humans, wait_over
from tests.support.seeds import seed_hex

GAMES = available_game_types()
ENDS = {  # way of ending -> the status it leaves
    "last_move": "finished",
    "resignation": "finished",
    "timeout": "aborted",
    "abort": "aborted",
    "idle_abort": "aborted",
    "tournament_withdrawal": "finished",
}
WAIT_SECONDS = 60.0


def _filing(redis: Redis, game_type: str, game_id: str) -> dict[str, Any]:
    shard = shard_of(game_id)
    return {
        "status": (redis.hget(f"game:{{{game_id}}}:meta", "status") or b"").decode(),
        "listed_under": [s for s in STATUSES if redis.zscore(index_key(game_type, "public", s, shard), game_id)],
        "listed_private": [s for s in STATUSES if redis.zscore(index_key(game_type, "private", s, shard), game_id)],
        "in_active_set": bool(redis.sismember(active_key(game_type, shard), game_id)),
        "in_retention_index": redis.zscore(ended_key_for(game_id), game_id) is not None,
    }


def _end_events(redis: Redis, game_id: str) -> list[str]:
    found = []
    for key in outbox_keys():
        for _, fields in redis.xrange(key):
            kind = fields[b"type"].decode()
            if kind in ("game.finished", "game.aborted") and orjson.loads(fields[b"data"])["game_id"] == game_id:
                found.append(kind)
    return found


def _listed(client: httpx.Client, game_type: str, status: str) -> set[str]:
    page = client.get("/v1/games", params={"game_type": game_type, "status": status, "page_size": 100})
    assert page.status_code == 200, page.text
    return {game["game_id"] for game in page.json()["games"]}


async def _last_move(redis_url: str, game_type: str, game_id: str) -> None:
    """Random moves up to one before the end in one commit (as the conductor commits a bots' batch),
    then the last one as a seat's move."""
    store = GameStore.from_url(redis_url)
    try:
        play = GamePlay(engine_for(game_type), store)
        meta, snapshot = await store.load(game_id)
        rng, trial, moves = random.Random(game_id), play.match(snapshot), []
        while not play.engine.is_over(trial.state):
            seat = trial.to_act()[0]
            moves.append((seat, rng.choice(trial.legal_moves(seat))))
            trial.play(*moves[-1])
        match, commits = play.match(snapshot), []
        for seat, move in moves[:-1]:
            events = match.play(seat, move)
            commits.append(Commit(seat=seat, bot="", move=move, events=events,
                                  state_digest=chain.state_digest(match), to_act=match.to_act()))  # fmt: skip
        if commits:
            await play.commit(meta, match, commits, None)
        meta, snapshot = await store.load(game_id)
        seat, move = moves[-1]
        answer = await play.play(meta, snapshot, seat, [move], meta.version, "")
        assert answer.status == "finished"
    finally:
        await store.close()


async def _idle_abort(redis_url: str, game_type: str, game_id: str) -> None:
    """The conductor's work on a claim of a game idle for longer than the limit."""
    store = GameStore.from_url(redis_url)
    try:
        play = GamePlay(engine_for(game_type), store)
        claim = Claim(game_id, int(time.time() * 1000) + 30_000, reclaimed=False)
        assert await attend(play, claim, AttentionQueue(store.redis, "finisher-test")) == 1
    finally:
        await store.close()


def _tournament_withdrawal(client: httpx.Client, game_type: str) -> str:
    entrants = [{"external_id": f"fin-{game_type}-{seat}", "name": name} for seat, name in enumerate(("Asha", "Bilal"))]
    body = {"game_type": game_type, "format": "knockout", "table_size": 2, "entrants": entrants,
            "seed_hex": seed_hex(5)}
    created = client.post("/v1/tournaments", json=body)
    assert created.status_code == 201, created.text
    tournament_id, token = created.json()["tournament_id"], created.json()["entrants"][0]["token"]
    deadline = time.monotonic() + WAIT_SECONDS
    table: dict[str, Any] = {}
    while not table.get("game_id"):
        assert time.monotonic() < deadline, "the director seated no table"
        table = client.get(f"/v1/tournaments/{tournament_id}/table", headers=auth(token)).json()
    withdrawn = client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(token))
    assert withdrawn.status_code == 200, withdrawn.text
    game_id: str = table["game_id"]
    return game_id


def _end(client: httpx.Client, redis_url: str, monkeypatch: pytest.MonkeyPatch, game_type: str, way: str) -> str:
    """A new two-seat game of ``game_type`` ended ``way``; its id once it has ended."""
    if way == "tournament_withdrawal":
        game_id = _tournament_withdrawal(client, game_type)
    elif way == "timeout":
        players = [{"name": "Asha"}, {"name": "Bilal"}]
        options = {"clock": {"per_turn_s": 1}, "on_timeout": "abort"}
        created = client.post("/v1/games", json={"game_type": game_type, "players": players, **options})
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
    else:
        game_id, tokens = two_humans(client, game_type)
        if way == "last_move":
            asyncio.run(_last_move(redis_url, game_type, game_id))
        elif way == "resignation":
            assert client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0])).status_code == 200
        elif way == "abort":
            assert client.post(f"/v1/games/{game_id}/abort", json={"reason": "test"}).status_code == 200
        elif way == "idle_abort":
            monkeypatch.setenv("CHAIWALA_IDLE_ABORT_SECONDS", "0.001")
            time.sleep(0.01)  # so the game has been idle for longer than that limit (1 ms)
            asyncio.run(_idle_abort(redis_url, game_type, game_id))
    wait_over(client, game_id, seconds=WAIT_SECONDS)
    return game_id


@pytest.mark.parametrize("way", list(ENDS))
@pytest.mark.parametrize("game_type", GAMES)
def test_every_way_of_ending_files_the_end_once(
    client: httpx.Client, redis_url: str, monkeypatch: pytest.MonkeyPatch, game_type: str, way: str
) -> None:
    game_id = _end(client, redis_url, monkeypatch, game_type, way)
    status = ENDS[way]
    game = client.get(f"/v1/games/{game_id}").json()
    assert game["status"] == status
    redis = Redis.from_url(redis_url)
    try:
        assert _filing(redis, game_type, game_id) == {
            "status": status,
            "listed_under": [status],
            "listed_private": [],
            "in_active_set": False,
            "in_retention_index": True,
        }
        assert _end_events(redis, game_id) == [f"game.{status}"]
    finally:
        redis.close()
    assert game_id in _listed(client, game_type, status)
    assert game_id not in _listed(client, game_type, "active")
