"""Tournaments and ratings through the real stack: Redis, rules services, conductor, director, gateway.

Every game is played by the conductor's bots and every round is seated by the director process
on its own, from the outbox's ``game.finished`` events.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import httpx
import orjson
from redis import Redis

from services.outbox import outbox_keys
from tests.support.client import assert_problem, auth, wait_tournament_finished
from tests.support.seeds import seed_hex

WAIT_SECONDS = 60.0


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert created["status"] == "running"
    assert [e["external_id"] for e in created["entrants"]] == [e["external_id"] for e in body["entrants"]]
    return created



def _bots(prefix: str, count: int) -> list[dict[str, str]]:
    # A bot entrant's id is a bot's ("bot:..."): bots never carry a player's id.
    return [{"external_id": f"bot:{prefix}{i}", "name": f"Bot {prefix}{i}", "bot": "heuristic"} for i in range(count)]


def _swiss(prefix: str) -> dict[str, Any]:
    return {"game_type": "darjeeling", "format": "swiss", "rounds": 3, "table_size": 3,
            "entrants": _bots(prefix, 9), "seed_hex": seed_hex(20261201)}  # fmt: skip


def _rounds(client: httpx.Client, tournament_id: str) -> list[dict[str, Any]]:
    rounds: list[dict[str, Any]] = client.get(f"/v1/tournaments/{tournament_id}/rounds").json()["rounds"]
    return rounds


def _check_tables_against_games(client: httpx.Client, rounds: list[dict[str, Any]]) -> None:
    """Every table is a finished game whose seats and places are the table's."""
    for played in rounds:
        for table in played["tables"]:
            game = client.get(f"/v1/games/{table['game_id']}").json()
            assert game["status"] == "finished"
            assert [s["external_id"] for s in game["seats"]] == [s["external_id"] for s in table["seats"]]
            assert [s["place"] for s in table["seats"]] == game["result"]["ranking"]
            replay = client.get(f"/v1/games/{table['game_id']}/replay").json()
            assert replay["seed_source"] == "operator"


def _outbox(redis_url: str) -> list[dict[str, Any]]:
    redis = Redis.from_url(redis_url)
    try:
        found = []
        for key in outbox_keys():
            for _, fields in redis.xrange(key):
                found.append({"id": fields[b"id"].decode(), "type": fields[b"type"].decode(),
                              "data": orjson.loads(fields[b"data"])})  # fmt: skip
        return found
    finally:
        redis.close()


def _pairs(rounds: list[dict[str, Any]]) -> dict[frozenset[str], int]:
    met: dict[frozenset[str], int] = {}
    for played in rounds:
        for table in played["tables"]:
            for a, b in itertools.combinations([s["external_id"] for s in table["seats"]], 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return met


def test_swiss_of_nine_bots_at_tables_of_three_runs_to_the_end_reproducibly(
    client: httpx.Client, director_stack: dict[str, Any]
) -> None:
    first = _create(client, _swiss("s"))
    second = _create(client, _swiss("r"))  # the same seed, other ids: the same tournament
    tournament = wait_tournament_finished(client, first["tournament_id"])
    wait_tournament_finished(client, second["tournament_id"])
    assert tournament["round"] == 3 and tournament["seed"] == format(20261201, "064x")
    assert tournament["seed_source"] == "operator"
    rounds = _rounds(client, first["tournament_id"])
    assert [len(r["tables"]) for r in rounds] == [3, 3, 3] and all(not r["byes"] for r in rounds)
    assert max(_pairs(rounds).values()) == 1  # no pair shared a table twice
    _check_tables_against_games(client, rounds)
    # standings: points from the tables' places, ranks in order of points
    standings = client.get(f"/v1/tournaments/{first['tournament_id']}/standings").json()
    assert standings["round"] == 3
    points: dict[str, float] = {}
    for played in rounds:
        for table in played["tables"]:
            for seat in table["seats"]:
                points[seat["external_id"]] = points.get(seat["external_id"], 0.0) + seat["points"]
    lines = standings["standings"]
    assert [line["rank"] for line in lines] == list(range(1, 10))
    assert {line["external_id"]: line["points"] for line in lines} == points
    assert all(a["points"] >= b["points"] for a, b in itertools.pairwise(lines))
    assert sum(points.values()) == 27.0
    # the same seed: the same pairings and results, entrant for entrant
    again = _rounds(client, second["tournament_id"])

    def shape(rounds: list[dict[str, Any]]) -> list[list[list[tuple[str, int]]]]:
        def seats(table: dict[str, Any]) -> list[tuple[str, int]]:
            return [(s["external_id"].removeprefix("bot:")[1:], s["place"]) for s in table["seats"]]

        return [[seats(table) for table in r["tables"]] for r in rounds]

    assert shape(again) == shape(rounds)
    # ratings moved once per game: 3 rated games each
    for entrant in first["entrants"]:
        player = client.get(f"/v1/players/{entrant['external_id']}").json()
        (rating,) = player["ratings"]
        assert rating["game_type"] == "darjeeling" and rating["games"] == 3
        assert len(player["recent_games"]) == 3
    board = client.get("/v1/ratings/darjeeling", params={"page_size": 100}).json()
    ids = [line["external_id"] for line in board["ratings"]]
    assert set(ids) >= {e["external_id"] for e in first["entrants"]}
    ordinals = [line["ordinal"] for line in board["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    fields = {"external_id", "name", "ordinal", "mu", "sigma", "games", "issuer", "provisional"}
    assert set(board["ratings"][0]) == fields
    ours = [line for line in board["ratings"] if line["external_id"] in {e["external_id"] for e in first["entrants"]}]
    assert all(line["issuer"] == "bot" and line["provisional"] for line in ours)  # bots, three games each
    # the outbox: one round_started per round, one tournament.finished, one rating.updated per game
    events = _outbox(director_stack["redis_url"])
    mine = [e for e in events if e["data"].get("tournament_id") == first["tournament_id"]]
    assert sorted(e["type"] for e in mine) == ["tournament.finished"] + ["tournament.round_started"] * 3
    games = {t["game_id"] for r in rounds for t in r["tables"]}
    rated = [e for e in events if e["type"] == "rating.updated" and e["data"]["game_id"] in games]
    assert len(rated) == 9 and len({e["data"]["game_id"] for e in rated}) == 9


def test_round_robin_in_pairs_meets_everyone_once(client: httpx.Client) -> None:
    body = {"game_type": "darjeeling", "format": "round_robin", "table_size": 2,
            "entrants": _bots("rr", 4), "seed_hex": seed_hex(7)}  # fmt: skip
    created = _create(client, body)
    tournament = wait_tournament_finished(client, created["tournament_id"])
    assert tournament["rounds_planned"] == 3 and tournament["round"] == 3
    rounds = _rounds(client, created["tournament_id"])
    met = _pairs(rounds)
    assert len(met) == 6 and set(met.values()) == {1}  # every pair of the group, once
    _check_tables_against_games(client, rounds)
    standings = client.get(f"/v1/tournaments/{created['tournament_id']}/standings").json()["standings"]
    assert sum(line["points"] for line in standings) == 6.0


def test_knockout_with_a_withdrawal_and_entrant_tokens(client: httpx.Client) -> None:
    """A human entrant sees its table through its token (game, stream ticket), withdraws, and its seat resigns."""
    entrants = [{"external_id": "ko-human", "name": "Asha"}, *_bots("ko", 3)]
    body = {"game_type": "darjeeling", "format": "knockout", "table_size": 2, "entrants": entrants,
            "seed_hex": seed_hex(11)}  # fmt: skip
    created = _create(client, body)
    tournament_id = created["tournament_id"]
    token = created["entrants"][0]["token"]
    table: dict[str, Any] = {}
    deadline = time.monotonic() + WAIT_SECONDS
    while not table.get("game_id"):
        assert time.monotonic() < deadline
        table = client.get(f"/v1/tournaments/{tournament_id}/table", headers=auth(token)).json()
    assert table["round"] == 1 and table["external_id"] == "ko-human"
    game = client.get(f"/v1/games/{table['game_id']}", headers=auth(token)).json()
    assert game["viewer_seat"] == table["seat"] and game["seats"][table["seat"]]["external_id"] == "ko-human"
    ticket = client.post(f"/v1/games/{table['game_id']}/stream-tickets", headers=auth(token))
    assert ticket.status_code == 201, ticket.text
    assert_problem(client.get(f"/v1/tournaments/{tournament_id}/table", headers=auth("nope")), 401, "unauthenticated")
    withdrawn = client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(token))
    assert withdrawn.status_code == 200, withdrawn.text
    assert [e["withdrawn"] for e in withdrawn.json()["entrants"]] == [True, False, False, False]
    again = client.post(f"/v1/tournaments/{tournament_id}/withdraw", headers=auth(token))
    assert_problem(again, 409, "already_withdrawn")
    wait_tournament_finished(client, tournament_id)
    rounds = _rounds(client, tournament_id)
    assert [len(r["tables"]) for r in rounds] == [2, 1]  # two semi-finals, one final
    resigned = client.get(f"/v1/games/{table['game_id']}").json()
    assert resigned["seats"][table["seat"]]["resigned"] is True
    assert resigned["result"]["ranking"][table["seat"]] == 2  # a resigned seat ranks last
    final = {s["external_id"] for s in rounds[1]["tables"][0]["seats"]}
    assert "ko-human" not in final
    standings = client.get(f"/v1/tournaments/{tournament_id}/standings").json()["standings"]
    champion = standings[0]["external_id"]
    final_places = {s["external_id"]: s["place"] for s in rounds[1]["tables"][0]["seats"]}
    assert final_places[champion] == 1 and standings[0]["last_round"] == 2


def test_a_casual_rated_game_rates_external_ids_and_bots_once(client: httpx.Client) -> None:
    players = [{"open": True}, {"name": "Bot", "bot": "heuristic"}]
    created = client.post("/v1/games", json={"game_type": "darjeeling", "players": players, "rated": True})
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    refused = client.post(f"/v1/games/{game_id}/join", json={"name": "Ravi"})
    assert_problem(refused, 403, "identity_required")
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Ravi", "external_id": "casual-ravi"})
    assert joined.status_code == 200, joined.text
    token = joined.json()["token"]
    resign = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))  # the bot wins at once
    assert resign.status_code == 200, resign.text
    deadline = time.monotonic() + WAIT_SECONDS
    while client.get("/v1/players/casual-ravi").status_code != 200:
        assert time.monotonic() < deadline, "the rated game was never rated"
        time.sleep(0.1)
    player = client.get("/v1/players/casual-ravi").json()
    (rating,) = player["ratings"]
    assert rating["games"] == 1 and rating["mu"] < 25.0  # resigned: ranked last, so it lost rating
    (recent,) = player["recent_games"]
    assert recent["game_id"] == game_id and recent["place"] == 2
    assert [s["external_id"] for s in recent["seats"]] == ["casual-ravi", "bot:heuristic"]
    board = client.get("/v1/ratings/darjeeling", params={"page_size": 100}).json()["ratings"]
    assert "bot:heuristic" in {line["external_id"] for line in board}
    unrated = client.post("/v1/games", json={"game_type": "darjeeling", "rated": True,
                                             "players": [{"name": "A"}, {"name": "B", "bot": "random"}]})  # fmt: skip
    assert_problem(unrated, 403, "identity_required")
    claimed = [{"name": "A", "external_id": "bot:me"}, {"name": "B"}]
    reserved = client.post("/v1/games", json={"game_type": "darjeeling", "players": claimed})
    assert_problem(reserved, 400, "bad_external_id")


def test_refusals_are_problems(client: httpx.Client) -> None:
    base = {"game_type": "darjeeling", "format": "swiss", "table_size": 3, "entrants": _bots("x", 3)}
    cases = [
        ({**base, "format": "ladder"}, "bad_format"),
        ({**base, "table_size": 9}, "bad_table_size"),
        ({**base, "game_type": "chess"}, "unknown_game_type"),
        ({**base, "entrants": _bots("x", 2)}, "bad_entrants"),
        ({**base, "entrants": [*_bots("x", 2), _bots("x", 1)[0]]}, "duplicate_entrant"),
        ({**base, "entrants": [{"external_id": "a b", "name": "A"}, *_bots("x", 2)]}, "bad_external_id"),
        ({**base, "entrants": [{"external_id": "bot:a", "name": "A", "bot": "genius"}, *_bots("x", 2)]}, "unknown_bot"),
        ({**base, "rounds": 0}, "bad_rounds"),
        ({**base, "format": "knockout", "advance": 3}, "bad_advance"),
        ({**base, "clock": {"per_turn_s": 1, "bank_s": 5}}, "bad_clock"),
        ({**base, "options": {"region": 7}}, "bad_options"),
        ({**base, "surprise": 1}, "invalid_request"),
    ]
    for body, code in cases:
        assert_problem(client.post("/v1/tournaments", json=body), 400, code)
    assert_problem(client.get("/v1/tournaments/tournament-00"), 404, "tournament_not_found")
    assert_problem(client.get("/v1/tournaments/tournament-00/standings"), 404, "tournament_not_found")
    assert_problem(client.get("/v1/ratings/chess"), 400, "unknown_game_type")
    assert_problem(client.get("/v1/ratings/darjeeling", params={"page_token": "garbage"}), 400, "bad_page_token")
    assert_problem(client.get("/v1/players/nobody-at-all"), 404, "player_not_found")
    assert_problem(client.get("/v1/players/bad%20id"), 400, "bad_external_id")
    assert_problem(client.get("/v1/tournaments", params={"status": "paused"}), 400, "bad_status")


def test_an_absent_entrant_is_resigned_by_the_game_clock(client: httpx.Client) -> None:
    """Time controls go through the game clocks: a human who never moves times out, resigns and loses."""
    entrants = [{"external_id": "clock-human", "name": "Absent"}, *_bots("clock", 1)]
    body = {"game_type": "darjeeling", "format": "swiss", "rounds": 1, "table_size": 2, "entrants": entrants,
            "seed_hex": seed_hex(3), "clock": {"per_turn_s": 1}, "on_timeout": "resign",
            "timeouts_to_resign": 1}  # fmt: skip
    created = _create(client, body)
    wait_tournament_finished(client, created["tournament_id"])
    (played,) = _rounds(client, created["tournament_id"])
    (table,) = played["tables"]
    game = client.get(f"/v1/games/{table['game_id']}").json()
    human = next(s for s in game["seats"] if s["external_id"] == "clock-human")
    assert human["resigned"] is True and game["result"]["ranking"][human["seat"]] == 2
    standings = client.get(f"/v1/tournaments/{created['tournament_id']}/standings").json()["standings"]
    assert [line["external_id"] for line in standings] == ["bot:clock0", "clock-human"]
