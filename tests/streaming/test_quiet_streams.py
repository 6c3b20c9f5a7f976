"""Streams that hold through the real stack: a player stream and a game stream left quiet.

Both are opened with stream tickets, as a browser's ``EventSource`` opens them.  For
:data:`QUIET_SECONDS` nothing happens; each stream must start with its ``retry`` field, carry
``: ping`` comments, send no ``error`` and no ``end``, and deliver the next event when it comes.  The
player stream used to fail after 10 quiet seconds (its blocking read on a Redis client whose 5 s
reply timeout was redis-py's default).  Then both streams are dropped and reopened with the same URL
and ``Last-Event-ID``, as an ``EventSource`` reconnects: the tickets were issued longer ago than
their lifetime, but a stream they opened kept them alive, so both get in again and go on from where
they were.

The tickets' lifetime is a setting (``CHAIWALA_STREAM_TICKET_SECONDS``, a minute by default): the
streams run on a gateway and a Darjeeling rules service of their own whose tickets live
:data:`TICKET_SECONDS` (the suite's Redis and conductor), so the quiet minute the contract asks a
stream to hold (issue #41: 60 quiet seconds) also outlasts three tickets' lives, the 10 s the player
stream once broke at, four ping intervals and the rules service's own 60 s keep-alive upstream.  A
22 s quiet would cover the first three at a third of the time; the minute is kept because it is
the figure the contract names.  An open player stream waits for its notices a quarter of a ticket's
life at a time (5 s here; 10 s with the default), so it renews its ticket a dozen times meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from gateway.fanout import PING_SECONDS
from services.identity.settings import IdentitySettings
from tests.support.client import auth, guest, sse_line, turn, two_humans
from tests.support.stack import ConductorProcess, rules_and_gateway

GAME = "darjeeling"
# The tickets' lifetime of this module's stack (CHAIWALA_STREAM_TICKET_SECONDS).
TICKET_SECONDS = 20
# The contract's quiet minute: past three tickets' lives, the 10 s the player stream once broke at,
# four ping intervals and the rules service's 60 s keep-alive.
QUIET_SECONDS = 62.0
OPEN_LIMITS = "500/second;1000000/hour"  # as the suite's gateway (tests/conftest.py)
SSE = {"Accept": "text/event-stream"}


@dataclass
class Heard:
    """What one stream sent: its headers, comment lines and messages, in order."""

    headers: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    failure: str = ""


def _listen(url: str, path: str, params: dict[str, str], heard: Heard, wanted: int, headers: dict[str, str]) -> None:
    """Read one stream until ``wanted`` messages came (or it ended); everything goes into ``heard``."""
    try:
        with (
            httpx.Client(base_url=url, timeout=httpx.Timeout(10, read=40)) as http,
            http.stream("GET", path, params=params, headers={**SSE, **headers}) as stream,
        ):
            heard.headers = dict(stream.headers)
            if stream.status_code != 200:
                heard.failure = f"{stream.status_code}: {stream.read().decode()}"
                return
            message: dict[str, str] = {}
            for line in stream.iter_lines():
                heard.lines.append(line)
                done = sse_line(message, line)
                if done is not None:
                    if "data" in done:
                        heard.messages.append(done)
                    message = {}
                if len(heard.messages) >= wanted or any(m.get("event") in ("end", "error") for m in heard.messages):
                    return
    except Exception as error:  # the thread's failure is the test's: reported below
        heard.failure = repr(error)


def _start(
    url: str, path: str, params: dict[str, str], wanted: int, last_id: str = ""
) -> tuple[Heard, threading.Thread]:
    heard = Heard()
    headers = {"Last-Event-ID": last_id} if last_id else {}
    thread = threading.Thread(target=_listen, args=(url, path, params, heard, wanted, headers), daemon=True)
    thread.start()
    return heard, thread


def _move(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> None:
    seat, legal = turn(client, game_id, tokens)
    body = {"move": {k: v for k, v in legal["moves"][0].items() if k != "text"}, "expected_version": legal["version"]}
    assert client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat])).status_code == 200


def _ticket(client: httpx.Client, path: str, token: str) -> str:
    answer = client.post(path, headers=auth(token))
    assert answer.status_code == 201, answer.text
    found: str = answer.json()["ticket"]
    return found


def _game_events(heard: Heard) -> list[dict[str, str]]:
    return [m for m in heard.messages if m.get("event") == "game_event"]


def _feed_position(event_id: str) -> tuple[int, int]:
    ms, seq = event_id.split("-")
    return int(ms), int(seq)


def _assert_held(heard: Heard, name: str) -> None:
    assert not heard.failure, f"{name}: {heard.failure}"
    assert heard.headers["content-type"].startswith("text/event-stream"), name
    assert heard.headers.get("x-accel-buffering") == "no", name
    assert heard.lines[0].startswith("retry: "), f"{name} does not open with its retry field: {heard.lines[:3]}"
    assert not [m for m in heard.messages if m.get("event") in ("error", "end")], f"{name}: {heard.messages}"


@pytest.fixture(scope="module")
def short_tickets(redis_url: str, conductor: ConductorProcess) -> Iterator[httpx.Client]:
    """A client of a gateway over a Darjeeling rules service whose tickets live :data:`TICKET_SECONDS`
    (the suite's Redis, whose conductor plays the bots)."""
    identity = IdentitySettings(stream_ticket_seconds=TICKET_SECONDS)
    limits = {"create_limit": OPEN_LIMITS, "session_limit": OPEN_LIMITS}
    with (
        rules_and_gateway(redis_url, GAME, identity=identity, redis_url=redis_url, **limits) as (_, gateway),
        httpx.Client(base_url=gateway.url, timeout=600) as http,
    ):
        yield http


def test_quiet_streams_ping_hold_and_reopen_with_their_tickets_past_their_lifetime(short_tickets: httpx.Client) -> None:
    assert max(TICKET_SECONDS, 10, PING_SECONDS) < QUIET_SECONDS
    client = short_tickets
    url = str(client.base_url)
    _, player_token = guest(client, "Quiet")
    game_id, tokens = two_humans(client, GAME, seed=41)
    issued = time.monotonic()
    me_ticket = _ticket(client, "/v1/me/stream-tickets", player_token)
    game_ticket = _ticket(client, f"/v1/games/{game_id}/stream-tickets", tokens[0])
    # The game's stream from its current version on: nothing until a move; the player has no notice yet.
    version = str(client.get(f"/v1/games/{game_id}").json()["version"])
    mine, mine_thread = _start(url, "/v1/me/events", {"ticket": me_ticket}, wanted=1)
    game, game_thread = _start(url, f"/v1/games/{game_id}/events", {"ticket": game_ticket, "after": version}, wanted=1)
    time.sleep(QUIET_SECONDS)
    assert mine_thread.is_alive() and game_thread.is_alive(), (mine, game)  # still open, still quiet
    pings = {"player": mine.lines.count(": ping"), "game": game.lines.count(": ping")}
    assert all(pings.values()), pings
    assert not mine.messages and not game.messages
    # Something happens: the next event reaches both open streams.
    created = client.post("/v1/games", json={"game_type": GAME, "players": [{"me": True}, {"bot": "random"}]},
                          headers=auth(player_token))  # fmt: skip
    assert created.status_code == 201, created.text
    _move(client, game_id, tokens)
    mine_thread.join(30)
    game_thread.join(30)
    _assert_held(mine, "the player stream")
    _assert_held(game, "the game stream")
    assert mine.messages[0]["event"] == "game_started"
    assert _game_events(game), game.messages
    # Dropped (the threads left), and reopened as an EventSource does: same URL, Last-Event-ID.
    assert time.monotonic() - issued > TICKET_SECONDS
    again, again_thread = _start(url, "/v1/me/events", {"ticket": me_ticket}, wanted=1, last_id=mine.messages[0]["id"])
    last_game_id = _game_events(game)[-1]["id"]
    game_again, game_again_thread = _start(url, f"/v1/games/{game_id}/events", {"ticket": game_ticket}, wanted=1,
                                           last_id=last_game_id)  # fmt: skip
    _move(client, game_id, tokens)
    again_thread.join(30)
    game_again_thread.join(30)
    _assert_held(again, "the reopened player stream")
    _assert_held(game_again, "the reopened game stream")
    assert _feed_position(again.messages[0]["id"]) > _feed_position(mine.messages[0]["id"])  # the next one
    assert again.messages[0]["event"] in ("your_turn", "game_started", "game_finished")
    assert _game_events(game_again)[0]["id"] != last_game_id  # after the last event seen, not again
