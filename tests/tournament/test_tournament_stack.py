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

WAIT_SECONDS = 240.0


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/tournaments", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    assert created["status"] == "running"
    assert [e["external_id"] for e in created["entrants"]] == [e["external_id"] for e in body["entrants"]]
    return created


def _wait_finished(client: httpx.Client, tournament_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        tournament: dict[str, Any] = client.get(f"/v1/tournaments/{tournament_id}").json()
        if tournament["status"] == "finished":
            return tournament
        time.sleep(0.2)
    rounds = client.get(f"/v1/tournaments/{tournament_id}/rounds").text
    raise AssertionError(f"tournament {tournament_id} did not finish: {rounds}")


def _bots(prefix: str, count: int) -> list[dict[str, str]]:
    return [{"external_id": f"{prefix}{i}", "name": f"Bot {prefix}{i}", "bot": "heuristic"} for i in range(count)]


def _swiss(prefix: str) -> dict[str, Any]:
    return {"game_type": "darjeeling", "format": "swiss", "rounds": 3, "table_size": 3,
            "entrants": _bots(prefix, 9), "seed": 20261201}  # fmt: skip


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
    tournament = _wait_finished(client, first["tournament_id"])
    _wait_finished(client, second["tournament_id"])
    assert tournament["round"] == 3 and tournament["seed"] == 20261201 and tournament["seed_source"] == "operator"
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
        return [[[(s["external_id"][1:], s["place"]) for s in t["seats"]] for t in r["tables"]] for r in rounds]

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
    assert set(board["ratings"][0]) == {"external_id", "name", "ordinal", "mu", "sigma", "games"}
    # the outbox: one round_started per round, one tournament.finished, one rating.updated per game
    events = _outbox(director_stack_redis(director_stack))
    mine = [e for e in events if e["data"].get("tournament_id") == first["tournament_id"]]
    assert sorted(e["type"] for e in mine) == ["tournament.finished"] + ["tournament.round_started"] * 3
    games = {t["game_id"] for r in rounds for t in r["tables"]}
    rated = [e for e in events if e["type"] == "rating.updated" and e["data"]["game_id"] in games]
    assert len(rated) == 9 and len({e["data"]["game_id"] for e in rated}) == 9


def director_stack_redis(director_stack: dict[str, Any]) -> str:
    service = next(iter(director_stack["services"].values()))
    kwargs = service.store.redis.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"
