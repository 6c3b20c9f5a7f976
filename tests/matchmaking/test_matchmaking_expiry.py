"""Expiry, and two matchmakers over one Redis: a second matchmaker whose tickets live one second."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.client import auth, guest
from tests.support.stack import Gateway, MatchmakerProcess
from tests.support.waiting import eventually


@pytest.fixture(scope="module")
def short_lived(mm_stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    log = tmp_path_factory.mktemp("mm2") / "matchmaker.log"
    with (
        MatchmakerProcess(mm_stack["redis_url"], mm_stack["services"], log, ticket_ttl_s="1") as matchmaker,
        Gateway(mm_stack["services"], redis_url=mm_stack["redis_url"], session_limit="500/second",
                service_matchmaking=matchmaker.address) as gateway,  # fmt: skip
        httpx.Client(base_url=gateway.url, timeout=60) as http,
    ):
        yield http


def test_a_ticket_nobody_matches_expires(short_lived: httpx.Client, clock: dict[str, int]) -> None:
    _, token = guest(short_lived, "Patient")
    body = {"game_type": "darjeeling", "player_counts": [4], "time_control": clock}
    ticket = short_lived.post("/v1/matchmaking/tickets", json=body, headers=auth(token)).json()
    seen: dict[str, Any] = {}

    def ended() -> bool:
        seen.update(short_lived.get(f"/v1/matchmaking/tickets/{ticket['ticket_id']}", headers=auth(token)).json())
        return seen["status"] != "searching"

    eventually(ended, "expired", 30)
    assert seen["status"] == "expired" and not seen["game_id"]
    # An expired ticket frees its pool.
    again = short_lived.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
    assert again.status_code == 201, again.text
    short_lived.delete(f"/v1/matchmaking/tickets/{again.json()['ticket_id']}", headers=auth(token))
