"""Alubari through the real REST stack: bots finish at every player count, a solo human plays with
legal moves only, nothing hidden reaches the client, and illegal moves are refused."""

from __future__ import annotations

import random

import httpx
import pytest

from tests.support.client import assert_problem, auth, create_game, play_humans_to_end, wait_over

GAME = "alubari"


@pytest.mark.slow
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_bots_finish_over_rest(client: httpx.Client, players: int) -> None:
    bots = [{"name": f"bot{i}", "bot": "random"} for i in range(players)]
    created = create_game(client, GAME, bots, seed=700 + players)
    final = wait_over(client, created["game_id"])
    assert final["status"] == "finished" and final["state"]["stage"] == "OVER"
    assert len(final["result"]["scores"]) == players and final["result"]["winners"]
    assert [row["total"] for row in final["state"]["final_scores"]] == final["result"]["scores"]


@pytest.mark.slow
def test_solo_human_plays_with_legal_moves_and_sees_no_hidden_information(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Tenzing"}], seed=11, options={"cover_alubari": True})
    game_id = created["game_id"]
    token = created["seats"][0]["token"]
    state = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()["state"]
    assert "deck" not in state
    # The bag's contents are public by kind (seeds/alubari/README.md, item 19): the setup's draw is on the Stockyard.
    assert sum(state["bag"].values()) == state["bag_count"] and state["bag"]["event"] == 4
    assert state["deck_count"] == 33 and state["deck_top_weather"] in ("SUN", "RAIN", "FOG")
    assert state["estates"][0]["card_id"] != 0  # Alubari covered by a card
    body = {"move": {"take_cube": {"cube": "CHAI"}}, "expected_version": 0}
    bad = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token))
    assert_problem(bad, 422)
    rng = random.Random(5)
    play_humans_to_end(client, game_id, {0: token}, rng.choice)
    final = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    assert final["status"] == "finished" and final["result"]["winners"] == [0]
    events = client.get(f"/v1/games/{game_id}/events?after=0").json()
    payloads = [body for event in events for kind, body in event["event"].items() if kind != "@type"]
    assert payloads and all(isinstance(body, dict) for body in payloads)
    assert all(set(body) & {"deck", "bag", "order"} == set() for body in payloads)
