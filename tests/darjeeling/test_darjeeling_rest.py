"""Random bots finish Darjeeling in every region at every player count through the real REST stack."""

from __future__ import annotations

import httpx
import pytest

from tests.support.client import auth, create_game, wait_over

GAME = "darjeeling"


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("region", ["india", "china", "sri_lanka"])
def test_random_bots_finish_over_rest(client: httpx.Client, region: str, players: int) -> None:
    bots = [{"name": f"bot{i}", "bot": "random"} for i in range(players)]
    created = create_game(client, GAME, bots, seed=500 + players, options={"region": region})
    final = wait_over(client, created["game_id"])
    assert final["status"] == "finished"
    assert final["state"]["region"] == region and final["state"]["phase"] == "GAME_OVER"
    result = final["result"]
    assert len(result["scores"]) == players and result["winners"]
    assert max(p["score"] for p in final["state"]["player_states"]) >= 100


@pytest.mark.slow
def test_screens_hide_tiles_over_rest(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=3, options={"region": "india"})
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    for _ in range(2):
        seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        body = {"move": legal["moves"][0], "expected_version": legal["version"]}
        answer = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
    own = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["state"]["player_states"]
    spectator = client.get(f"/v1/games/{game_id}").json()["state"]["player_states"]
    assert own[0]["tile_count"] == 1 and len(own[0]["tiles"]) == 1
    assert spectator[0]["tile_count"] == 1 and spectator[0]["tiles"] == []
    assert own[1]["tiles"] == []
    events = client.get(f"/v1/games/{game_id}/events?after=0", headers=auth(tokens[1])).json()
    taken = [e["event"]["tile_taken"] for e in events if "tile_taken" in e["event"]]
    assert {t["seat"] for t in taken} == {0, 1}
    assert all(("tile" in t) == (t["seat"] == 1) for t in taken), "only seat 1's own tiles are named to seat 1"
    version = client.get(f"/v1/games/{game_id}").json()["version"]
    body = {"move": {"lay_out": {}}, "expected_version": version}
    bad = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[0]))
    assert bad.status_code in (403, 422)
