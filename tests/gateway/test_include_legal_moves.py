"""``?include=legal_moves`` (gateway.include): a move's answer and a game's answer carry the seat's
next legal moves, byte for byte what ``GET legal-moves`` answers at that version, so a client plays
a move with one request; a spectator gets none, a bad ``include`` is 400 ``bad_include`` and
changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from tests.support.client import assert_problem, auth, two_humans
from tests.support.stack import Gateway

GAME = "darjeeling"


def _stored(stack: dict[str, Any]) -> float:
    gateway = stack["gateway"]
    assert isinstance(gateway, Gateway)
    return float(gateway.app.state.legal_moves.stored._value.get())


def _ridden(stack: dict[str, Any]) -> float:
    """Stored answers read in the limits' own Redis round trip (no round trip of their own)."""
    gateway = stack["gateway"]
    assert isinstance(gateway, Gateway)
    return float(gateway.app.state.legal_moves.read_with_limits._value.get())


def _pick(listing: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    move = dict(rng.choice(listing["moves"]))
    move.pop("text", None)
    move.pop("costs", None)
    return move


def test_a_move_answer_and_a_game_carry_the_next_legal_moves(stack: dict[str, Any]) -> None:
    rng = random.Random(3)
    with httpx.Client(base_url=str(stack["url"])) as client:
        game_id, tokens = two_humans(client, GAME, seed=21)
        seat, listing = -1, dict[str, Any]()
        for _ in range(8):
            if not listing.get("moves"):  # the seat to act reads the game and its moves in one request
                seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
                ridden = _ridden(stack)
                game = client.get(f"/v1/games/{game_id}?include=legal_moves", headers=auth(tokens[seat])).json()
                assert _ridden(stack) == ridden + 1  # read in the limits' round trip, not one of its own
                assert game["viewer_seat"] == seat and "state" in game
                listing = game["legal_moves"]
                assert listing["version"] == game["version"]
            assert listing == client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
            assert listing["moves"], listing
            stored_before = _stored(stack)
            body = {"move": _pick(listing, rng), "expected_version": listing["version"]}
            path = f"/v1/games/{game_id}/moves?include=legal_moves"
            posted = client.post(path, json=body, headers=auth(tokens[seat]))
            assert posted.status_code == 200, posted.text
            answer = posted.json()
            if answer["status"] != "active":
                assert "legal_moves" not in answer
                break
            # The mover's next legal moves, at the answer's version, from what the commit stored.
            listing = answer["legal_moves"]
            assert listing["version"] == answer["version"]
            assert _stored(stack) == stored_before + 1
            assert listing == client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
            assert bool(listing["moves"]) == (seat in answer["to_act"])  # a turn of several steps goes on


def test_a_spectator_gets_no_legal_moves_and_a_bad_include_changes_nothing(stack: dict[str, Any]) -> None:
    with httpx.Client(base_url=str(stack["url"])) as client:
        game_id, tokens = two_humans(client, GAME, seed=22)
        watched = client.get(f"/v1/games/{game_id}?include=legal_moves")
        assert watched.status_code == 200 and "legal_moves" not in watched.json()
        plain = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
        assert "legal_moves" not in plain
        seat = plain["to_act"][0]
        listing = client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()
        body = {"move": _pick(listing, random.Random(1)), "expected_version": listing["version"]}
        for bad in ("state", "legal_moves,secrets", "legal_moves,", "", "x" * 300):
            refused = client.post(f"/v1/games/{game_id}/moves?include={bad}", json=body, headers=auth(tokens[seat]))
            assert_problem(refused, 400, "bad_include")
            read = client.get(f"/v1/games/{game_id}?include={bad}", headers=auth(tokens[seat]))
            assert_problem(read, 400, "bad_include")
        assert client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()["version"] == plain["version"]
        # A repeated name asks for the same part once.
        both = client.get(f"/v1/games/{game_id}?include=legal_moves&include=legal_moves", headers=auth(tokens[seat]))
        assert both.json()["legal_moves"] == listing
