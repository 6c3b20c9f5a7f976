"""A search bot seat on the real stack: listed, accepted by the lobby, played by the conductor's
search workers to the end, each move entering the log exactly once, while another game's moves
are answered and its heuristic bot keeps replying."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import httpx
import redis

from services.bots.levels import LEVELS
from services.games.records import bot_memory_key, decode_bot_memory
from tests.support.client import auth, create_game, play_humans_to_end, wait_for_humans, wait_over

GAME = "darjeeling"


def _play(base_url: str, game: str, bot: str, seed: int, log: dict[str, Any]) -> None:
    """One human seat (random legal moves over REST) against ``bot``; notes when it ran."""
    with httpx.Client(base_url=base_url, timeout=120) as client:
        created = create_game(client, game, [{"name": "human"}, {"name": "bot", "bot": bot}], seed=seed)
        log["game_id"] = created["game_id"]
        log["started"] = time.monotonic()
        tokens = {s["seat"]: s["token"] for s in created["seats"] if not s["bot"]}
        log["human_moves"] = play_humans_to_end(client, created["game_id"], tokens, random.Random(seed).choice)
        log["ended"] = time.monotonic()


def test_search_levels_are_listed(stack: dict[str, Any]) -> None:
    with httpx.Client(base_url=str(stack["url"]), timeout=30) as client:
        types = client.get("/v1/game-types").json()
    for game_type in types:
        assert set(LEVELS) <= set(game_type["bots"]), game_type["id"]


def test_a_search_bot_game_plays_to_the_end_while_another_game_is_answered(stack: dict[str, Any]) -> None:
    base_url = str(stack["url"])
    searched: dict[str, Any] = {}
    other: dict[str, Any] = {}
    worker = threading.Thread(target=_play, args=(base_url, GAME, "mcts-easy", 31, searched))
    worker.start()
    _play(base_url, GAME, "heuristic", 32, other)
    worker.join(timeout=600)
    assert not worker.is_alive() and "ended" in searched, "the search bot's game did not finish"
    # The two games overlapped: the other game's moves were answered while the search bot played.
    assert other["started"] < searched["ended"] and searched["started"] < other["ended"]
    with httpx.Client(base_url=base_url, timeout=30) as client:
        final = client.get(f"/v1/games/{searched['game_id']}").json()
        replay = client.get(f"/v1/games/{searched['game_id']}/replay").json()
    assert final["status"] == "finished" and final["result"]["winners"] is not None
    moves = replay["moves"]
    assert [m["version"] for m in moves] == list(range(1, final["version"] + 1)), "every move logged once, in order"
    bot_moves = [m for m in moves if m.get("bot")]
    assert bot_moves and {m["bot"] for m in bot_moves} == {"mcts-easy"}
    assert len(bot_moves) + searched["human_moves"] == len(moves)


def test_the_lobby_seats_a_search_bot(stack: dict[str, Any]) -> None:
    with httpx.Client(base_url=str(stack["url"]), timeout=30) as client:
        created = create_game(client, "tea_rum", [{"name": "human"}, {"name": "bot", "bot": "mcts"}], seed=3)
        game = client.get(f"/v1/games/{created['game_id']}", headers=auth(created["seats"][0]["token"])).json()
    assert [seat.get("bot", "") for seat in game["seats"]][1] == "mcts"


def _stored(redis_url: str, key: str) -> bytes | None:
    client = redis.Redis.from_url(redis_url)
    try:
        value: bytes | None = client.get(key)
        return value
    finally:
        client.close()


def test_a_search_bots_plan_is_kept_with_the_game_and_goes_when_it_ends(stack: dict[str, Any], redis_url: str) -> None:
    # India Rails' search bot commits to a plan (a demand of its hand): the conductor keeps that
    # memory in Redis beside the game, not in its process, so any conductor continues the plan.
    with httpx.Client(base_url=str(stack["url"]), timeout=120) as client:
        created = create_game(client, "india_rails", [{"name": "human"}, {"name": "bot", "bot": "mcts-easy"}], seed=4)
        game_id, token = created["game_id"], created["seats"][0]["token"]
        key = bot_memory_key(game_id)
        deadline = time.monotonic() + 300
        while _stored(redis_url, key) is None:
            assert time.monotonic() < deadline, "the search bot stored no memory"
            assert wait_for_humans(client, game_id, {0})["status"] == "active"
            legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
            if legal["moves"]:
                body = {"expected_version": legal["version"], "move": random.Random(4).choice(legal["moves"])}
                client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token))
        memory = decode_bot_memory(_stored(redis_url, key))
        # Only the bot's seat remembers, and what it remembers is a plan for its own hand.
        assert list(memory) == [1] and set(memory[1]) == {"context", "plan"}
        assert client.post(f"/v1/games/{game_id}/resign", headers=auth(token)).status_code == 200
        assert wait_over(client, game_id)["status"] == "finished"
    assert _stored(redis_url, key) is None
