"""API edges of games through the real stack (issue #36, item 7): what a replay leaves out while a
game is active, and the open seats of a game aborted while it waited."""

from __future__ import annotations

import httpx

from tests.support.client import auth, two_humans

GAME = "darjeeling"


def test_an_active_games_replay_leaves_the_seed_and_secret_out(client: httpx.Client) -> None:
    game_id, tokens = two_humans(client, GAME, seed=5)
    active = client.get(f"/v1/games/{game_id}/replay")  # the session's stack is open: an operator may look
    assert active.status_code == 200, active.text
    body = active.json()
    assert body["status"] == "active" and "seed" not in body and "server_secret" not in body, body
    assert body["seed_commitment"]  # the commitment is public from the start
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0])).status_code == 200
    over = client.get(f"/v1/games/{game_id}/replay").json()
    assert over["status"] == "finished" and over["seed"] == "5" and len(over["server_secret"]) == 64, over


def test_an_aborted_games_open_seat_keeps_its_open_flag(client: httpx.Client) -> None:
    created = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "Asha"}, {"open": True}]})
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    aborted = client.post(f"/v1/games/{game_id}/abort", json={"reason": "nobody came"})
    assert aborted.status_code == 200, aborted.text
    game = client.get(f"/v1/games/{game_id}").json()
    assert game["status"] == "aborted" and [s["open"] for s in game["seats"]] == [False, True]
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    assert replay["status"] == "aborted"
    assert [(p["name"], p["open"]) for p in replay["players"]] == [("Asha", False), ("", True)]
    assert "seed_hex" in replay  # an aborted game is over: its seed is revealed, as a finished one's
