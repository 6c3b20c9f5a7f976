"""The REST contract end to end: real gateway (uvicorn), real gRPC services, real Redis.

Darjeeling is the game that exercises the platform here; the other games get the
same treatment in ``test_every_game_played.py``.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import httpx
import pytest

from tests.support.client import (
    assert_problem,
    auth,
    create_game,
    play_humans_to_end,
    sse_events,
    turn,
    two_humans,
)

GAME = "darjeeling"


def _two_humans(client: httpx.Client, seed: int = 7) -> tuple[str, dict[int, str]]:
    return two_humans(client, GAME, seed)


_turn = turn


def _pinned(legal: dict[str, Any], pick: int = 0) -> dict[str, Any]:
    """A move body pinned to the version its legal moves were listed at."""
    return {"move": legal["moves"][pick], "expected_version": legal["version"]}


def test_game_types_lists_the_game_with_its_options_and_bots(client: httpx.Client) -> None:
    types = {t["id"]: t for t in client.get("/v1/game-types").json()}
    darjeeling = types[GAME]
    assert (darjeeling["min_players"], darjeeling["max_players"]) == (2, 5)
    assert {"random", "heuristic"} <= set(darjeeling["bots"])
    assert "options" in darjeeling


def test_game_types_print_their_terms_in_one_order_in_every_process(client: httpx.Client) -> None:
    """Proto maps print in a per-process hash order; this public, cached answer must not depend on it."""
    for game_type in client.get("/v1/game-types").json():
        terms = game_type["terms"]
        assert list(terms) == sorted(terms), game_type["id"]
        for group, words in terms.items():
            assert list(words["words"]) == sorted(words["words"]), (game_type["id"], group)


def test_two_bots_two_humans_play_to_the_end_with_sse_replay_and_result(client: httpx.Client) -> None:
    created = create_game(
        client,
        GAME,
        [{"name": "Asha"}, {"name": "Rand", "bot": "random"}, {"name": "Bilal"}, {"name": "Heu", "bot": "heuristic"}],
        seed=11,
    )
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if not s["bot"]}
    assert set(tokens) == {0, 2}
    rng = random.Random(5)
    played = play_humans_to_end(client, game_id, tokens, rng.choice)
    assert played > 0

    game = client.get(f"/v1/games/{game_id}").json()
    assert game["status"] == "finished"
    result = game["result"]
    assert len(result["scores"]) == 4 and result["winners"]
    assert all(result["ranking"][w] == 1 for w in result["winners"])

    # The SSE stream replays every event in order and ends once the game is over.
    listed = client.get(f"/v1/games/{game_id}/events?after=0").json()
    with client.stream("GET", f"/v1/games/{game_id}/events", headers={"Accept": "text/event-stream"}) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        streamed = [m for m in sse_events(stream) if m.get("event") == "game_event"]
    ids = [tuple(int(p) for p in m["id"].split(":")) for m in streamed]
    assert ids == sorted(ids) and len(ids) == len(listed) and ids
    assert [(e["version"], e["index"]) for e in listed] == ids
    assert ids[-1][0] == game["version"]

    replay = client.get(f"/v1/games/{game_id}/replay").json()
    assert int(replay["seed"]) == 11 and replay["seed_source"] == "operator" and len(replay["players"]) == 4
    assert [m["version"] for m in replay["moves"]] == list(range(1, game["version"] + 1))
    assert replay["result"] == result
    assert {m["bot"] for m in replay["moves"]} == {"", "random", "heuristic"}


def test_sse_resumes_after_last_event_id(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client)
    for _ in range(3):
        seat, legal = _turn(client, game_id, tokens)
        client.post(f"/v1/games/{game_id}/moves", json=_pinned(legal), headers=auth(tokens[seat]))
    everything = client.get(f"/v1/games/{game_id}/events").json()
    assert len(everything) >= 3
    cut = everything[1]
    headers = {"Accept": "text/event-stream", "Last-Event-ID": f"{cut['version']}:{cut['index']}"}
    with client.stream("GET", f"/v1/games/{game_id}/events", headers=headers) as stream:
        resumed = []
        for message in sse_events(stream):
            resumed.append(message["id"])
            if len(resumed) == len(everything) - 2:
                break
    assert resumed == [f"{e['version']}:{e['index']}" for e in everything[2:]]


def test_a_finished_games_stream_resumed_after_its_last_event_is_204_every_time(client: httpx.Client) -> None:
    """Resuming a finished game from its last event leaves nothing to send: the answer is 204 (an
    EventSource stops reconnecting), every time (never a 502 from a trailers-only watch)."""
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Rand", "bot": "random"}], seed=3)
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"] if not s["bot"]}
    play_humans_to_end(client, game_id, tokens, random.Random(2).choice)
    last = client.get(f"/v1/games/{game_id}/events").json()[-1]
    headers = {"Accept": "text/event-stream", "Last-Event-ID": f"{last['version']}:{last['index']}"}
    for _ in range(20):
        with client.stream("GET", f"/v1/games/{game_id}/events", headers=headers) as stream:
            assert stream.status_code == 204, stream.read()
            assert stream.read() == b""


def test_racing_submissions_at_one_version_exactly_one_wins(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client)
    seat, legal = _turn(client, game_id, tokens)
    answers: list[int] = []

    def submit(move: dict[str, Any]) -> None:
        with httpx.Client(base_url=str(client.base_url), timeout=30) as own:
            response = own.post(
                f"/v1/games/{game_id}/moves",
                json={"move": move, "expected_version": legal["version"]},
                headers=auth(tokens[seat]),
            )
            answers.append(response.status_code)

    threads = [threading.Thread(target=submit, args=(legal["moves"][i % len(legal["moves"])],)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200, 409]
    assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1


def test_same_idempotency_key_applies_once_and_answers_the_same(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client)
    seat, legal = _turn(client, game_id, tokens)
    headers = {**auth(tokens[seat]), "Idempotency-Key": "retry-me-1"}
    first = client.post(f"/v1/games/{game_id}/moves", json={"move": legal["moves"][0]}, headers=headers)
    second = client.post(f"/v1/games/{game_id}/moves", json={"move": legal["moves"][0]}, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert client.get(f"/v1/games/{game_id}").json()["version"] == legal["version"] + 1


def test_restarting_the_rules_service_mid_game_loses_nothing(stack: dict[str, Any], services: Any) -> None:
    with httpx.Client(base_url=str(stack["url"]), timeout=30) as client:
        game_id, tokens = _two_humans(client, seed=3)
        for _ in range(4):
            seat, legal = _turn(client, game_id, tokens)
            client.post(f"/v1/games/{game_id}/moves", json=_pinned(legal, -1), headers=auth(tokens[seat]))
        before = {s: client.get(f"/v1/games/{game_id}", headers=auth(t)).json() for s, t in tokens.items()}
        old = stack["services"][GAME]
        services.stop(old, grace=1)
        stack["services"][GAME] = services.start(GAME, port=old.port)
        after = {s: client.get(f"/v1/games/{game_id}", headers=auth(t)).json() for s, t in tokens.items()}
        assert after == before
        seat, legal = _turn(client, game_id, tokens)
        moved = client.post(f"/v1/games/{game_id}/moves", json=_pinned(legal), headers=auth(tokens[seat]))
        assert moved.status_code == 200 and moved.json()["version"] == before[0]["version"] + 1


def _hidden_tiles(view: dict[str, Any], seat: int) -> list[Any]:
    return next(p for p in view["state"]["player_states"] if p["seat"] == seat)["tiles"]


def test_hidden_tiles_never_reach_other_seats_or_spectators(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client, seed=21)
    for _ in range(12):
        seat, legal = _turn(client, game_id, tokens)
        client.post(f"/v1/games/{game_id}/moves", json=_pinned(legal), headers=auth(tokens[seat]))
        own = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
        other = client.get(f"/v1/games/{game_id}", headers=auth(tokens[1])).json()
        spectator = client.get(f"/v1/games/{game_id}").json()
        if own["status"] != "active":
            break
        mine = _hidden_tiles(own, 0)
        count = next(p for p in own["state"]["player_states"] if p["seat"] == 0)["tile_count"]
        assert len(mine) == count
        assert _hidden_tiles(other, 0) == [] and _hidden_tiles(spectator, 0) == []
    for viewer in (auth(tokens[1]), {}):
        events = client.get(f"/v1/games/{game_id}/events", headers=viewer).json()
        taken_by_0 = [e["event"]["tile_taken"] for e in events if "tile_taken" in e["event"] and e["seat"] == 0]
        assert taken_by_0 and all("tile" not in t for t in taken_by_0)
    own_events = client.get(f"/v1/games/{game_id}/events", headers=auth(tokens[0])).json()
    assert any("tile" in e["event"]["tile_taken"] for e in own_events if "tile_taken" in e["event"] and e["seat"] == 0)


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b"{not json", {"Content-Type": "application/json"}, 400, "malformed_json"),
        (b"[1, 2]", {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b'{"move": {}, "surprise": 1}', {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b'{"move": "travel"}', {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b'{"move": {"teleport": {}}}', {"Content-Type": "application/json"}, 400, "malformed_move"),
        (b'{"move": {"end_turn": {}}, "expected_version": "x"}', {"Content-Type": "application/json"}, 400, None),
        (b'{"move": {"end_turn": {}}}', {"Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        (b'{"moves": []}', {"Content-Type": "application/json"}, 400, "invalid_request"),
        (b"{" + b'"a": "' + b"x" * 1_100_000 + b'"}', {"Content-Type": "application/json"}, 413, "body_too_large"),
    ],
)
def test_bad_input_gets_problem_json_and_changes_nothing(
    client: httpx.Client, body: bytes, headers: dict[str, str], status: int, code: str | None
) -> None:
    game_id, tokens = _two_humans(client)
    seat, _ = _turn(client, game_id, tokens)
    before = client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
    response = client.post(f"/v1/games/{game_id}/moves", content=body, headers={**headers, **auth(tokens[seat])})
    assert_problem(response, status, code)
    assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json() == before


def test_illegal_moves_wrong_seat_and_bad_tokens(client: httpx.Client) -> None:
    game_id, tokens = _two_humans(client)
    seat, legal = _turn(client, game_id, tokens)
    other = 1 - seat
    before = client.get(f"/v1/games/{game_id}").json()
    move = legal["moves"][0]
    assert_problem(client.post(f"/v1/games/{game_id}/moves", json={"move": move}), 401, "unauthenticated")
    bad = client.post(f"/v1/games/{game_id}/moves", json={"move": move}, headers=auth("not-a-token"))
    assert_problem(bad, 401, "unauthenticated")
    pinned = {"move": move, "expected_version": legal["version"]}
    wrong_seat = client.post(f"/v1/games/{game_id}/moves", json=pinned, headers=auth(tokens[other]))
    assert_problem(wrong_seat, 403, "not_your_turn")
    stale = client.post(
        f"/v1/games/{game_id}/moves", json={"move": move, "expected_version": 99}, headers=auth(tokens[seat])
    )
    assert assert_problem(stale, 409, "version_conflict")["current_version"] == legal["version"]
    end_turn = {"move": {"end_turn": {}}, "expected_version": legal["version"]}
    illegal = client.post(f"/v1/games/{game_id}/moves", json=end_turn, headers=auth(tokens[seat]))
    assert illegal.status_code == 422 and illegal.json()["code"]
    assert_problem(client.get(f"/v1/games/{game_id}/legal-moves"), 401, "unauthenticated")
    assert client.get(f"/v1/games/{game_id}").json() == before
    other_moves = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[other])).json()
    assert other_moves["moves"] == []


def test_unknown_games_routes_and_types(client: httpx.Client) -> None:
    assert_problem(client.get("/v1/games/darjeeling-000000000000000000000000"), 404, "game_not_found")
    assert_problem(client.get("/v1/games/whatever"), 404, "game_not_found")
    assert_problem(client.get("/v1/nothing-here"), 404, "not_found")
    unknown = client.post("/v1/games", json={"game_type": "chess", "players": [{"name": "a"}]})
    assert_problem(unknown, 400, "unknown_game_type")
    too_few = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "a"}]})
    assert_problem(too_few, 400, "bad_player_count")
    bad_bot = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "a"}, {"name": "b", "bot": "x"}]})
    assert_problem(bad_bot, 400, "unknown_bot")
    bad_option = client.post(
        "/v1/games", json={"game_type": GAME, "players": [{"name": "a"}, {"name": "b"}], "options": {"colour": 1}}
    )
    assert_problem(bad_option, 400, "bad_options")
    bad_seed = client.post("/v1/games", json={"game_type": GAME, "players": [{"name": "a"}], "seed": -4})
    assert_problem(bad_seed, 400, "invalid_request")


def test_health_docs_openapi_and_metrics(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["services"][GAME] == "SERVING"
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    for name in ("chaiwala.v1.Game", "chaiwala.v1.CreateGameBody", f"chaiwala.{GAME}.v1.Move"):
        assert name in schemas

    def refs(node: Any) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if "$ref" in node else []
            return found + [r for v in node.values() for r in refs(v)]
        if isinstance(node, list):
            return [r for v in node for r in refs(v)]
        return []

    # Every reference resolves: to a schema, or to one of the declared response headers.
    components = {"schemas": schemas, "headers": spec["components"]["headers"]}
    missing = {r for r in refs(spec) if r.split("/")[-1] not in components[r.split("/")[-2]]}
    assert not missing
    create_game(client, GAME, [{"name": "a"}, {"name": "b"}])
    text = client.get("/metrics").text
    assert 'chaiwala_http_requests_total{method="POST",route="/v1/games",status="201"}' in text


def test_an_unexpected_crash_is_a_problem_json_500_not_a_dropped_connection() -> None:
    from tests.support.stack import Gateway

    def add_crashing_route(app: Any) -> None:
        @app.get("/crash")
        async def crash() -> None:
            raise RuntimeError("deliberate")

    gateway = Gateway({GAME: "127.0.0.1:9"}, customise=add_crashing_route)
    try:
        response = httpx.get(f"{gateway.url}/crash", timeout=10)
        assert_problem(response, 500, "internal")
        assert 'route="/crash",status="500"' in httpx.get(f"{gateway.url}/metrics", timeout=10).text
    finally:
        gateway.stop()
