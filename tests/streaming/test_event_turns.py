"""Every event says what the game is after it: status, seats to act, and whether it is your turn.

A client following a game from its events alone needs no ``GET /v1/games/{id}`` to know whose
turn it is (issue: a small client needed 48 reads for 214 events).
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.support.client import auth, turn, two_humans

GAME = "darjeeling"


def _play(client: httpx.Client, game_id: str, tokens: dict[int, str], moves: int) -> None:
    for _ in range(moves):
        seat, legal = turn(client, game_id, tokens)
        move = {k: v for k, v in legal["moves"][0].items() if k != "text"}
        body = {"move": move, "expected_version": legal["version"]}
        answer = client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))
        assert answer.status_code == 200, answer.text


def _events(client: httpx.Client, game_id: str, token: str | None) -> list[dict[str, Any]]:
    headers = auth(token) if token else {}
    answer = client.get(f"/v1/games/{game_id}/events", headers=headers)
    assert answer.status_code == 200, answer.text
    events: list[dict[str, Any]] = answer.json()
    return events


def test_each_event_carries_the_game_after_its_version(client: httpx.Client) -> None:
    game_id, tokens = two_humans(client, GAME)
    _play(client, game_id, tokens, 6)
    game = client.get(f"/v1/games/{game_id}").json()
    spectator = [e for e in _events(client, game_id, None) if e["version"] > 0]
    assert spectator and all(e["status"] == "active" and not e["your_turn"] for e in spectator)
    last = max(spectator, key=lambda e: (e["version"], e["index"]))
    assert last["version"] == game["version"] and last["to_act"] == game["to_act"]
    for seat, token in tokens.items():
        for event in _events(client, game_id, token):
            if event["version"] > 0:
                assert event["your_turn"] == (seat in event["to_act"])


def test_the_last_event_of_an_ended_game_says_so(client: httpx.Client) -> None:
    game_id, tokens = two_humans(client, GAME)
    _play(client, game_id, tokens, 2)
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0])).status_code == 200
    last = _events(client, game_id, tokens[1])[-1]
    assert last["kind"] == "resign" and last["status"] == "finished"
    assert last["to_act"] == [] and last["your_turn"] is False
    stream = client.get(f"/v1/games/{game_id}/events", headers={**auth(tokens[1]), "Accept": "text/event-stream"})
    assert '"status":"finished"' in stream.text.replace(" ", "")


def test_a_finished_games_stream_after_its_last_event_is_204(client: httpx.Client) -> None:
    game_id, tokens = two_humans(client, GAME)
    _play(client, game_id, tokens, 2)
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth(tokens[0])).status_code == 200
    sse = {"Accept": "text/event-stream"}
    first = client.get(f"/v1/games/{game_id}/events", headers=sse)
    assert first.status_code == 200 and "event: end" in first.text  # what is left, then end
    last_id = [line[4:] for line in first.text.splitlines() if line.startswith("id: ")][-1]
    again = client.get(f"/v1/games/{game_id}/events", headers={**sse, "Last-Event-ID": last_id})
    assert again.status_code == 204 and again.text == ""  # an EventSource stops here
    assert client.get(f"/v1/games/{game_id}/events", params={"after": last_id}, headers=sse).status_code == 204


def test_after_takes_an_event_id_like_last_event_id(client: httpx.Client) -> None:
    game_id, tokens = two_humans(client, GAME)
    _play(client, game_id, tokens, 4)
    events = _events(client, game_id, None)
    middle = events[len(events) // 2]
    event_id = f"{middle['version']}:{middle['index']}"
    by_query = client.get(f"/v1/games/{game_id}/events", params={"after": event_id}).json()
    by_header = client.get(f"/v1/games/{game_id}/events", headers={"Last-Event-ID": event_id}).json()
    assert by_query == by_header == events[len(events) // 2 + 1 :]
