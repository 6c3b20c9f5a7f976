"""Quick play through the real stack: the gateway, the real matchmaker process, the rules services that
create its games, real Redis.  Each test has its own time control, so its tickets have pools to themselves;
the matchmaker runs with short waits (tests/support/stack.py MATCHMAKER_TEST_ENV)."""

from __future__ import annotations

from typing import Any

import httpx
from redis import Redis

from services.rating.ledger import player_key
from tests.support.client import assert_problem, auth, guest
from tests.support.waiting import eventually

GAME = "darjeeling"  # 2-4 players


def _ticket(client: httpx.Client, token: str, clock: dict[str, int], counts: list[int], **extra: Any) -> dict[str, Any]:
    body = {"game_type": GAME, "player_counts": counts, "time_control": clock, **extra}
    answer = client.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
    assert answer.status_code == 201, answer.text
    ticket: dict[str, Any] = answer.json()
    assert ticket["status"] == "searching"
    return ticket


def _read(client: httpx.Client, token: str, ticket_id: str) -> dict[str, Any]:
    answer = client.get(f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _wait_ended(client: httpx.Client, token: str, ticket_id: str, seconds: float = 30) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def ended() -> bool:
        seen.update(_read(client, token, ticket_id))
        return seen["status"] != "searching"

    eventually(ended, f"ticket {ticket_id} ended", seconds)
    return seen


def _players(client: httpx.Client, count: int) -> list[tuple[str, str]]:
    return [guest(client, f"Quick {n}") for n in range(count)]


def _game(client: httpx.Client, token: str, game_id: str) -> dict[str, Any]:
    answer = client.get(f"/v1/games/{game_id}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_two_tickets_become_one_game(client: httpx.Client, clock: dict[str, int]) -> None:
    players = _players(client, 2)
    tickets = [_ticket(client, token, clock, [2]) for _, token in players]
    ended = [_wait_ended(client, token, t["ticket_id"]) for (_, token), t in zip(players, tickets, strict=True)]
    assert {t["status"] for t in ended} == {"matched"}
    assert ended[0]["game_id"] == ended[1]["game_id"]
    assert sorted(t["seat"] for t in ended) == [0, 1]
    game = _game(client, players[0][1], ended[0]["game_id"])
    assert game["status"] == "active"
    seated = {seat["external_id"]: seat["seat"] for seat in game["seats"]}
    for (player_id, _), ticket in zip(players, ended, strict=True):
        assert seated[player_id] == ticket["seat"]  # each player sits where their ticket says
    assert game["time_control"]["per_turn_s"] == clock["per_turn_s"]  # the pool's time control
    assert game["seed_source"] == "operator"  # the matchmaker's seed, which drew the seat order
    # A matched ticket cannot be cancelled any more.
    late = client.delete(f"/v1/matchmaking/tickets/{tickets[0]['ticket_id']}", headers=auth(players[0][1]))
    assert_problem(late, 409, "ticket_not_searching")


def test_four_tickets_accepting_three_or_four_make_a_four_player_game(
    client: httpx.Client, clock: dict[str, int]
) -> None:
    players = _players(client, 4)
    tickets = [_ticket(client, token, clock, [3, 4]) for _, token in players]
    ended = [_wait_ended(client, token, t["ticket_id"]) for (_, token), t in zip(players, tickets, strict=True)]
    assert {t["game_id"] for t in ended} == {ended[0]["game_id"]}
    assert sorted(t["seat"] for t in ended) == [0, 1, 2, 3]
    assert len(_game(client, players[0][1], ended[0]["game_id"])["seats"]) == 4


def test_three_tickets_make_a_three_player_game_after_the_wait(client: httpx.Client, clock: dict[str, int]) -> None:
    players = _players(client, 3)
    tickets = [_ticket(client, token, clock, [3, 4]) for _, token in players]
    ended = [_wait_ended(client, token, t["ticket_id"]) for (_, token), t in zip(players, tickets, strict=True)]
    assert {t["game_id"] for t in ended} == {ended[0]["game_id"]}
    game = _game(client, players[0][1], ended[0]["game_id"])
    assert len(game["seats"]) == 3 and not any(seat["bot"] for seat in game["seats"])
    # A smaller table forms only once every player waited CHAIWALA_MATCHMAKING_SMALLER_AFTER_S (2 s).
    assert min(t["waited_ms"] for t in ended) >= 2000


def test_far_apart_ratings_match_only_once_the_band_is_wide_enough(
    client: httpx.Client, clock: dict[str, int], mm_stack: dict[str, Any]
) -> None:
    players = _players(client, 2)
    redis = Redis.from_url(mm_stack["redis_url"])
    for (player_id, _), mu in zip(players, (10.0, 40.0), strict=True):
        redis.hset(player_key(GAME, player_id), mapping={"name": "Rated", "mu": mu, "sigma": 2.0, "games": 30})
    redis.close()
    tickets = [_ticket(client, token, clock, [2]) for _, token in players]
    ended = [_wait_ended(client, token, t["ticket_id"]) for (_, token), t in zip(players, tickets, strict=True)]
    assert ended[0]["game_id"] == ended[1]["game_id"]
    # band(w) = 3 + 10 w (test settings): a gap of 30 needs both to have waited 2.7 s.
    assert min(t["waited_ms"] for t in ended) >= 2700


def test_a_lone_ticket_allowing_bots_is_seated_with_bots(client: httpx.Client, clock: dict[str, int]) -> None:
    player_id, token = guest(client, "Lonely")
    ticket = _ticket(client, token, clock, [3], bots_after_seconds=1, bot="random")
    ended = _wait_ended(client, token, ticket["ticket_id"])
    assert ended["status"] == "matched" and ended["waited_ms"] >= 1000
    game = _game(client, token, ended["game_id"])
    assert [seat["bot"] for seat in game["seats"]].count("random") == 2
    assert game["seats"][ended["seat"]]["external_id"] == player_id


def test_cancel_and_a_second_ticket_in_the_same_pool(client: httpx.Client, clock: dict[str, int]) -> None:
    _, token = guest(client, "Canceller")
    ticket = _ticket(client, token, clock, [4])
    again = client.post("/v1/matchmaking/tickets", json={"game_type": GAME, "player_counts": [4],
                                                         "time_control": clock}, headers=auth(token))  # fmt: skip
    assert_problem(again, 409, "ticket_exists")
    cancelled = client.delete(f"/v1/matchmaking/tickets/{ticket['ticket_id']}", headers=auth(token))
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled"
    assert _read(client, token, ticket["ticket_id"])["status"] == "cancelled"
    # Cancelled, the pool is free for a new ticket; and the player's list shows both, newest first.
    fresh = _ticket(client, token, clock, [4])
    mine = client.get("/v1/me/tickets", headers=auth(token)).json()["tickets"]
    assert [t["ticket_id"] for t in mine[:2]] == [fresh["ticket_id"], ticket["ticket_id"]]
    client.delete(f"/v1/matchmaking/tickets/{fresh['ticket_id']}", headers=auth(token))


def test_refusals(client: httpx.Client, clock: dict[str, int]) -> None:
    _, token = guest(client, "Refused")
    rated = client.post("/v1/matchmaking/tickets", json={"game_type": GAME, "player_counts": [2], "rated": True},
                        headers=auth(token))  # fmt: skip
    assert_problem(rated, 403, "identity_not_rated")
    bad = {"game_type": GAME, "player_counts": [9]}
    assert_problem(client.post("/v1/matchmaking/tickets", json=bad, headers=auth(token)), 400, "bad_player_counts")
    anonymous = client.post("/v1/matchmaking/tickets", json={"game_type": GAME, "player_counts": [2]})
    assert anonymous.status_code == 401
    _, other = guest(client, "Other")
    ticket = _ticket(client, other, clock, [4])
    assert_problem(client.get(f"/v1/matchmaking/tickets/{ticket['ticket_id']}", headers=auth(token)), 404,
                   "ticket_not_found")  # fmt: skip
    created = []
    for per_turn in range(5):  # the cap (5 by default) in all pools
        created.append(_ticket(client, token, {"per_turn_s": 2000 + per_turn + clock["per_turn_s"] * 10}, [4]))
    over = client.post("/v1/matchmaking/tickets", json={"game_type": GAME, "player_counts": [4]}, headers=auth(token))
    assert_problem(over, 429, "too_many_tickets")
    for made in created:
        client.delete(f"/v1/matchmaking/tickets/{made['ticket_id']}", headers=auth(token))
    client.delete(f"/v1/matchmaking/tickets/{ticket['ticket_id']}", headers=auth(other))


def test_match_found_on_the_player_stream(client: httpx.Client, clock: dict[str, int]) -> None:
    players = _players(client, 2)
    tickets = [_ticket(client, token, clock, [2]) for _, token in players]
    ended = _wait_ended(client, players[0][1], tickets[0]["ticket_id"])
    events = client.get("/v1/me/events", headers=auth(players[0][1])).json()
    found = [e["data"] for e in events if e["kind"] == "match_found"]
    assert found == [{"ticket_id": tickets[0]["ticket_id"], "game_id": ended["game_id"], "game_type": GAME,
                      "seat": ended["seat"]}]  # fmt: skip
