"""Edges of the tournament API through the real stack (issue #36, item 7): the shape of a bye,
rounds and tables counted alike, a withdrawal after the end, one code for a wrong operator key."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx

from tests.support.client import assert_problem, auth
from tests.support.seeds import seed_hex

ENTRANT_TOKEN = re.compile(r"ent_[A-Za-z0-9_-]{43}")  # services.tournament.seeds.entrant_token's shape

WAIT_SECONDS = 60.0


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _tables(client: httpx.Client, tournament_id: str, tokens: dict[str, str]) -> dict[str, dict[str, Any]]:
    """Every entrant's ``…/table`` once round 1 is seated and its games exist."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        rounds = client.get(f"/v1/tournaments/{tournament_id}/rounds").json()["rounds"]
        if rounds and all(table["game_id"] for table in rounds[0]["tables"]):
            break
        assert time.monotonic() < deadline, rounds
        time.sleep(0.1)
    path = f"/v1/tournaments/{tournament_id}/table"
    return {entrant: client.get(path, headers=auth(token)).json() for entrant, token in tokens.items()}


def test_a_bye_has_neither_seat_nor_game_and_numbers_count_from_one(client: httpx.Client) -> None:
    entrants = [{"external_id": f"edge-{i}", "name": f"Player {i}"} for i in range(3)]  # humans: nobody moves
    body = {"game_type": "darjeeling", "format": "swiss", "rounds": 2, "table_size": 2, "entrants": entrants}
    created = _create(client, body)
    tournament_id = created["tournament_id"]
    tokens = {e["external_id"]: e["token"] for e in created["entrants"]}
    tables = _tables(client, tournament_id, tokens)
    byes = [table for table in tables.values() if table["bye"]]
    seated = [table for table in tables.values() if not table["bye"]]
    assert len(byes) == 1 and len(seated) == 2
    (bye,) = byes
    assert "seat" not in bye and "game_id" not in bye and bye["round"] == 1, bye
    assert sorted(table["seat"] for table in seated) == [0, 1]  # seats count from 0, as in every game
    assert len({table["game_id"] for table in seated}) == 1
    (first,) = client.get(f"/v1/tournaments/{tournament_id}/rounds").json()["rounds"]
    assert first["number"] == 1 and [table["number"] for table in first["tables"]] == [1]
    assert first["byes"] == [bye["external_id"]]
    assert client.get(f"/v1/tournaments/{tournament_id}").json()["round"] == 1
    for token in tokens.values():  # end it: withdraw everyone (their seats resign)
        client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(token))


def test_a_withdrawal_after_the_end_is_a_tournament_conflict(client: httpx.Client) -> None:
    entrants = [{"external_id": f"bot:end-{i}", "name": f"Bot {i}", "bot": "heuristic"} for i in range(2)]
    body = {
        "game_type": "darjeeling",
        "format": "round_robin",
        "table_size": 2,
        "entrants": entrants,
        "seed_hex": seed_hex(3),
    }
    created = _create(client, body)
    tournament_id = created["tournament_id"]
    deadline = time.monotonic() + WAIT_SECONDS
    while client.get(f"/v1/tournaments/{tournament_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    path = f"/v1/tournaments/{tournament_id}/withdraw"
    for refused in (client.post(path, json={"external_id": "bot:end-0"}),
                    client.post(path, json={"external_id": "bot:end-1"})):  # fmt: skip
        problem = assert_problem(refused, 409, "tournament_finished")
        assert problem["title"] == "Tournament over", problem
    standings = client.get(f"/v1/tournaments/{tournament_id}/standings").json()["standings"]
    assert not any(line["withdrawn"] for line in standings)  # nothing changed


def test_no_tournament_answer_carries_a_bot_entrants_token(client: httpx.Client) -> None:
    entrants = [{"external_id": "edge-human", "name": "Asha"},
                {"external_id": "bot:edge-bot", "name": "Bot", "bot": "heuristic"}]  # fmt: skip
    body = {"game_type": "darjeeling", "format": "round_robin", "table_size": 2, "entrants": entrants}
    created = _create(client, body)
    tokens = {e["external_id"]: e.get("token", "") for e in created["entrants"]}
    assert tokens["edge-human"].startswith("ent_") and tokens["bot:edge-bot"] == "", created
    tournament_id = created["tournament_id"]
    reads = [f"/v1/tournaments/{tournament_id}", f"/v1/tournaments/{tournament_id}/rounds",
             f"/v1/tournaments/{tournament_id}/standings"]  # fmt: skip
    assert not any(ENTRANT_TOKEN.search(client.get(path).text) for path in reads)
    withdrawn = client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(tokens["edge-human"]))
    assert withdrawn.status_code == 200, withdrawn.text
