"""A game is one registered unit: Pile, a test-only game, plays through the whole real stack.

Pile (tests/support/tinygame) changes no line outside its folder: this module compiles its proto
into a temporary directory, registers it in this process (its rules service and the gateway run
here) and names it to a real conductor process through ``CHAIWALA_GAME_UNITS``, on a Redis of its
own.  Then REST creates a game with a bot seat, a human plays it over REST, the conductor plays the
bot, the events come over SSE with the other seat's secret redacted, and the replay re-plays it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from tests.support.client import auth, create_game, play_humans_to_end, sse_events, wait_over
from tests.support.tinygame.stack import GAME, pile_stack


@pytest.fixture(scope="module")
def pile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Pile's gateway, over its own rules service, conductor and Redis."""
    with pile_stack(tmp_path_factory.mktemp("tinygame")) as running:
        yield str(running["url"])


@pytest.fixture
def pile(pile_url: str) -> Iterator[httpx.Client]:
    """An HTTP client of Pile's gateway."""
    with httpx.Client(base_url=pile_url, timeout=60) as client:
        yield client


def test_the_registered_game_is_listed_with_the_generic_table(pile: httpx.Client) -> None:
    listed = pile.get("/v1/game-types").json()
    assert [t["id"] for t in listed] == [GAME]
    assert listed[0]["name"] == "Pile" and listed[0]["bots"] == ["random"]
    assert listed[0].get("table", "") == ""  # no table module of its own: the web client's generic one
    assert listed[0]["options"]["pile"] == 7


def test_bad_options_are_refused_and_change_nothing(pile: httpx.Client) -> None:
    before = pile.get("/v1/games", params={"game_type": GAME}).json()
    answer = pile.post("/v1/games", json={"game_type": GAME, "players": [{"name": "A"}, {"name": "B"}],
                                          "options": {"pile": 99}})  # fmt: skip
    assert answer.status_code == 400 and answer.json()["code"] == "bad_pile"
    assert pile.get("/v1/games", params={"game_type": GAME}).json() == before


def test_a_human_and_a_conductor_bot_play_it_to_the_end(pile: httpx.Client) -> None:
    created = create_game(pile, GAME, [{"name": "Asha"}, {"name": "Robo", "bot": "random"}], seed=11,
                          options={"pile": 12})  # fmt: skip
    game_id = created["game_id"]
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"] if seat.get("token")}
    assert list(tokens) == [0]
    mine = pile.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    secret = mine["state"]["holders"][0]["secret"]
    assert 1 <= secret <= 9 and not mine["state"]["holders"][1].get("secret")  # the bot's secret is hidden

    made = play_humans_to_end(pile, game_id, tokens, lambda moves: moves[-1])  # always take the most
    game = wait_over(pile, game_id)
    assert game["status"] == "finished" and made >= 1
    state = game["state"]
    assert state["pile"] == 0 and sum(holder.get("taken", 0) for holder in state["holders"]) == 12
    assert game["result"]["winners"] == [state.get("winner", 0)]

    # The replay lists every move, the bot's named; the last taker is the winner.
    replay = pile.get(f"/v1/games/{game_id}/replay").json()
    moves = replay["moves"]
    assert len(moves) == game["version"] and {move.get("bot", "") for move in moves} == {"", "random"}
    assert sum(move["move"]["take"]["count"] for move in moves) == 12
    assert moves[-1].get("seat", 0) == state.get("winner", 0)

    stream = pile.get(f"/v1/games/{game_id}/events", headers={**auth(tokens[0]), "Accept": "text/event-stream"})
    assert stream.status_code == 200
    messages = list(sse_events(stream))
    events = [json.loads(message["data"]) for message in messages if message.get("event") != "end"]
    took = [event["event"]["took"] for event in events if "took" in event.get("event", {})]
    assert [entry.get("count", 0) for entry in took] == [move["move"]["take"]["count"] for move in moves]
    spectator = pile.get(f"/v1/games/{game_id}/events", headers={"Accept": "text/event-stream"}).text
    assert f'"secret":{secret}' not in spectator.replace(" ", "")  # no seat's secret reaches a spectator
    watched = pile.get(f"/v1/games/{game_id}").json()
    assert all(not holder.get("secret") for holder in watched["state"]["holders"])
