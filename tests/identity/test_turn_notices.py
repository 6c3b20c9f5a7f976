"""One ``your_turn`` per turn, in every game, through the real stack (issue 41: 65 % were stale).

Two guests sit at a game of each type and play it by REST, picking legal moves at random, so turns
of several moves come up (Tea & Rum's warehouse tokens, Darjeeling's move, lay out and ship, India
Rails' build steps).  The answers to the moves say who is to act after every version; a seat's turn
is a run of versions where it stays to act.  Each player's feed must hold exactly one
``your_turn`` per turn of their seat, written at the version the turn began — none while their turn
goes on (services/lobby/feed.py, ``becoming_due``).
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from services.common.registry import available_game_types
from services.lobby.feed import becoming_due
from tests.support.client import auth, guest

MOVES = 60


def _sit(client: httpx.Client, game_type: str) -> tuple[str, dict[int, str]]:
    """A game of two guests (the creator in seat 0, the other joining seat 1): its id and tokens by seat."""
    (_, first), (_, second) = guest(client, "Asha"), guest(client, "Bilal")
    body = {"game_type": game_type, "players": [{"me": True}, {"open": True}]}
    created = client.post("/v1/games", json=body, headers=auth(first))
    assert created.status_code == 201, created.text
    game_id = str(created.json()["game_id"])
    joined = client.post(f"/v1/games/{game_id}/join", json={}, headers=auth(second))
    assert joined.status_code == 200, joined.text
    return game_id, {0: first, 1: second}


def _play(client: httpx.Client, game_id: str, tokens: dict[int, str], pick: random.Random) -> dict[int, list[int]]:
    """Play up to :data:`MOVES` random legal moves; who is to act after each version, from the answers
    (each move is one version: no bots here)."""
    start = client.get(f"/v1/games/{game_id}").json()
    after = {start["version"]: start["to_act"]}
    for _ in range(MOVES):
        if not (to_act := after[max(after)]):
            break  # the game is over
        seat = to_act[0]
        legal = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        move = {k: v for k, v in pick.choice(legal["moves"]).items() if k not in ("text", "costs")}
        body = {"move": move, "expected_version": legal["version"]}
        answer = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text
        after[answer.json()["version"]] = answer.json()["to_act"]
    return after


def _turn_starts(after: dict[int, list[int]], seat: int) -> list[int]:
    """The versions where ``seat`` became due: to act after that version, not after the one before."""
    starts, before = [], False
    for version in sorted(after):
        now = seat in after[version]
        if now and not before:
            starts.append(version)
        before = now
    return starts


def _longest_turn(after: dict[int, list[int]], seat: int) -> int:
    """The most versions in a row after which ``seat`` stayed to act."""
    longest = current = 0
    for version in sorted(after):
        current = current + 1 if seat in after[version] else 0
        longest = max(longest, current)
    return longest


def _notices(client: httpx.Client, token: str, game_id: str) -> list[dict[str, Any]]:
    feed = client.get("/v1/me/events", headers=auth(token))
    assert feed.status_code == 200, feed.text
    return [n["data"] for n in feed.json() if n["kind"] == "your_turn" and n["data"]["game_id"] == game_id]


@pytest.mark.parametrize("game_type", available_game_types())
def test_each_turn_gets_one_your_turn_at_its_start(client: httpx.Client, game_type: str) -> None:
    game_id, tokens = _sit(client, game_type)
    after = _play(client, game_id, tokens, random.Random(game_type))
    assert sorted(after) == list(range(max(after) + 1)), sorted(set(range(max(after) + 1)) - set(after))
    for seat, token in tokens.items():
        starts = _turn_starts(after, seat)
        assert starts, f"seat {seat} never got a turn in {MOVES} moves"
        told = [notice["version"] for notice in _notices(client, token, game_id)]
        assert told == starts, f"{game_type} seat {seat}: told at {told}, turns began at {starts}"
    longest = max(_longest_turn(after, seat) for seat in tokens)
    assert longest >= 2, f"{game_type}: no turn of several versions came up; the test proves nothing"


def test_the_rule_tells_a_seat_once_when_it_becomes_due() -> None:
    assert becoming_due([0], [[0], [0]], [0]) == []  # a turn of several entries goes on: nobody new
    assert becoming_due([0], [[1], [0]], [0]) == [0]  # passed and back within one commit (bots replied)
    assert becoming_due([0, 1], [[1]], [1]) == []  # one seat of a simultaneous decision acted
    assert becoming_due([1], [[0, 1]], [0, 1]) == [0]  # a simultaneous decision opens: the new seat
    assert becoming_due(None, [[0]], [0, 1]) == [0, 1]  # unknown before (an older game): everyone to act
