"""``GET /v1/me/games`` entries carry what a "my games" screen shows without a request per game:
the player's deadline when clocked and due, the last activity, and the result once finished."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from tests.support.client import auth, guest, wait_for_game, wait_over

GAME = "tea_rum"
TURN_SECONDS = 3600


def _instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _entry(client: httpx.Client, token: str, game_id: str) -> dict[str, Any]:
    listing = client.get("/v1/me/games", headers=auth(token))
    assert listing.status_code == 200, listing.text
    entry: dict[str, Any] = next(g for g in listing.json()["games"] if g["game_id"] == game_id)
    return entry


def _my_game(client: httpx.Client, token: str, clock: dict[str, int] | None) -> tuple[str, int]:
    body: dict[str, Any] = {"game_type": GAME, "players": [{"me": True}, {"name": "Bot", "bot": "random"}]}
    if clock:
        body["clock"] = clock
    created = client.post("/v1/games", json=body, headers=auth(token))
    assert created.status_code == 201, created.text
    return created.json()["game_id"], 0


def test_a_due_clocked_seat_shows_its_deadline_and_last_activity(client: httpx.Client) -> None:
    _, token = guest(client, "Clocked")
    game_id, seat = _my_game(client, token, {"per_turn_s": TURN_SECONDS})
    game = wait_for_game(client, game_id, lambda g: g["status"] != "active" or seat in g["to_act"])
    assert game["status"] == "active"
    entry = _entry(client, token, game_id)
    assert entry["your_turn"] is True and "result" not in entry
    started = _instant(entry["last_activity_at"])
    assert _instant(entry["created_at"]) <= started
    # The seat's turn started with the game's last change; its deadline is that plus the turn's limit.
    assert abs(_instant(entry["deadline"]) - started - TURN_SECONDS) < 0.01
    assert "clock" in game
    # Without a clock there is no deadline.
    free_id, _ = _my_game(client, token, None)
    wait_for_game(client, free_id, lambda g: g["status"] != "active" or seat in g["to_act"])
    assert "deadline" not in _entry(client, token, free_id)


def test_a_finished_game_shows_its_result_and_when_it_ended(client: httpx.Client) -> None:
    _, token = guest(client, "Resigner")
    game_id, seat = _my_game(client, token, None)
    wait_for_game(client, game_id, lambda g: g["status"] != "active" or seat in g["to_act"])
    before = _entry(client, token, game_id)
    assert "result" not in before
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(token))
    assert resigned.status_code == 200, resigned.text
    game = wait_over(client, game_id)
    assert game["status"] == "finished"
    entry = _entry(client, token, game_id)
    assert entry["result"] == game["result"]
    assert entry["result"]["winners"] == [1] and entry["result"]["ranking"] == [2, 1]
    assert "deadline" not in entry and entry["your_turn"] is False
    assert _instant(entry["last_activity_at"]) >= _instant(before["last_activity_at"])
