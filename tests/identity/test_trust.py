"""Seats nobody can take as someone else: the attacks of the trust review, each refused with
nothing changed, on a stack with operator keys set; and players who create, join and play with
their own player token (guest sessions from the server's own issuer).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from services.identity.settings import IdentitySettings
from tests.support import secrets
from tests.support.client import assert_problem, auth, guest, rated_guest_pair, rated_guests, shown_as_guest, sse_events
from tests.support.stack import rules_and_gateway

GAME = "darjeeling"
OPERATOR = "trust-operator-key-0123456789abcdef"


@pytest.fixture(scope="module")
def http(redis_url: str) -> Iterator[httpx.Client]:
    secrets.remember(OPERATOR)
    with (
        rules_and_gateway(redis_url, GAME, OPERATOR, IdentitySettings(), session_limit="1000/minute") as (_, gateway),
        httpx.Client(base_url=gateway.url, timeout=60) as client,
    ):
        yield client



def _create(http: httpx.Client, token: str, players: list[dict[str, Any]], **extra: Any) -> httpx.Response:
    headers = auth(token) if token else {}
    return http.post("/v1/games", json={"game_type": GAME, "players": players, **extra}, headers=headers)


def _game(http: httpx.Client, game_id: str) -> dict[str, Any]:
    found: dict[str, Any] = http.get(f"/v1/games/{game_id}", headers=auth(OPERATOR)).json()
    return found


def test_a_stranger_cannot_take_a_rated_seat_as_someone_else(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    (victim, _), (attacker, attacker_token) = rated_guest_pair(monkeypatch, http, "Victim", "Attacker")
    created = _create(http, OPERATOR, [{"name": "Victim", "external_id": victim}, {"open": True}], rated=True)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    before = _game(http, game_id)
    claims = [
        ({}, {"name": "I cheat", "external_id": victim}, "external_id_not_yours"),
        (auth(attacker_token), {"name": "I cheat", "external_id": victim}, "external_id_not_yours"),
        ({}, {"name": "Anonymous"}, "identity_required"),
    ]
    for headers, body, code in claims:
        assert_problem(http.post(f"/v1/games/{game_id}/join", json=body, headers=headers), 403, code)
    assert _game(http, game_id) == before  # nothing changed: still waiting, the same seats
    assert attacker != victim


def test_one_identity_holds_one_seat_of_a_rated_game(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    rated_guests(monkeypatch)
    player, token = guest(http, "Asha")
    created = _create(http, token, [{"me": True}, {"open": True}], rated=True)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    assert_problem(http.post(f"/v1/games/{game_id}/join", json={}, headers=auth(token)), 409, "identity_already_seated")
    twice = [{"name": "A", "external_id": player}, {"name": "B", "external_id": player}]
    assert_problem(_create(http, OPERATOR, twice, rated=True), 409, "identity_already_seated")
    assert _game(http, game_id)["status"] == "waiting"


def test_a_bot_never_carries_a_players_id_and_never_gets_a_token(http: httpx.Client) -> None:
    player, token = guest(http, "Bilal")
    bot_as_player = [{"name": "Asha", "external_id": player}, {"name": "Bot", "bot": "random", "external_id": player}]
    assert_problem(_create(http, OPERATOR, bot_as_player), 400, "bad_external_id")
    created = _create(http, token, [{"me": True}, {"name": "Bot", "bot": "random"}, {"open": True}])
    assert created.status_code == 201, created.text
    seats = created.json()["seats"]
    assert seats[1]["token"] == "" and seats[2]["token"] == "" and seats[0]["token"]
    _, other = guest(http, "Chandra")
    joined = http.post(f"/v1/games/{created.json()['game_id']}/join", json={}, headers=auth(other)).json()
    assert set(joined) == {"seat", "token", "status"} and joined["seat"] == 2


def test_a_player_creates_joins_and_plays_with_their_own_token(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    (asha, asha_token), (bilal, bilal_token) = rated_guest_pair(monkeypatch, http, "Asha", "Bilal")
    assert_problem(_create(http, "", [{"name": "A"}, {"name": "B"}]), 401)
    assert_problem(_create(http, asha_token, [{"me": True}, {"name": "B", "external_id": bilal}]), 403,
                   "external_id_not_yours")  # fmt: skip
    assert_problem(_create(http, asha_token, [{"me": True}, {"open": True}], seed=7), 403, "api_key_required")
    created = _create(http, asha_token, [{"me": True}, {"open": True}], rated=True)
    game_id = created.json()["game_id"]
    joined = http.post(f"/v1/games/{game_id}/join", json={"name": "ignored"}, headers=auth(bilal_token))
    assert joined.status_code == 200 and joined.json()["status"] == "active", joined.text
    game = _game(http, game_id)
    assert [seat["name"] for seat in game["seats"]] == [shown_as_guest("Asha", asha), shown_as_guest("Bilal", bilal)]
    tokens = {0: asha_token, 1: bilal_token}
    for _ in range(4):
        seat = http.get(f"/v1/games/{game_id}").json()["to_act"][0]
        mine = http.get(f"/v1/games/{game_id}", headers=auth(tokens[seat])).json()
        assert mine["viewer_seat"] == seat
        legal = http.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        move = {k: v for k, v in legal["moves"][0].items() if k != "text"}
        body = {"move": move, "expected_version": legal["version"]}
        assert http.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200
        other = http.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[1 - seat]))
        assert other.status_code in (403, 409)  # never the other player's move
    assert asha != bilal


def _mine(http: httpx.Client, token: str, **params: Any) -> dict[str, Any]:
    answer = http.get("/v1/me/games", params=params, headers=auth(token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_my_games_put_my_turn_first_then_active_waiting_and_ended(http: httpx.Client) -> None:
    asha_id, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    games = []
    for _ in range(3):
        game_id = _create(http, asha, [{"me": True}, {"open": True}]).json()["game_id"]
        assert http.post(f"/v1/games/{game_id}/join", json={}, headers=auth(bilal)).status_code == 200
        games.append(game_id)
    waiting = _create(http, asha, [{"me": True}, {"open": True}]).json()["game_id"]
    assert http.post(f"/v1/games/{games[2]}/resign", headers=auth(asha)).status_code == 200
    listed = _mine(http, asha)["games"]
    assert {g["game_id"] for g in listed} == {*games, waiting}
    ranks = {"yours": 0, "active": 1, "waiting": 2, "finished": 3}
    kinds = ["yours" if g["your_turn"] else g["status"] for g in listed]
    assert kinds == sorted(kinds, key=ranks.__getitem__)
    for game in listed:
        seen = http.get(f"/v1/games/{game['game_id']}", headers=auth(asha)).json()
        assert game["your_turn"] == (seen["status"] == "active" and game["seat"] in seen["to_act"])
        assert game["names"][game["seat"]] == shown_as_guest("Asha", asha_id)
    first = _mine(http, asha, page_size=2)
    rest = _mine(http, asha, page_size=2, page_token=first["next_page_token"])
    assert [g["game_id"] for g in first["games"] + rest["games"]] == [g["game_id"] for g in listed]
    assert rest["next_page_token"] == ""
    assert {g["game_id"] for g in _mine(http, bilal)["games"]} == set(games)  # not Asha's waiting game
    assert_problem(http.get("/v1/me/games"), 401)
    assert_problem(http.get("/v1/me/games", params={"page_token": "nonsense"}, headers=auth(asha)), 400)


def test_a_player_past_the_open_games_quota_is_refused(http: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHAIWALA_PLAYER_OPEN_GAMES", "2")
    _, token = guest(http, "Busy")
    for _ in range(2):
        assert _create(http, token, [{"me": True}, {"open": True}]).status_code == 201
    assert_problem(_create(http, token, [{"me": True}, {"open": True}]), 429, "player_quota")
    assert len(_mine(http, token)["games"]) == 2


def test_the_open_games_quota_holds_under_concurrent_creations(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAIWALA_PLAYER_OPEN_GAMES", "10")
    _, token = guest(http, "Hasty")

    def create(_: int) -> int:
        return _create(http, token, [{"me": True}, {"open": True}]).status_code

    with ThreadPoolExecutor(max_workers=24) as pool:  # 120 creations at once, as the review sent
        statuses = list(pool.map(create, range(120)))
    assert statuses.count(201) <= 10 and set(statuses) <= {201, 429}, statuses
    assert statuses.count(201) == len(_mine(http, token)["games"])  # nothing filed beyond what was answered
    assert statuses.count(201) >= 1


def _feed(http: httpx.Client, token: str, after: str = "") -> list[dict[str, Any]]:
    answer = http.get("/v1/me/events", params={"after": after} if after else {}, headers=auth(token))
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def test_one_player_stream_tells_your_turn_in_three_games(http: httpx.Client) -> None:
    _, asha = guest(http, "Asha")
    _, bilal = guest(http, "Bilal")
    seats = [{"me": True}, {"open": True}]
    games = [_create(http, asha, seats, options={"start_player": 1}).json()["game_id"] for _ in range(3)]
    for game_id in games:
        assert http.post(f"/v1/games/{game_id}/join", json={}, headers=auth(bilal)).status_code == 200
    ticket = http.post("/v1/me/stream-tickets", headers=auth(bilal)).json()["ticket"]
    turns: dict[str, dict[str, Any]] = {}
    started: set[str] = set()
    with http.stream("GET", "/v1/me/events", params={"ticket": ticket}, headers={"Accept": "text/event-stream"}) as sse:
        assert sse.status_code == 200
        for message in sse_events(sse):
            data = json.loads(message["data"])
            if message.get("event") == "game_started":
                started.add(data["game_id"])
            if message.get("event") == "your_turn":
                turns[data["game_id"]] = data
            if set(turns) == set(games):
                break
    assert started == set(games)
    assert all(turn["seat"] == 1 and turn["version"] == 0 for turn in turns.values())
    assert [e["kind"] for e in _feed(http, asha)].count("your_turn") == 0  # not Asha's turn anywhere yet
    while not _to_act_is(http, games[0], asha):  # Bilal moves until it is Asha's turn: her feed says so
        legal = http.get(f"/v1/games/{games[0]}/legal-moves", headers=auth(bilal)).json()
        move = {k: v for k, v in legal["moves"][0].items() if k != "text"}
        body = {"move": move, "expected_version": legal["version"]}
        assert http.post(f"/v1/games/{games[0]}/moves", json=body, headers=auth(bilal)).status_code == 200
    (told,) = [e["data"] for e in _feed(http, asha) if e["kind"] == "your_turn"]
    assert told["game_id"] == games[0] and told["seat"] == 0


def _to_act_is(http: httpx.Client, game_id: str, token: str) -> bool:
    game = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
    return bool(game["viewer_seat"] in game["to_act"])


def test_the_player_stream_needs_aguest(http: httpx.Client) -> None:
    assert_problem(http.get("/v1/me/events"), 401)
    assert_problem(http.get("/v1/me/events", params={"ticket": "nope"}), 401, "invalid_ticket")
    _, token = guest(http, "Dev")
    assert_problem(http.get("/v1/me/events", params={"after": "x"}, headers=auth(token)), 400, "bad_after")


def test_a_good_credential_of_another_kind_on_a_seat_route_is_403_not_401(http: httpx.Client) -> None:
    created = _create(http, OPERATOR, [{"name": "Asha"}, {"name": "Bilal"}])
    assert created.status_code == 201, created.text
    game_id, host = created.json()["game_id"], created.json()["host_token"]
    secrets.remember(host)
    body = {"move": {"end_turn": {}}, "expected_version": 0}
    for credential in (OPERATOR, host):  # good credentials, but no seat's: 403 (a 401 counts as a failed login)
        assert_problem(http.get(f"/v1/games/{game_id}/legal-moves", headers=auth(credential)), 403, "not_seated")
        assert_problem(http.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(credential)), 403,
                       "not_seated")  # fmt: skip
    assert_problem(http.get(f"/v1/games/{game_id}/legal-moves", headers=auth("no-such-token")), 401)
    assert _game(http, game_id)["version"] == 0


def _reads(http: httpx.Client, game_id: str, token: str) -> list[int]:
    """Every way to read a game: the game, its events, its replay, its first position."""
    headers = auth(token) if token else {}
    paths = ["", "/events", "/replay", "/versions/0"]
    return [http.get(f"/v1/games/{game_id}{path}", headers=headers).status_code for path in paths]


def test_a_private_game_is_read_only_by_its_seats_host_invitees_and_operators(http: httpx.Client) -> None:
    invitee, invitee_token = guest(http, "Invitee")
    _, stranger = guest(http, "Stranger")
    players = [{"name": "Asha", "bot": "random"}, {"name": "Invitee", "external_id": invitee},
               {"name": "Bilal", "bot": "random"}]  # fmt: skip
    created = _create(http, OPERATOR, players, visibility="private")
    assert created.status_code == 201, created.text
    game_id, host = created.json()["game_id"], created.json()["host_token"]
    seat_token = created.json()["seats"][1]["token"]
    secrets.remember(host)
    secrets.remember(seat_token)
    for reader in (OPERATOR, host, seat_token, invitee_token):
        assert _reads(http, game_id, reader)[:2] == [200, 200], reader[:8]
    unknown = http.get(f"/v1/games/{GAME}-{'0' * 24}", headers=auth(stranger))
    for outsider in (stranger, ""):
        assert _reads(http, game_id, outsider) == [404, 404, 404, 404]
        refused = assert_problem(http.get(f"/v1/games/{game_id}", headers=auth(outsider) if outsider else {}), 404,
                                 "game_not_found")  # fmt: skip
        assert refused["title"] == unknown.json()["title"]  # the very answer of a game nobody created
    public = _create(http, OPERATOR, players)
    assert _reads(http, public.json()["game_id"], stranger)[:2] == [200, 200]  # public games stay public


def test_player_ids_of_public_games_follow_the_public_ratings_setting(
    http: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, stranger = guest(http, "Collector")
    players = [{"name": "Asha", "external_id": "acme:asha-ids"}, {"name": "Bilal", "external_id": "acme:bilal-ids"}]
    created = _create(http, OPERATOR, players)
    assert created.status_code == 201, created.text
    game_id, seat_token = created.json()["game_id"], created.json()["seats"][0]["token"]
    secrets.remember(seat_token)
    assert http.post(f"/v1/games/{game_id}/resign", headers=auth(seat_token)).status_code == 200

    def ids(token: str) -> tuple[list[str], list[str]]:
        game = http.get(f"/v1/games/{game_id}", headers=auth(token)).json()
        replay = http.get(f"/v1/games/{game_id}/replay", headers=auth(token)).json()
        return [s.get("external_id", "") for s in game["seats"]], [p.get("external_id", "") for p in replay["players"]]

    shown = (["acme:asha-ids", "acme:bilal-ids"], ["acme:asha-ids", "acme:bilal-ids"])
    assert ids(stranger) == shown  # public ratings (the default): who played is public
    monkeypatch.setenv("CHAIWALA_PUBLIC_RATINGS", "false")
    assert ids(stranger) == (["", ""], ["", ""])
    assert [s["name"] for s in http.get(f"/v1/games/{game_id}", headers=auth(stranger)).json()["seats"]] == [
        "Asha", "Bilal"]  # fmt: skip
    assert ids(OPERATOR) == shown and ids(seat_token) == shown
