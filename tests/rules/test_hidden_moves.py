"""Versions that reveal nothing (issue #13, item 5), through the real stack.

Two Tea & Rum games from the same operator seed, played move for move alike by their two human
seats up to the secret end-game exchange; there seat 0 buys two VP for $20 in one game and
nothing in the other.  What the other seat and a spectator can read afterwards must be the same
in both games, field by field: the game as they see it (version, who is to act, the state), the
opponent's legal moves, the event list with every event id and its count, the live SSE stream
(ids and data), and the response headers.  Left out, each for a reason:

* ``game_id``, ``created_at``, ``seed_commitment``: two games never share them.
* ``log_head`` and each event's ``hash``: the hash chain starts from a genesis over the game id
  and commitment, so it differs between any two games; it commits to each move behind the digest
  of the snapshot it produced, which holds the RNG state and decks no viewer can see, so it
  cannot be used to test guesses of the hidden move.
* timings: not measurable as data (and a benchmark's business, not a test's).

Seat 0's own view shows the two games did differ (its money and exchanged VP), so the comparison
is not between two identical games.  The moves are worked out locally with the same engine and
seed (the server uses an operator's seed as is), then posted in batches, one per run of a seat's
moves, each pinned to the version it was made for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from services.common.engine import RandomBot
from services.common.registry import engine_for
from services.common.rng import Seed
from services.common.runner import Match
from tests.support.client import auth, create_game, sse_events, within_rate_limit

GAME = "tea_rum"
SEED = 3  # seat 0 reaches the exchange with $28: it can buy up to two VP
MOVE_TYPE = "type.googleapis.com/chaiwala.tea_rum.v1.Move"
BATCH = 200  # the most moves one submission may carry
# Headers that differ between any two answers (or any two games) whatever was played.  The ETag is
# the digest of the answer's bytes (gateway.conditional), which hold PER_GAME_FIELDS: it differs
# between twins, and it is computed from what this viewer receives, so it tells nothing the body does not.
VARYING_HEADERS = {"date", "content-length", "x-request-id", "etag"}
PER_GAME_FIELDS = ("game_id", "created_at", "seed_commitment", "log_head")


def moves_to_the_exchange() -> list[tuple[int, dict[str, Any]]]:
    """Every (seat, move) from the set-up of the seeded game to the secret exchange."""
    engine = engine_for(GAME)
    match = Match.start(engine, 2, Seed(SEED))  # the generator the service gives an operator's seed
    played: list[tuple[int, dict[str, Any]]] = []
    while match.state["phase"] != "exchange":
        assert engine.result(match.state) is None, "the seeded game ended before its exchange"
        seat = match.to_act()[0]
        move = match.bot_move(RandomBot(), seat, len(played))
        match.play(seat, move)
        played.append((seat, move))
    assert match.state["players"][0]["money"] >= 20
    return played


def batches(played: list[tuple[int, dict[str, Any]]]) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """Consecutive moves of one seat, at most :data:`BATCH` at a time."""
    start = 0
    while start < len(played):
        seat, end = played[start][0], start
        while end < len(played) and played[end][0] == seat and end - start < BATCH:
            end += 1
        yield seat, [move for _, move in played[start:end]]
        start = end


class Twin:
    """One of the two games: its id, its seats' tokens, and its version as last posted."""

    def __init__(self, http: httpx.Client) -> None:
        self.http = http
        created = create_game(http, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=SEED)
        self.game_id: str = created["game_id"]
        self.tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        self.version: int = created["version"]
        self.created_version = self.version

    def post(self, seat: int, moves: list[dict[str, Any]]) -> None:
        """Submit ``moves`` of ``seat`` at once, pinned to the current version."""
        body = {"moves": [{"@type": MOVE_TYPE, **move} for move in moves], "expected_version": self.version}
        url, headers = f"/v1/games/{self.game_id}/moves", auth(self.tokens[seat])
        answer = within_rate_limit(self.http, "POST", url, json=body, headers=headers)
        assert answer.status_code == 200, answer.text
        self.version = answer.json()["version"]

    def headers(self, viewer: int | None) -> dict[str, str]:
        """The viewer's credentials: a seat token, or none for a spectator."""
        return {} if viewer is None else auth(self.tokens[viewer])

    def public(self, viewer: int | None) -> dict[str, Any]:
        """Everything ``viewer`` can read of the game now, less what differs between any two games."""
        headers = self.headers(viewer)
        game = self.http.get(f"/v1/games/{self.game_id}", headers=headers)
        events = self.http.get(f"/v1/games/{self.game_id}/events", params={"after": 0}, headers=headers)
        assert game.status_code == events.status_code == 200, (game.text, events.text)
        seen: dict[str, Any] = {
            "game": {k: v for k, v in game.json().items() if k not in PER_GAME_FIELDS},
            "game_headers": _stable_headers(game),
            "events": [_without_hash(event) for event in events.json()],
            "events_headers": _stable_headers(events),
            "stream": self.stream(viewer, len(events.json())),
        }
        if viewer is not None:
            legal = self.http.get(f"/v1/games/{self.game_id}/legal-moves", headers=headers)
            seen["legal_moves"] = legal.json()
        return seen

    def stream(self, viewer: int | None, count: int) -> list[dict[str, Any]]:
        """The first ``count`` messages of the live SSE stream from the start (ids and data)."""
        headers = {"Accept": "text/event-stream", **self.headers(viewer)}
        messages = []
        url = f"/v1/games/{self.game_id}/events"
        with self.http.stream("GET", url, params={"after": 0}, headers=headers, timeout=30) as response:
            assert response.status_code == 200
            for message in sse_events(response):
                assert message.get("event") == "game_event", message
                data = httpx.Response(200, content=message["data"]).json()
                messages.append({"id": message["id"], "data": _without_hash(data)})
                if len(messages) == count:
                    break
        return messages


def _without_hash(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "hash"}


def _stable_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.lower() not in VARYING_HEADERS}


@pytest.fixture(scope="module")
def http(stack: dict[str, Any]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=str(stack["url"]), timeout=60) as client:
        yield client


def test_a_secret_exchange_leaves_no_trace_in_what_the_others_can_read(http: httpx.Client) -> None:
    played = moves_to_the_exchange()
    bought, none = Twin(http), Twin(http)
    for twin in (bought, none):
        for seat, moves in batches(played):
            twin.post(seat, moves)
    assert bought.version == none.version == bought.created_version + len(played)  # one version per move
    assert bought.public(None) == none.public(None)  # the same position, before any exchange

    bought.post(0, [{"exchange_vp": {"blue": 1, "red": 1}}])
    none.post(0, [{"exchange_vp": {"blue": 0, "red": 0}}])

    own = [twin.http.get(f"/v1/games/{twin.game_id}", headers=twin.headers(0)).json() for twin in (bought, none)]
    mine = [game["state"]["players"][0] for game in own]
    assert (mine[0]["exchanged_blue"], mine[0]["exchanged_red"]) == (1, 1)
    assert (mine[1]["exchanged_blue"], mine[1]["exchanged_red"]) == (0, 0)
    assert mine[0]["money"] == mine[1]["money"] - 20
    # The comparison below can tell the games apart: seat 0 itself reads two different games.
    assert bought.public(0)["events"] != none.public(0)["events"]
    for viewer in (None, 1):
        seen_bought, seen_none = bought.public(viewer), none.public(viewer)
        for field in seen_bought:
            assert seen_bought[field] == seen_none[field], f"{field} differs for viewer {viewer}"
        assert seen_bought["game"]["version"] == bought.version
        assert seen_bought["stream"][-1]["id"].startswith(f"{bought.version}:")
