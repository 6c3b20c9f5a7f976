"""Rated pools with a platform's identities: a matchmaker trusting a platform issuer (its own process,
over the session's Redis and rules services) seats two of the platform's players in a rated game, while
a guest of the server's own issuer is refused the same pool."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from redis import Redis

from services.filing.keys import game_keys
from tests.support import secrets
from tests.support.client import assert_problem, auth, guest
from tests.support.issuer import Issuer, SigningKey
from tests.support.stack import Gateway, MatchmakerProcess
from tests.support.waiting import eventually

KEY = SigningKey.ec("mm1")


@pytest.fixture(scope="module")
def platform(mm_stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    issuer = Issuer([KEY])
    log = tmp_path_factory.mktemp("mm-rated") / "matchmaker.log"
    trusted = {"CHAIWALA_TRUSTED_ISSUERS": json.dumps([issuer.config()])}
    matchmaker = MatchmakerProcess(mm_stack["redis_url"], mm_stack["services"], log, extra_env=trusted)
    gateway = Gateway(mm_stack["services"], redis_url=mm_stack["redis_url"], session_limit="500/second",
                      service_matchmaking=matchmaker.address)  # fmt: skip
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as http:
            yield {"http": http, "issuer": issuer}
    finally:
        gateway.stop()
        matchmaker.stop()
        issuer.close()


def test_a_rated_pool_seats_platform_players_in_a_rated_game(
    platform: dict[str, Any], clock: dict[str, int], mm_stack: dict[str, Any]
) -> None:
    http, issuer = platform["http"], platform["issuer"]
    body = {"game_type": "darjeeling", "player_counts": [2], "time_control": clock, "rated": True}
    tokens = [issuer.token(KEY, sub=f"rated-{clock['per_turn_s']}-{n}") for n in range(2)]
    for token in tokens:
        secrets.remember(token)
    _, guest_token = guest(http, "Casual")
    assert_problem(http.post("/v1/matchmaking/tickets", json=body, headers=auth(guest_token)), 403,
                   "identity_not_rated")  # fmt: skip
    made = [http.post("/v1/matchmaking/tickets", json=body, headers=auth(token)) for token in tokens]
    assert [answer.status_code for answer in made] == [201, 201], [answer.text for answer in made]
    seen: dict[str, Any] = {}

    def matched() -> bool:
        for token, answer in zip(tokens, made, strict=True):
            seen[token] = http.get(f"/v1/matchmaking/tickets/{answer.json()['ticket_id']}", headers=auth(token)).json()
        return all(t["status"] == "matched" for t in seen.values())

    eventually(matched, "the rated pair matched", 30)
    (game_id,) = {t["game_id"] for t in seen.values()}
    redis = Redis.from_url(mm_stack["redis_url"])
    meta = redis.hmget(game_keys(game_id)[0], ["rated", "players"])
    redis.close()
    assert meta[0] == b"1"  # rated, as the pool says
    ids = {p["external_id"] for p in json.loads(meta[1])}
    assert ids == {f"acme:rated-{clock['per_turn_s']}-{n}" for n in range(2)}
