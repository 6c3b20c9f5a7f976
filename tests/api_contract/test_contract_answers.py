"""The served contract against real answers: every answer of a short game's calls, through the real
stack, validated against the operation's documented schema in ``/openapi.json`` (so every ``required``
field must be there, every enum must hold, every move and event must have exactly one kind), and the
live stream's events against ``/asyncapi.json``.

What ``required`` means (gateway.openapi_exact): the fields the gateway always prints.  The games
here are real (rules services, conductor bots, Redis); the answers come over HTTP from uvicorn.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import jsonschema_rs
import pytest

from tests.support.client import auth, create_game, sse_events, turn, wait_over, within_rate_limit
from tests.support.seeds import seed_hex
from tests.support.stack import WEBHOOK_OPERATOR_KEY

GAME = "darjeeling"
MOVES = 8


class Contract:
    """Checks answers against the documented response of their operation, and remembers which."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.validators: dict[str, Any] = {}
        self.checked: set[tuple[str, str, str]] = set()
        self.required_seen = 0

    def validator(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key not in self.validators:
            root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
            root["components"] = {"schemas": self.spec["components"]["schemas"]}
            self.validators[key] = jsonschema_rs.validator_for(root)
        return self.validators[key]

    def check(self, response: httpx.Response, method: str, template: str) -> Any:
        """``response`` is documented for ``method template`` and its body fits the documented schema."""
        operation = self.spec["paths"][template][method]
        status = str(response.status_code)
        declared = operation["responses"].get(status)
        assert declared is not None, (method, template, status, response.text[:300])
        for header in declared.get("headers", {}):
            assert header in response.headers, (method, template, status, header)
        self.checked.add((method, template, status))
        if "content" not in declared or status == "304":
            return None
        media_type = response.headers["content-type"].split(";")[0]
        schema = declared["content"][media_type]["schema"]
        body = response.json()
        errors = [f"{e.instance_path}: {e.message}"[:300] for e in self.validator(schema).iter_errors(body)]
        assert not errors, (method, template, status, errors[:10])
        self.required_seen += _required_count(self.spec, schema, body)
        return body


def _required_count(spec: dict[str, Any], schema: dict[str, Any], body: Any) -> int:
    """How many required fields ``body`` carries at its top level (a figure for the report)."""
    ref = schema.get("$ref", "")
    target = spec["components"]["schemas"].get(ref.rsplit("/", 1)[-1], schema) if ref else schema
    if isinstance(body, list):
        return sum(_required_count(spec, schema.get("items", {}), item) for item in body)
    return len([name for name in target.get("required", []) if isinstance(body, dict) and name in body])


@pytest.fixture(scope="module")
def contract(client: httpx.Client) -> Contract:
    return Contract(client.get("/openapi.json").json())


def _play_a_few_moves(client: httpx.Client, contract: Contract, game_id: str, tokens: dict[int, str]) -> None:
    for step in range(MOVES):
        seat, _ = turn(client, game_id, tokens)
        headers = auth(tokens[seat])
        legal = contract.check(client.get(f"/v1/games/{game_id}/legal-moves", headers=headers), "get",
                               "/v1/games/{game_id}/legal-moves")  # fmt: skip
        body = {"move": legal["moves"][0], "expected_version": legal["version"]}
        include = "?include=legal_moves" if step % 2 else ""  # every other move: the legal moves ride along
        answer = within_rate_limit(client, "POST", f"/v1/games/{game_id}/moves{include}", json=body, headers=headers)
        moved = contract.check(answer, "post", "/v1/games/{game_id}/moves")
        read = client.get(f"/v1/games/{game_id}{include}", headers=headers)
        game = contract.check(read, "get", "/v1/games/{game_id}")
        assert ("legal_moves" in moved) == ("legal_moves" in game) == bool(include and moved["status"] == "active")
    contract.check(client.get(f"/v1/games/{game_id}"), "get", "/v1/games/{game_id}")  # a spectator
    contract.check(client.get(f"/v1/games/{game_id}/events?after=0"), "get", "/v1/games/{game_id}/events")


def test_a_played_game_answers_exactly_as_documented(client: httpx.Client, contract: Contract) -> None:
    contract.check(client.get("/v1/game-types"), "get", "/v1/game-types")
    created = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "Asha"}, {"name": "Bilal"}],
                                              "seed_hex": seed_hex(11)})  # fmt: skip
    body = contract.check(created, "post", "/v1/games")
    game_id, tokens = body["game_id"], {s["seat"]: s["token"] for s in body["seats"]}
    _play_a_few_moves(client, contract, game_id, tokens)
    ticket = client.post(f"/v1/games/{game_id}/stream-tickets", headers=auth(tokens[0]))
    contract.check(ticket, "post", "/v1/games/{game_id}/stream-tickets")
    aborted = client.post(f"/v1/games/{game_id}/abort", json={"reason": "contract"}, headers=auth(body["host_token"]))
    assert contract.check(aborted, "post", "/v1/games/{game_id}/abort")["status"] == "aborted"
    contract.check(client.get(f"/v1/games/{game_id}/replay"), "get", "/v1/games/{game_id}/replay")
    contract.check(client.get(f"/v1/games/{game_id}/versions/2"), "get", "/v1/games/{game_id}/versions/{version}")
    board = client.get("/v1/game-types/india_rails/board")
    contract.check(board, "get", "/v1/game-types/{game_type}/board")
    again = client.get("/v1/game-types/india_rails/board", headers={"If-None-Match": board.headers["ETag"]})
    contract.check(again, "get", "/v1/game-types/{game_type}/board")
    # Refusals are documented problems too.
    contract.check(client.get("/v1/games/darjeeling-00000000"), "get", "/v1/games/{game_id}")
    refused = client.post(f"/v1/games/{game_id}/moves", json={"moves": []}, headers=auth(tokens[0]))
    contract.check(refused, "post", "/v1/games/{game_id}/moves")
    assert {("post", "/v1/games", "201"), ("get", "/v1/games/{game_id}", "404")} <= contract.checked


def test_a_bot_game_to_its_end_answers_with_its_result(client: httpx.Client, contract: Contract) -> None:
    players = [{"name": "Chai", "bot": "random"}, {"name": "Dudh", "bot": "random"}]
    game_id = create_game(client, GAME, players, seed=5)["game_id"]
    assert wait_over(client, game_id)["status"] == "finished"
    game = contract.check(client.get(f"/v1/games/{game_id}"), "get", "/v1/games/{game_id}")
    assert set(game["result"]) == {"scores", "ranking", "winners"}
    replay = contract.check(client.get(f"/v1/games/{game_id}/replay"), "get", "/v1/games/{game_id}/replay")
    assert replay["moves"] and all(move["bot"] == "random" for move in replay["moves"] if not move["kind"])
    events = contract.check(client.get(f"/v1/games/{game_id}/events"), "get", "/v1/games/{game_id}/events")
    assert events[-1]["version"] == game["version"]


def test_the_lobby_answers_exactly_as_documented(client: httpx.Client, contract: Contract) -> None:
    players = [{"name": "Host"}, {"open": True}, {"open": True}, {"open": True}]  # full tables start by themselves
    created = contract.check(
        client.post("/v1/games", json={"game_type": GAME, "players": players}), "post", "/v1/games"
    )
    game_id, host = created["game_id"], auth(created["host_token"])
    joined = contract.check(client.post(f"/v1/games/{game_id}/join", json={"name": "Esha"}), "post",
                            "/v1/games/{game_id}/join")  # fmt: skip
    second = client.post(f"/v1/games/{game_id}/join", json={"name": "Farid"}).json()
    left = client.post(f"/v1/games/{game_id}/leave", headers=auth(second["token"]))
    assert contract.check(left, "post", "/v1/games/{game_id}/leave")["status"] == "waiting"
    again = client.post(f"/v1/games/{game_id}/join", json={"name": "Gita"}).json()
    kicked = client.post(f"/v1/games/{game_id}/kick", json={"seat": again["seat"]}, headers=host)
    assert contract.check(kicked, "post", "/v1/games/{game_id}/kick")["status"] == "waiting"
    started = client.post(f"/v1/games/{game_id}/start", headers=host)
    assert contract.check(started, "post", "/v1/games/{game_id}/start")["status"] == "active"
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(joined["token"]))
    assert contract.check(resigned, "post", "/v1/games/{game_id}/resign")["status"] in ("active", "finished")
    contract.check(client.get("/v1/games?status=active&page_size=5"), "get", "/v1/games")
    contract.check(client.get("/v1/tournaments"), "get", "/v1/tournaments")
    contract.check(client.get(f"/v1/ratings/{GAME}"), "get", "/v1/ratings/{game_type}")
    operator = auth(WEBHOOK_OPERATOR_KEY)
    contract.check(client.get("/v1/webhooks", headers=operator), "get", "/v1/webhooks")


def test_the_live_stream_sends_what_the_asyncapi_document_says(client: httpx.Client) -> None:
    asyncapi = client.get("/asyncapi.json").json()
    assert asyncapi["asyncapi"] == "3.0.0"
    channel = asyncapi["channels"]["gameEvents"]
    assert channel["address"] == "/v1/games/{game_id}/events" and asyncapi["channels"]["playerEvents"]
    components = asyncapi["components"]
    names = {components["messages"][ref["$ref"].rsplit("/", 1)[-1]]["name"] for ref in channel["messages"].values()}
    assert names == {"game_event", "end", "error"}

    def validator(name: str) -> Any:
        root = {"$schema": "http://json-schema.org/draft-07/schema#", "$ref": f"#/components/schemas/{name}"}
        return jsonschema_rs.validator_for({**root, "components": {"schemas": components["schemas"]}})

    event_schema, end_schema = validator("chaiwala.v1.GameEvent"), validator("chaiwala.v1.StreamEnd")
    id_pattern = components["messages"]["gameEvent"]["headers"]["properties"]["id"]["pattern"]
    game_id, host_token = _two_humans_after_moves(client)
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(host_token)).status_code == 200
    seen = []
    headers = {"Accept": "text/event-stream"}  # a spectator
    with client.stream("GET", f"/v1/games/{game_id}/events?lang=es", headers=headers) as stream:
        for message in sse_events(stream):
            seen.append(message["event"])
            data = json.loads(message["data"])
            if message["event"] == "game_event":
                assert re.fullmatch(id_pattern, message["id"]), message["id"]
                assert not list(event_schema.iter_errors(data)), data
            else:
                assert message["event"] == "end" and not list(end_schema.iter_errors(data))
                break
    assert seen.count("game_event") > MOVES and seen[-1] == "end"


def _two_humans_after_moves(client: httpx.Client) -> tuple[str, str]:
    """A game of two humans after a few moves: its id and host token."""
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=13)
    game_id, tokens = created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}
    for _ in range(MOVES):
        seat, legal = turn(client, game_id, tokens)
        body = {"move": legal["moves"][-1], "expected_version": legal["version"]}
        answer = within_rate_limit(client, "POST", f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
    return game_id, created["host_token"]


# Packages whose every schema property must carry a description (the games' other protos are still
# being commented: their properties take their message's or enum's comment where they have none).
DESCRIBED = ("chaiwala.v1.", "chaiwala.tournament.v1.", "chaiwala.rating.v1.", "chaiwala.darjeeling.v1.")


def test_every_operation_and_every_property_but_three_games_is_described(contract: Contract) -> None:
    spec = contract.spec
    undescribed = [
        f"{m} {p}" for p, item in spec["paths"].items() for m, op in item.items() if not op.get("description")
    ]
    assert not undescribed, undescribed
    missing = []
    for name, schema in spec["components"]["schemas"].items():
        if not name.startswith(DESCRIBED):
            continue
        for variant in schema.get("oneOf", [schema]) if "properties" not in schema else [schema]:
            missing += [
                f"{name}.{key}" for key, value in variant.get("properties", {}).items() if not value.get("description")
            ]
    assert not missing, missing
    darjeeling_move = spec["components"]["schemas"]["chaiwala.darjeeling.v1.ChooseStart"]
    assert darjeeling_move["properties"]["facing"]["description"].startswith("The direction")
