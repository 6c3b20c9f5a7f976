"""The match lifecycle through the real stack: lobby, resign, clocks — REST and gRPC alike.

Everything runs for real: Redis, the rules services, uvicorn, and the session's conductor
subprocess, which plays every bot and fires every timeout.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import httpx
import pytest

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.errors import error_detail_from_metadata
from services.common.registry import engine_for
from services.common.rng import Seed
from services.common.runner import Match, Snapshot
from tests.support.client import (
    assert_problem,
    auth,
    create_game,
    play_humans_to_end,
    wait_for_game,
    wait_over,
)
from tests.support.seeds import seed_hex
from tests.support.stack import Services

GAME = "darjeeling"


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/games", json={"game_type": GAME, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def _listed(client: httpx.Client, game_id: str, **query: str) -> bool:
    """Whether ``game_id`` is on some page of ``GET /v1/games`` with ``query`` (following the cursor)."""
    token = ""
    for _ in range(200):
        page = client.get("/v1/games", params={**query, "page_size": "50", "page_token": token})
        assert page.status_code == 200, page.text
        body = page.json()
        if any(game["game_id"] == game_id for game in body["games"]):
            return True
        token = body["next_page_token"]
        if not token:
            return False
    raise AssertionError("the listing never ended")


def _replay_matches_snapshot(
    client: httpx.Client, stack: dict[str, Any], services: Services, game_id: str
) -> dict[str, Any]:
    """Replaying seed + log (lifecycle entries have no move) gives exactly the stored engine state."""
    replay = client.get(f"/v1/games/{game_id}/replay").json()
    engine = engine_for(GAME)
    options = {k: v for k, v in replay["options"].items() if k != "@type"}
    match = Match.start(engine, len(replay["players"]), Seed(int(replay["seed_hex"], 16), replay["generator"]), options)
    for entry in replay["moves"]:
        if not entry["kind"]:
            match.play(entry["seat"], {k: v for k, v in entry["move"].items() if k != "@type"})
    running = stack["services"][GAME]
    _, stored = services.loops.run(running.store.load(game_id))
    assert match.snapshot.to_json() == Snapshot.from_json(stored).to_json()
    replayed: dict[str, Any] = replay
    return replayed


# ---- lobby --------------------------------------------------------------------------------------


def test_open_seats_are_listed_joined_and_the_game_plays_to_its_end(client: httpx.Client) -> None:
    created = _create(client, {"players": [{"name": "Asha"}, {"open": True}, {"open": True}], "seed_hex": seed_hex(5)})
    game_id = created["game_id"]
    assert created["status"] == "waiting" and created["host_token"]
    assert created["seats"][0]["token"] and not created["seats"][1]["token"]
    waiting = client.get(f"/v1/games/{game_id}").json()
    assert (
        waiting["status"] == "waiting"
        and waiting["to_act"] == []
        and [s["open"] for s in waiting["seats"]]
        == [
            False,
            True,
            True,
        ]
    )
    assert _listed(client, game_id, game_type=GAME, open_seats="true")
    assert _listed(client, game_id, open_seats="true")  # every game type, merged by the gateway
    listed = client.get("/v1/games", params={"game_type": GAME, "open_seats": "true"}).json()["games"]
    assert "time_control" not in next(g for g in listed if g["game_id"] == game_id)  # no clock chosen
    first = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal"})
    assert first.status_code == 200, first.text
    assert first.json()["seat"] == 1 and first.json()["status"] == "waiting"
    second = client.post(f"/v1/games/{game_id}/join", json={"name": "Chen"})
    assert second.status_code == 200 and second.json() == {
        "seat": 2,
        "token": second.json()["token"],
        "status": "active",
    }
    assert not _listed(client, game_id, game_type=GAME, open_seats="true")
    assert _listed(client, game_id, game_type=GAME, status="active")
    late = client.post(f"/v1/games/{game_id}/join", json={"name": "Dev"})
    assert_problem(late, 409, "game_not_waiting")
    tokens = {0: created["seats"][0]["token"], 1: first.json()["token"], 2: second.json()["token"]}
    play_humans_to_end(client, game_id, tokens, random.Random(8).choice)
    final = client.get(f"/v1/games/{game_id}").json()
    assert final["status"] == "finished" and len(final["result"]["ranking"]) == 3
    assert _listed(client, game_id, game_type=GAME, status="finished")


def test_a_private_game_needs_its_invite_code(client: httpx.Client) -> None:
    created = _create(
        client, {"players": [{"name": "Asha"}, {"open": True, "invite": "tea-for-two"}], "visibility": "private"}
    )
    game_id = created["game_id"]
    assert not _listed(client, game_id, game_type=GAME)
    assert_problem(client.post(f"/v1/games/{game_id}/join", json={"name": "Eve"}), 403, "invite_required")
    wrong = client.post(f"/v1/games/{game_id}/join", json={"name": "Eve", "invite": "coffee"})
    assert_problem(wrong, 403, "bad_invite")
    assert client.get(f"/v1/games/{game_id}").json()["status"] == "waiting"
    right = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal", "invite": "tea-for-two"})
    assert right.status_code == 200 and right.json()["status"] == "active"
    no_code = client.post(
        "/v1/games", json={"game_type": GAME, "players": [{"name": "A"}, {"open": True}], "visibility": "private"}
    )
    assert_problem(no_code, 400, "invite_required")  # a private game's open seats all need a code
    refused = client.post("/v1/games", json={"game_type": GAME, "players": [{"open": True}], "visibility": "secret"})
    assert_problem(refused, 400, "bad_visibility")


def test_leave_kick_and_an_early_start_by_the_host(client: httpx.Client) -> None:
    created = _create(client, {"players": [{"name": "Asha"}, {"open": True}, {"open": True}, {"open": True}]})
    game_id, host = created["game_id"], created["host_token"]
    assert_problem(client.post(f"/v1/games/{game_id}/start", headers=auth(host)), 422, "too_few_players")
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal", "seat": 3}).json()
    assert joined["seat"] == 3
    taken = client.post(f"/v1/games/{game_id}/join", json={"name": "Chen", "seat": 3})
    assert_problem(taken, 409, "seat_taken")
    left = client.post(f"/v1/games/{game_id}/leave", headers=auth(joined["token"]))
    assert left.status_code == 200 and left.json()["seats"][3]["open"]
    again = client.post(f"/v1/games/{game_id}/join", json={"name": "Chen"}).json()
    assert again["seat"] == 1
    kicked = client.post(f"/v1/games/{game_id}/kick", json={"seat": 1}, headers=auth(again["token"]))
    assert_problem(kicked, 403, "host_required")
    assert client.post(f"/v1/games/{game_id}/kick", json={"seat": 1}, headers=auth(host)).status_code == 200
    third = client.post(f"/v1/games/{game_id}/join", json={"name": "Dev", "seat": 2}).json()
    started = client.post(f"/v1/games/{game_id}/start", headers=auth(host))
    assert started.status_code == 200, started.text
    game = started.json()
    assert game["status"] == "active" and [s["name"] for s in game["seats"]] == ["Asha", "Dev"]
    # Seats left open were removed and the rest renumbered: Dev's token now belongs to seat 1.
    assert client.get(f"/v1/games/{game_id}", headers=auth(third["token"])).json()["viewer_seat"] == 1
    assert_problem(client.post(f"/v1/games/{game_id}/start", headers=auth(host)), 409, "game_not_waiting")
    assert client.post(f"/v1/games/{game_id}/abort", headers=auth(host)).json()["status"] == "aborted"
    # A game aborted while waiting has no state at all, and stays readable.
    waiting = _create(client, {"players": [{"name": "Asha"}, {"open": True}]})
    aborted = client.post(f"/v1/games/{waiting['game_id']}/abort", headers=auth(waiting["host_token"]))
    assert aborted.status_code == 200 and aborted.json()["status"] == "aborted"
    assert client.get(f"/v1/games/{waiting['game_id']}").json()["status"] == "aborted"
    joined_late = client.post(f"/v1/games/{waiting['game_id']}/join", json={"name": "Bilal"})
    assert_problem(joined_late, 409, "game_not_waiting")


# ---- resign -------------------------------------------------------------------------------------


def test_a_resigned_seat_is_played_by_a_bot_and_ranked_last(
    client: httpx.Client, stack: dict[str, Any], services: Services
) -> None:
    players = [{"name": "Asha"}, {"name": "b1", "bot": "random"}, {"name": "b2", "bot": "random"}]
    created = create_game(client, GAME, players, seed=21)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))
    assert resigned.status_code == 200, resigned.text
    assert resigned.json()["seats"][0]["resigned"]
    assert_problem(client.post(f"/v1/games/{game_id}/resign", headers=auth(token)), 409, "already_resigned")
    final = wait_over(client, game_id)
    assert final["status"] == "finished"
    assert final["result"]["ranking"][0] == 3 and 0 not in final["result"]["winners"]
    replay = _replay_matches_snapshot(client, stack, services, game_id)
    assert any(m["kind"] == "resign" and m["seat"] == 0 for m in replay["moves"])
    assert any(m["seat"] == 0 and m["bot"] == "heuristic" for m in replay["moves"])
    assert_problem(client.post(f"/v1/games/{game_id}/resign", headers=auth(token)), 409, "game_not_active")


def test_resigning_a_two_player_game_hands_the_other_seat_the_win(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=22)
    game_id = created["game_id"]
    tokens = [seat["token"] for seat in created["seats"]]
    to_act = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    other = 1 - to_act
    legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[other])).json()
    assert legal["moves"] == []
    answer = client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[other])).json()
    assert answer["status"] == "finished" and answer["result"]["winners"] == [to_act]
    assert answer["result"]["ranking"][other] == 2
    events = client.get(f"/v1/games/{game_id}/events").json()
    assert events[-1]["kind"] == "resign" and events[-1]["seat"] == other


def test_moving_after_resigning_is_refused(client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "Asha"}, {"name": "Bilal"}, {"name": "Chen"}], seed=23)
    game_id = created["game_id"]
    game = client.get(f"/v1/games/{game_id}").json()
    seat = game["to_act"][0]
    token = created["seats"][seat]["token"]
    legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(token)).json()
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(token)).status_code == 200
    body = {"move": legal["moves"][0], "expected_version": legal["version"] + 1}  # the resign entry took one
    refused = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(token))
    assert_problem(refused, 403, "seat_resigned")


# ---- clocks -------------------------------------------------------------------------------------


def test_a_seat_that_lets_its_clock_run_out_gets_a_timeout_and_a_bot_move(
    client: httpx.Client, stack: dict[str, Any], services: Services
) -> None:
    created = _create(
        client,
        {
            "players": [{"name": "Asha"}, {"name": "Bilal"}],
            "seed_hex": seed_hex(31),
            "clock": {"per_turn_s": 1},
            "on_timeout": "bot",
        },
    )
    game_id = created["game_id"]
    tokens = [seat["token"] for seat in created["seats"]]
    game = client.get(f"/v1/games/{game_id}").json()
    first = game["to_act"][0]
    assert game["clock"]["deadline"].endswith("Z") and set(game["clock"]["remaining_s"]) == {"0", "1"}
    # Nobody moves: the conductor fires the timeout and the stand-in bot moves for the seat.
    wait_for_game(client, game_id, lambda g: g["version"] >= 1, seconds=60)
    events = client.get(f"/v1/games/{game_id}/events").json()
    timeouts = [e for e in events if e["kind"] == "timeout"]
    assert timeouts and timeouts[0]["seat"] == first and timeouts[0]["version"] == 1
    # End the game (a 2-seat resignation) and check the replay, timeouts included, reproduces it.
    for token in tokens:
        answer = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))
        if answer.status_code == 200 and answer.json()["status"] == "finished":
            break
    final = wait_over(client, game_id)
    assert final["status"] == "finished"
    replayed = _replay_matches_snapshot(client, stack, services, game_id)
    kinds = [m["kind"] for m in replayed["moves"]]
    assert kinds[0] == "timeout" and replayed["moves"][1]["bot"] == "heuristic"
    assert replayed["moves"][1]["seat"] == first


def test_a_fischer_clock_and_the_abort_policy(client: httpx.Client) -> None:
    created = _create(
        client,
        {
            "players": [{"name": "Asha"}, {"name": "Bilal"}],
            "clock": {"bank_s": 1, "increment_s": 2},
            "on_timeout": "abort",
        },
    )
    game_id = created["game_id"]
    game = client.get(f"/v1/games/{game_id}").json()
    assert game["clock"]["remaining_s"][str(1 - game["to_act"][0])] == 1.0
    final = wait_over(client, game_id, seconds=60)
    assert final["status"] == "aborted"
    events = client.get(f"/v1/games/{game_id}/events").json()
    assert [e["kind"] for e in events] == ["timeout"]


def test_the_resign_policy_resigns_a_seat_at_its_nth_timeout(client: httpx.Client) -> None:
    created = _create(
        client,
        {
            "players": [{"name": "Asha"}, {"name": "Bilal"}],
            "clock": {"per_turn_s": 1},
            "on_timeout": "resign",
            "timeouts_to_resign": 1,
        },
    )
    game_id = created["game_id"]
    first = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    final = wait_over(client, game_id, seconds=60)
    assert final["status"] == "finished" and final["result"]["winners"] == [1 - first]
    assert final["seats"][first]["resigned"]
    events = client.get(f"/v1/games/{game_id}/events").json()
    assert [(e["kind"], e["seat"]) for e in events] == [("timeout", first), ("resign", first)]


def test_bad_lifecycle_requests_are_refused_and_change_nothing(client: httpx.Client) -> None:
    bad_bodies = [
        ({"players": [{"name": "A"}, {"name": "B"}], "clock": {"per_turn_s": 5, "bank_s": 5}}, "bad_clock"),
        ({"players": [{"name": "A"}, {"name": "B"}], "clock": {"increment_s": 5}}, "bad_clock"),
        ({"players": [{"name": "A"}, {"name": "B"}], "on_timeout": "explode"}, "bad_on_timeout"),
        ({"players": [{"name": "A"}, {"open": True, "name": "B"}]}, "bad_player"),
        ({"players": [{"name": "A", "invite": "x"}, {"open": True}]}, "bad_player"),
    ]
    for body, code in bad_bodies:
        assert_problem(client.post("/v1/games", json={"game_type": GAME, **body}), 400, code)
    assert_problem(client.get("/v1/games", params={"status": "sleeping"}), 400, "bad_status")
    assert_problem(client.get("/v1/games", params={"page_size": "0"}), 400, "bad_page_size")
    assert_problem(client.get("/v1/games", params={"page_token": "!!"}), 400, "bad_page_token")
    assert_problem(client.get("/v1/games", params={"game_type": "chess"}), 400, "unknown_game_type")
    missing = "darjeeling-ffffffffffffffffffffffff"
    assert_problem(client.post(f"/v1/games/{missing}/join", json={"name": "X"}), 404, "game_not_found")
    created = create_game(client, GAME, [{"name": "A"}, {"name": "B"}])
    assert_problem(client.post(f"/v1/games/{created['game_id']}/leave"), 409, "game_not_waiting")


def test_a_listing_says_each_games_time_control(client: httpx.Client) -> None:
    """The lobby's open list shows the clock before anyone joins (issue #42, item 7)."""
    body = {"players": [{"name": "Asha"}, {"open": True}], "clock": {"bank_s": 600, "increment_s": 5}}
    game_id = _create(client, body)["game_id"]
    listed = client.get("/v1/games", params={"game_type": GAME, "open_seats": "true"}).json()["games"]
    summary = next(g for g in listed if g["game_id"] == game_id)
    assert summary["time_control"] == {"per_turn_s": 0, "bank_s": 600, "increment_s": 5}
    assert summary["time_control"] == client.get(f"/v1/games/{game_id}").json()["time_control"]


def test_the_listing_pages_newest_first_without_repeats(client: httpx.Client) -> None:
    made = [create_game(client, GAME, [{"name": "A"}, {"name": "B"}])["game_id"] for _ in range(5)]
    seen: list[tuple[str, str]] = []
    token = ""
    while True:
        query = {"game_type": GAME, "status": "active", "page_size": "2", "page_token": token}
        body = client.get("/v1/games", params=query).json()
        assert len(body["games"]) <= 2
        seen += [(g["created_at"], g["game_id"]) for g in body["games"]]
        token = body["next_page_token"]
        if not token:
            break
    assert len(seen) == len(set(seen)), "no game on two pages"
    assert set(made) <= {game_id for _, game_id in seen}
    assert seen == sorted(seen, reverse=True), "newest first"


# ---- gRPC parity --------------------------------------------------------------------------------


def _code(call: Any) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as refused:
        call()
    detail = error_detail_from_metadata(refused.value.trailing_metadata())
    assert detail is not None
    return refused.value.code(), detail.code


def test_grpc_refuses_the_same_requests_with_the_same_codes(stack: dict[str, Any]) -> None:
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = stub.CreateGame(
            rules_pb2.CreateGameRequest(players=[rules_pb2.PlayerSpec(name="A"), rules_pb2.PlayerSpec(open=True)])
        )
        host = (("authorization", f"Bearer {created.host_token}"),)
        start = rules_pb2.StartGameRequest(game_id=created.game_id)
        assert _code(lambda: stub.StartGame(start, metadata=host)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "too_few_players",
        )
        joined = stub.JoinGame(rules_pb2.JoinGameRequest(game_id=created.game_id, name="B"))
        assert joined.status == "active"
        join = rules_pb2.JoinGameRequest(game_id=created.game_id, name="C")
        assert _code(lambda: stub.JoinGame(join)) == (grpc.StatusCode.FAILED_PRECONDITION, "game_not_waiting")
        seat = (("authorization", f"Bearer {joined.token}"),)
        resign = rules_pb2.ResignGameRequest(game_id=created.game_id)
        game = stub.ResignGame(resign, metadata=seat)
        assert game.status == "finished" and game.result.winners == [0]
        assert _code(lambda: stub.ResignGame(resign, metadata=seat)) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "game_not_active",
        )
        listing = stub.ListGames(rules_pb2.ListGamesRequest(status="finished", page_size=100))
        assert all(g.game_type == GAME and g.status == "finished" for g in listing.games)


def test_openapi_documents_every_lifecycle_route(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    from gateway.lobby_routes import router

    app_routes = {(route.path, method.lower()) for route in router.routes for method in getattr(route, "methods", ())}
    assert len(app_routes) == 6
    documented = {(path, method) for path, operations in spec["paths"].items() for method in operations}
    assert app_routes <= documented, sorted(app_routes - documented)
    schemas = spec["components"]["schemas"]
    for name in ("chaiwala.v1.JoinGameBody", "chaiwala.v1.JoinGameResponse", "chaiwala.v1.ListGamesResponse"):
        assert name in schemas
