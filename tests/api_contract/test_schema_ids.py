"""Ids, game types and page tokens in paths and queries: the served schema and the server agree
(issue #41, item 4). What the schema's pattern refuses, the server refuses (404 or 400); what it
allows and names nothing is a 404, never a 5xx; a token the listing handed out is accepted."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.support.client import assert_problem, auth, guest


def _parameter(spec: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == name)
    return found["schema"]


def test_game_ids_refused_by_the_pattern_are_refused_by_the_server(spec: dict[str, Any], client: httpx.Client) -> None:
    pattern = re.compile(_parameter(spec, "/v1/games/{game_id}", "game_id")["pattern"])
    malformed = ["darjeeling-XYZ", "darjeeling-" + "0" * 23, "nogame-" + "0" * 24, "darjeeling-" + "A" * 24, "-" * 25]
    for game_id in malformed:
        assert not pattern.search(game_id), game_id
        assert_problem(client.get(f"/v1/games/{game_id}"), 404)
        assert_problem(client.get(f"/v1/games/{game_id}/legal-moves"), 404)
    well_formed = "darjeeling-" + "0" * 24
    assert pattern.search(well_formed)
    assert_problem(client.get(f"/v1/games/{well_formed}"), 404, "game_not_found")
    created = client.post("/v1/games", json={"game_type": "darjeeling", "players": [{"name": "A"}, {"name": "B"}]})
    assert pattern.search(created.json()["game_id"])


def test_a_game_type_in_a_path_is_one_of_the_games_served(spec: dict[str, Any], client: httpx.Client) -> None:
    for path in ("/v1/game-types/{game_type}/rules", "/v1/game-types/{game_type}/board"):
        served = _parameter(spec, path, "game_type")["enum"]
        assert "darjeeling" in served and "chess" not in served
        assert_problem(client.get(path.replace("{game_type}", "chess")), 404, "unknown_game_type")
    assert client.get("/v1/game-types/darjeeling/rules").status_code == 200


def test_my_games_page_tokens_are_base64url_as_the_schema_says(spec: dict[str, Any], client: httpx.Client) -> None:
    schema = _parameter(spec, "/v1/me/games", "page_token")
    pattern = re.compile(schema["pattern"])
    _, token = guest(client, "Pager")
    for _ in range(2):
        created = client.post("/v1/games", json={"game_type": "darjeeling", "players": [{"me": True}, {"open": True}]},
                              headers=auth(token))  # fmt: skip
        assert created.status_code == 201, created.text
    first = client.get("/v1/me/games", params={"page_size": 1}, headers=auth(token)).json()
    handed_out = first["next_page_token"]
    assert pattern.fullmatch(handed_out) and len(handed_out) <= schema["maxLength"]
    assert client.get("/v1/me/games", params={"page_token": handed_out}, headers=auth(token)).status_code == 200
    # Outside the alphabet (b64decode alone would skip the dots and read "me:1"), too long, or not handed out.
    for refused in (handed_out + "..", "me:1", "A" * (schema["maxLength"] + 1), "bm90LW1l"):
        assert_problem(client.get("/v1/me/games", params={"page_token": refused}, headers=auth(token)), 400,
                       "bad_page_token")  # fmt: skip
