"""The served schema is as strict as the server (issue #41, item 4), checked both ways.

For each case below, the documented request schema and the real gateway agree: a body the
schema refuses is refused by the server (400), and the valid one is accepted.  And a 405 on any
documented path lists in ``Allow`` every method the document gives that path.
"""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema_rs

from tests.support.client import assert_problem

GAME_ID = "darjeeling-" + "0" * 24
OTHER_METHODS = ("PATCH", "PUT", "DELETE", "POST", "GET")


def _validator(spec: dict[str, Any], name: str) -> Any:
    root = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/components/schemas/{name}",
        "components": {"schemas": spec["components"]["schemas"]},
    }
    return jsonschema_rs.validator_for(root)


def _options_cases(spec: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """For each game: the packed options of every other game, and an option field no game has."""
    games = spec["components"]["schemas"]["chaiwala.v1.CreateGameBody"]["properties"]["game_type"]["enum"]
    cases = [(game, {"no_such_option": 1}) for game in games]
    for game in games:
        for other in games:
            if other != game:
                cases.append((game, {"@type": f"type.googleapis.com/chaiwala.{other}.v1.Options"}))
    return cases


def test_game_type_chooses_the_options_schema_and_the_server_agrees(spec: dict[str, Any], client: httpx.Client) -> None:
    validator = _validator(spec, "chaiwala.v1.CreateGameBody")
    players = [{"name": "Asha"}, {"name": "Bilal"}, {"name": "Chen"}]
    cases = _options_cases(spec)
    assert len(cases) >= 8
    for game, options in cases:
        body = {"game_type": game, "players": players, "options": options}
        assert not validator.is_valid(body), (game, options)
        answer = assert_problem(client.post("/v1/games", json=body), 400)
        assert answer["code"] in ("bad_options", "unknown_option", "invalid_request"), answer
    own = {"game_type": "darjeeling", "players": players, "options": {"region": "china"}}
    assert validator.is_valid(own)
    assert client.post("/v1/games", json=own).status_code == 201


def test_an_empty_last_event_id_is_refused_as_the_document_says(client: httpx.Client) -> None:
    created = client.post("/v1/games", json={"game_type": "darjeeling", "players": [{"name": "A"}, {"name": "B"}]})
    assert created.status_code == 201, created.text
    events = f"/v1/games/{created.json()['game_id']}/events"
    assert_problem(client.get(events, headers={"Last-Event-ID": ""}), 400, "bad_last_event_id")
    assert_problem(client.get(events, params={"after": ""}), 400, "bad_after")
    assert client.get(events, headers={"Last-Event-ID": "0:0"}).status_code == 200


def _concrete(path: str) -> str:
    return path.replace("{game_id}", GAME_ID).replace("{game_type}", "darjeeling").replace("{", "x").replace("}", "")


def test_a_405_lists_every_method_of_the_path(spec: dict[str, Any], client: httpx.Client) -> None:
    checked = 0
    for path, item in spec["paths"].items():
        documented = {method.upper() for method in item}
        missing = [method for method in OTHER_METHODS if method not in documented]
        if not path.startswith("/v1/") or not missing:
            continue
        response = client.request(missing[0], _concrete(path))
        assert_problem(response, 405, "method_not_allowed")
        allowed = {method.strip() for method in response.headers["allow"].split(",")}
        assert allowed == documented, (path, missing[0], response.headers["allow"])
        checked += 1
    assert checked >= 20
