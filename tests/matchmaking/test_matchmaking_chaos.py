"""Chaos for quick play: 200 tickets across pools while the matchmaker is killed with SIGKILL again and
again (restarted each time on the same ports, as a supervisor would).

At the end every ticket is matched exactly once, cancelled or expired; every game a player sits in is the
game of exactly one of their matched tickets (nobody in two games from one ticket, no game made twice for
one group); and every human seat of those games belongs to a player whose ticket names that game and seat.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.client import auth, guest
from tests.support.stack import Gateway, MatchmakerProcess
from tests.support.waiting import eventually

GAME = "darjeeling"
PLAYERS = 50
# Four pools per player (one ticket each): 200 tickets.  Sizes, waits and bots differ by pool.
POOLS: list[dict[str, Any]] = [
    {"player_counts": [2], "time_control": {"per_turn_s": 901}},
    {"player_counts": [2, 3], "time_control": {"per_turn_s": 902}},
    {"player_counts": [3, 4], "time_control": {"per_turn_s": 903}, "bots_after_seconds": 2, "bot": "random"},
    {"player_counts": [4], "time_control": {"per_turn_s": 904}},
]
KILLS = 5


@pytest.fixture(scope="module")
def chaos(mm_stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    log = tmp_path_factory.mktemp("mm-chaos") / "matchmaker.log"
    matchmaker = MatchmakerProcess(mm_stack["redis_url"], mm_stack["services"], log, ticket_ttl_s="15")
    gateway = Gateway(mm_stack["services"], redis_url=mm_stack["redis_url"], session_limit="1000/second",
                      service_matchmaking=matchmaker.address)  # fmt: skip
    try:
        yield {"url": gateway.url, "matchmaker": matchmaker}
    finally:
        gateway.stop()
        matchmaker.stop()


def _made_before(http: httpx.Client, token: str, pool: dict[str, Any]) -> str | None:
    """The player's ticket in ``pool`` if a call cut short made one (``None``: none; the matchmaker may
    still be down, so this is asked again until it answers)."""
    while True:
        answer = http.get("/v1/me/tickets", headers=auth(token))
        if answer.status_code == 200:
            per_turn = pool["time_control"]["per_turn_s"]
            mine = [t for t in answer.json()["tickets"] if t["time_control"]["per_turn_s"] == per_turn]
            return str(mine[0]["ticket_id"]) if mine else None
        assert answer.status_code in (503, 504), answer.text
        time.sleep(0.1)


def _ask(http: httpx.Client, token: str, pool: dict[str, Any]) -> str:
    """Make a ticket, asking again through a matchmaker's death: a call cut short (503, 504) may or may
    not have made it (and it may even be matched already), so the player's tickets say which."""
    body = {"game_type": GAME, **pool}
    while True:
        answer = http.post("/v1/matchmaking/tickets", json=body, headers=auth(token))
        if answer.status_code == 201:
            return str(answer.json()["ticket_id"])
        assert answer.status_code in (503, 504), answer.text
        made = _made_before(http, token, pool)
        if made is not None:
            return made
        time.sleep(0.1)


def _create_all(url: str, players: list[tuple[str, str]], made: list[tuple[str, str, str]], rng: random.Random) -> None:
    """Every player asks in every pool (in a shuffled order), cancelling now and then."""
    asks = [(player, pool) for player in players for pool in POOLS]
    rng.shuffle(asks)
    with httpx.Client(base_url=url, timeout=60) as http:
        for (player_id, token), pool in asks:
            ticket_id = _ask(http, token, pool)
            made.append((player_id, token, ticket_id))
            if rng.random() < 0.1:
                cancelled = http.delete(f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(token))
                assert cancelled.status_code in (200, 409, 503, 504), cancelled.text


@pytest.mark.chaos
def test_tickets_survive_a_matchmaker_killed_again_and_again(chaos: dict[str, Any]) -> None:
    rng = random.Random(45)
    url, matchmaker = chaos["url"], chaos["matchmaker"]
    with httpx.Client(base_url=url, timeout=60) as http:
        players = [guest(http, f"Chaos {n}") for n in range(PLAYERS)]
    made: list[tuple[str, str, str]] = []
    creator = threading.Thread(target=_create_all, args=(url, players, made, rng))
    creator.start()
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.3, 1.5))
        matchmaker.kill()
        matchmaker.start()
    creator.join(timeout=300)
    count = len(made)  # (not `made` itself in the assertion: it holds tokens)
    assert not creator.is_alive() and count == PLAYERS * len(POOLS), count
    with httpx.Client(base_url=url, timeout=60) as http:
        tickets = _settled(http, made)
        _check_games(http, players, tickets)


def _settled(http: httpx.Client, made: list[tuple[str, str, str]]) -> dict[str, dict[str, Any]]:
    """Every ticket once none is searching any more (the ticket lifetime bounds the wait)."""
    tickets: dict[str, dict[str, Any]] = {}

    def done() -> bool:
        for player_id, token, ticket_id in made:
            if tickets.get(ticket_id, {}).get("status", "searching") == "searching":
                answer = http.get(f"/v1/matchmaking/tickets/{ticket_id}", headers=auth(token))
                if answer.status_code == 200:
                    tickets[ticket_id] = {**answer.json(), "player_id": player_id}
        return all(tickets.get(t, {}).get("status", "searching") != "searching" for _, _, t in made)

    eventually(done, "every ticket settled", 120, step=0.5)
    statuses = Counter(t["status"] for t in tickets.values())
    assert set(statuses) <= {"matched", "cancelled", "expired"} and statuses["matched"] > 0, statuses
    return tickets


def _check_games(http: httpx.Client, players: list[tuple[str, str]], tickets: dict[str, dict[str, Any]]) -> None:
    matched = [t for t in tickets.values() if t["status"] == "matched"]
    for player_id, token in players:
        mine = [t for t in matched if t["player_id"] == player_id]
        games = [g["game_id"] for g in http.get("/v1/me/games", headers=auth(token)).json()["games"]]
        # One game per matched ticket, and no game that no ticket of theirs names.
        assert sorted(games) == sorted(t["game_id"] for t in mine), player_id
    by_game: dict[str, list[dict[str, Any]]] = {}
    for ticket in matched:
        by_game.setdefault(ticket["game_id"], []).append(ticket)
    for game_id, group in by_game.items():
        seats = http.get(f"/v1/games/{game_id}").json()["seats"]
        humans = {seat["seat"]: seat["external_id"] for seat in seats if not seat["bot"]}
        assert humans == {t["seat"]: t["player_id"] for t in group}, game_id  # every human seat is a ticket's
        assert not any(seat["open"] for seat in seats)
