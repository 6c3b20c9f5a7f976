"""Player pages and leaderboards that respect private play: a private game shows on a player page
only to operators and that player; an operator may make ratings readable by players only."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support import secrets
from tests.support.client import assert_problem, auth, guest, rated_guest_pair
from tests.support.stack import DirectorProcess, Gateway

WAIT_SECONDS = 60
OPERATOR = "player-pages-operator-key-0123456789"



def _private_rated_game(client: httpx.Client, asha: str, bilal: str) -> str:
    players = [{"me": True}, {"open": True, "invite": "for-bilal"}]
    created = client.post("/v1/games", json={"game_type": "darjeeling", "players": players, "rated": True,
                                             "visibility": "private"}, headers=auth(asha))  # fmt: skip
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game_id"]
    joined = client.post(f"/v1/games/{game_id}/join", json={"invite": "for-bilal"}, headers=auth(bilal))
    assert joined.status_code == 200, joined.text
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(asha)).status_code == 200
    return game_id


def _page(client: httpx.Client, player_id: str, token: str = "") -> httpx.Response:
    return client.get(f"/v1/players/{player_id}", headers=auth(token) if token else {})


def test_a_private_game_shows_on_a_player_page_only_to_that_player_and_operators(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    (asha_id, asha), (_, bilal) = rated_guest_pair(monkeypatch, client, "Asha", "Bilal")
    game_id = _private_rated_game(client, asha, bilal)
    deadline = time.monotonic() + WAIT_SECONDS
    while _page(client, asha_id).status_code != 200:
        assert time.monotonic() < deadline, "the rated game was never rated"
        time.sleep(0.1)

    def listed(token: str) -> list[str]:
        return [g["game_id"] for g in _page(client, asha_id, token).json()["recent_games"]]

    assert game_id in listed("")  # an open service: every caller without a player token is an operator
    assert game_id in listed(asha)  # her own page
    assert game_id not in listed(bilal)  # another player: her private game is not his to see
    assert _page(client, asha_id, bilal).json()["ratings"]  # the ratings themselves are public here


@pytest.fixture()
def closed(director_stack: dict[str, Any], tmp_path: Any) -> Iterator[httpx.Client]:
    """A second director whose ratings are for players and operators only, with a gateway to it."""
    services = {game: svc.address for game, svc in director_stack["services"].items()}
    secrets.remember(OPERATOR)
    private = {"CHAIWALA_PUBLIC_RATINGS": "false"}
    with (
        DirectorProcess(director_stack["redis_url"], services, tmp_path / "director.log", api_keys=OPERATOR,
                        extra_env=private) as director,  # fmt: skip
        Gateway(services, service_tournament=director.address) as gateway,
        httpx.Client(base_url=gateway.url, timeout=60) as http,
    ):
        yield http


def test_ratings_can_be_for_players_and_operators_only(closed: httpx.Client) -> None:
    asha_id, asha = guest(closed, "Asha")
    _, bilal = guest(closed, "Bilal")
    assert_problem(closed.get("/v1/ratings/darjeeling"), 401)
    assert closed.get("/v1/ratings/darjeeling", headers=auth(asha)).status_code == 200
    assert closed.get("/v1/ratings/darjeeling", headers=auth(OPERATOR)).status_code == 200
    assert_problem(_page(closed, asha_id, bilal), 403, "not_your_page")
    assert _page(closed, asha_id, asha).status_code in (200, 404)  # her own page (404 before a rated game)
