"""What the web client needs from the gateway, over plain HTTP: its files under /play/, past
versions of a game for the replay viewer, the India Rails board, and ``?lang=`` for EventSource."""

from __future__ import annotations

import random
from typing import Any

import grpc
import httpx
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc, tables_pb2, tables_pb2_grpc
from tests.support import webgames
from tests.support.client import play_humans_to_end
from tests.support.stack import Services

# Seat 0 is a person (bots have no token, so only a person's seat can look at its own past view).
SEATS = [{"name": "A"}, {"name": "B", "bot": "random"}]


def _finished(url: str, game_type: str, seed: int, **extra: Any) -> dict[str, Any]:
    created = webgames.create(url, game_type, SEATS, seed=seed, **extra)
    token = created["seats"][0]["token"]
    with httpx.Client(base_url=url, timeout=60) as client:
        play_humans_to_end(client, created["game_id"], {0: token}, random.Random(seed).choice)
    found = webgames.game(url, created["game_id"])
    assert found["status"] == "finished"
    return {**found, "tokens": [token]}


def test_the_client_is_served_under_play_with_revalidation_and_not_in_the_openapi(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    page = httpx.get(f"{url}/play/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache" and page.headers["etag"]
    assert 'src="js/app.js"' in page.text
    again = httpx.get(f"{url}/play/", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304
    module = httpx.get(f"{url}/play/tables/darjeeling.js")
    assert module.status_code == 200 and "javascript" in module.headers["content-type"]
    assert httpx.get(f"{url}/play").status_code == 308
    missing = httpx.get(f"{url}/play/tables/nowhere.js")
    assert missing.status_code == 404 and missing.headers["content-type"] == "application/problem+json"
    paths = httpx.get(f"{url}/openapi.json").json()["paths"]
    assert not [path for path in paths if path.startswith("/play")]
    assert "/v1/games/{game_id}/versions/{version}" in paths and "/v1/game-types/{game_type}/board" in paths


def test_a_finished_game_at_every_version_rebuilds_its_final_state(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    game = _finished(url, "darjeeling", seed=61)
    game_id, last = game["game_id"], game["version"]
    final = httpx.get(f"{url}/v1/games/{game_id}/versions/{last}").json()
    assert final["state"] == game["state"] and final["last_version"] == last and not final.get("to_act")
    start = httpx.get(f"{url}/v1/games/{game_id}/versions/0").json()
    assert start["version"] == 0 and start["to_act"] and start["state"]["phase"] == "START_POSITIONS"
    # A seat sees its own view of the past (its screen), a spectator sees counts only.
    headers = {"Authorization": f"Bearer {game['tokens'][0]}"}
    middle = last // 2
    own = httpx.get(f"{url}/v1/games/{game_id}/versions/{middle}", headers=headers).json()
    public = httpx.get(f"{url}/v1/games/{game_id}/versions/{middle}").json()
    assert own["viewer_seat"] == 0 and "viewer_seat" not in public
    mine, theirs = own["state"]["player_states"][0], public["state"]["player_states"][0]
    assert len(mine.get("tiles", [])) == mine.get("tile_count", 0) and not theirs.get("tiles")
    events = webgames.event_lines(url, game_id)
    step = httpx.get(f"{url}/v1/games/{game_id}/versions/{middle}").json()["events"]
    assert [(f"{e['version']}:{e.get('index', 0)}", e["text"]) for e in step] == [
        line for line in events if line[0].startswith(f"{middle}:")
    ]
    too_far = httpx.get(f"{url}/v1/games/{game_id}/versions/{last + 1}")
    assert too_far.status_code == 404 and too_far.json()["code"] == "version_not_found"
    assert httpx.get(f"{url}/v1/games/{game_id}/versions/x").json()["code"] == "bad_version"


def test_the_india_rails_board_is_one_cacheable_document(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    board = httpx.get(f"{url}/v1/game-types/india_rails/board")
    assert board.status_code == 200 and board.headers["cache-control"].startswith("public")
    data = board.json()
    assert len(data["mileposts"]) > 2000 and {"x", "y", "terrain"} <= set(data["mileposts"][0])
    assert {c["name"] for c in data["cities"]} >= {"Delhi", "Bombay", "Calcutta", "Madras"}
    cached = httpx.get(f"{url}/v1/game-types/india_rails/board", headers={"If-None-Match": board.headers["etag"]})
    assert cached.status_code == 304
    none = httpx.get(f"{url}/v1/game-types/darjeeling/board")
    assert none.status_code == 404 and none.json()["code"] == "no_board"
    assert httpx.get(f"{url}/v1/game-types/chess/board").json()["code"] == "unknown_game_type"


def test_lang_picks_the_words_of_an_event_stream_that_cannot_send_headers(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    game = _finished(url, "darjeeling", seed=62)
    spanish = httpx.get(f"{url}/v1/games/{game['game_id']}/events?lang=es", headers={"Accept-Language": "en"}).json()
    english = httpx.get(f"{url}/v1/games/{game['game_id']}/events", headers={"Accept-Language": "en"}).json()
    assert len(spanish) == len(english) and spanish[0]["text"] != english[0]["text"]


def test_past_positions_of_an_active_game_need_an_operator_key(redis_url: str) -> None:
    """A seat may not read back its opponents' old positions while the game goes on; an operator may."""
    keyed = Services(redis_url, api_keys=frozenset({"operator-key"}))
    service = keyed.start("darjeeling")
    operator = (("authorization", "Bearer operator-key"),)
    try:
        with grpc.insecure_channel(service.address) as channel:
            rules = rules_pb2_grpc.RulesServiceStub(channel)
            tables = tables_pb2_grpc.TableServiceStub(channel)
            players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
            created = rules.CreateGame(rules_pb2.CreateGameRequest(players=players), metadata=operator)
            ask = tables_pb2.GetGameAtVersionRequest(game_id=created.game_id, version=0)
            seat = (("authorization", f"Bearer {created.seats[0].token}"),)
            with pytest.raises(grpc.RpcError) as as_seat:
                tables.GetGameAtVersion(ask, metadata=seat)
            assert as_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.RpcError) as anonymous:
                tables.GetGameAtVersion(ask)
            assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
            at_start = tables.GetGameAtVersion(ask, metadata=operator)
            assert at_start.version == 0 and not at_start.HasField("viewer_seat")  # an operator sees the spectator view
    finally:
        keyed.stop(service)
        keyed.close()
