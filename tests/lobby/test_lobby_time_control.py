"""A game says which time control and timeout policy it was created with (issue #34, item 6).

Through the real stack (Redis, rules services, uvicorn): what ``POST /v1/games`` chose comes
back from ``GET /v1/games/{id}`` to every reader, players and spectators alike, over REST and
as the gRPC ``Game`` message; a game without a clock says so by leaving ``time_control`` out.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.client import assert_problem, auth, play_first_move

GAME = "tea_rum"
PLAYERS = [{"name": "Asha"}, {"name": "Bilal"}]


def _create(client: httpx.Client, **body: Any) -> dict[str, Any]:
    answer = client.post("/v1/games", json={"game_type": GAME, "players": PLAYERS, **body})
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


@pytest.mark.parametrize(
    ("body", "time_control", "policy", "after"),
    [
        ({"clock": {"bank_s": 300, "increment_s": 5}, "on_timeout": "resign", "timeouts_to_resign": 2},
         {"per_turn_s": 0, "bank_s": 300, "increment_s": 5}, "resign", 2),
        ({"clock": {"per_turn_s": 90}, "on_timeout": "abort"}, {"per_turn_s": 90, "bank_s": 0, "increment_s": 0},
         "abort", 3),
        ({"clock": {"bank_s": 600}}, {"per_turn_s": 0, "bank_s": 600, "increment_s": 0}, "bot", 3),
        ({}, None, "bot", 3),
    ],
)  # fmt: skip
def test_the_game_reports_the_chosen_clock_and_policy(
    client: httpx.Client, body: dict[str, Any], time_control: dict[str, int] | None, policy: str, after: int
) -> None:
    created = _create(client, **body)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    for headers in ({}, auth(token)):  # a spectator and a seat read the same choice
        game = client.get(f"/v1/games/{game_id}", headers=headers).json()
        assert game.get("time_control") == time_control
        assert game["on_timeout"] == policy and game["timeouts_to_resign"] == after
        assert ("clock" in game) == (time_control is not None)


def test_the_time_control_stays_as_chosen_while_the_bank_runs(client: httpx.Client) -> None:
    """The bank counts down (``clock.remaining_s``); the time control is what was chosen, unchanged."""
    created = _create(client, clock={"bank_s": 120, "increment_s": 3})
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    moved = play_first_move(client, game_id, tokens)  # the seat to act: ``seat``
    assert moved.status_code == 200, moved.text
    after = client.get(f"/v1/games/{game_id}").json()
    assert after["time_control"] == {"per_turn_s": 0, "bank_s": 120, "increment_s": 3}
    assert after["clock"]["remaining_s"][str(seat)] <= 123


def test_a_policy_the_api_does_not_offer_is_refused_and_makes_no_game(client: httpx.Client) -> None:
    before = client.get("/v1/games", params={"page_size": 100}).json()["games"]
    refused = client.post(
        "/v1/games", json={"game_type": GAME, "players": PLAYERS, "clock": {"per_turn_s": 30}, "on_timeout": "pause"}
    )
    assert_problem(refused, 400, "bad_on_timeout")
    after = client.get("/v1/games", params={"page_size": 100}).json()["games"]
    assert [g["game_id"] for g in after] == [g["game_id"] for g in before]
