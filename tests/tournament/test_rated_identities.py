"""Ratings only for identities worth rating, through the real stack (rules services, gateway, the
director process): the farming run of the trust review — two free guests playing rated game after
rated game — ends with guests unrated, or, where an operator allows rated guests, with the day's
pair cap holding the gain; leaderboards show each player's issuer and mark provisional ratings."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest

from tests.support.client import assert_problem, auth, guest, rated_guests

WAIT_SECONDS = 60
FARMED_GAMES = 12
PAIR_CAP = 5  # the director's default CHAIWALA_RATED_PAIR_GAMES_PER_DAY


def _create(client: httpx.Client, token: str, players: list[dict[str, Any]], **extra: Any) -> httpx.Response:
    body = {"game_type": "darjeeling", "players": players, **extra}
    return client.post("/v1/games", json=body, headers=auth(token) if token else {})


def _farm_once(client: httpx.Client, farmer: str, mule: str) -> str:
    """One rated game the mule joins and resigns at once: the farmer wins."""
    created = _create(client, farmer, [{"me": True}, {"open": True}], rated=True)
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game_id"]
    assert client.post(f"/v1/games/{game_id}/join", json={}, headers=auth(mule)).status_code == 200
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(mule)).status_code == 200
    return game_id


def _rated_games(client: httpx.Client, player_id: str) -> int:
    page = client.get(f"/v1/players/{player_id}")
    if page.status_code == 404:
        return 0
    assert page.status_code == 200, page.text
    return sum(int(r["games"]) for r in page.json()["ratings"])


def _settled(client: httpx.Client, game_ids: list[str]) -> None:
    """Wait until the director has seen every game (each finished game is marked once it is)."""
    deadline = time.monotonic() + WAIT_SECONDS
    for game_id in game_ids:
        while client.get(f"/v1/games/{game_id}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_guests_are_refused_rated_seats_and_tournaments_by_default(client: httpx.Client) -> None:
    guest_id, token = guest(client, "Farmer")
    _, other = guest(client, "Mule")
    assert_problem(_create(client, token, [{"me": True}, {"open": True}], rated=True), 403, "identity_not_rated")
    seated = _create(client, "", [{"name": "Farmer", "external_id": guest_id}, {"open": True}], rated=True)
    assert_problem(seated, 403, "identity_not_rated")  # an operator cannot rate a guest either
    platform = f"acme:{uuid.uuid4().hex[:8]}"
    rated = _create(client, "", [{"name": "Platform player", "external_id": platform}, {"open": True}], rated=True)
    assert rated.status_code == 201, rated.text
    game_id = rated.json()["game_id"]
    assert_problem(client.post(f"/v1/games/{game_id}/join", json={}, headers=auth(other)), 403, "identity_not_rated")
    assert client.get(f"/v1/games/{game_id}").json()["status"] == "waiting"  # nothing changed
    entrants = [{"external_id": guest_id, "name": "Farmer"}, {"external_id": platform, "name": "P"}]
    body = {"game_type": "darjeeling", "format": "round_robin", "entrants": entrants}
    assert_problem(client.post("/v1/tournaments", json=body), 403, "identity_not_rated")
    casual = _create(client, token, [{"me": True}, {"open": True}])  # guests play casual games
    assert casual.status_code == 201, casual.text


def test_the_farming_run_gains_at_most_the_pair_cap(client: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    rated_guests(monkeypatch)  # the operator allows rated guests: the pair cap is what holds
    farmer_id, farmer = guest(client, "Farmer")
    mule_id, mule = guest(client, "Mule")
    games = [_farm_once(client, farmer, mule) for _ in range(FARMED_GAMES)]
    _settled(client, games)
    deadline = time.monotonic() + WAIT_SECONDS
    while _rated_games(client, farmer_id) < PAIR_CAP:
        assert time.monotonic() < deadline, "the farmed games were never rated"
        time.sleep(0.1)
    # One more game with a third player still counts: the cap is per pair, not per player.
    _, third = guest(client, "Third")
    last = _farm_once(client, farmer, third)
    while _rated_games(client, farmer_id) < PAIR_CAP + 1:
        assert time.monotonic() < deadline, "the third player's game was never rated"
        time.sleep(0.1)
    _settled(client, [last])
    page = client.get(f"/v1/players/{farmer_id}").json()
    (rating,) = page["ratings"]
    assert rating["games"] == PAIR_CAP + 1 and _rated_games(client, mule_id) == PAIR_CAP
    assert page["issuer"] == "guest" and rating["issuer"] == "guest"
    assert rating["provisional"] is True  # six games: too few to be settled
    board = client.get("/v1/ratings/darjeeling", params={"page_size": 100}).json()["ratings"]
    assert all("issuer" in r and "provisional" in r for r in board)

