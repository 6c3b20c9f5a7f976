"""Small REST helpers for tests that talk to the real gateway."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx

from services.identity.player import guest_mark
from tests.support.seeds import seed_hex

# Bots play in the conductor, after the request that made them due: tests wait for them,
# boundedly, by polling the game (never by sleeping a fixed time).
WAIT_SECONDS = 180.0
POLL_SECONDS = 0.02


def unchunk(raw: bytes) -> bytes:
    """The body of a chunked HTTP/1.1 response, asserting every chunk is framed well and the last is there."""
    body = b""
    while True:
        size, _, raw = raw.partition(b"\r\n")
        length = int(size, 16)
        if not length:
            assert raw == b"\r\n", "bytes after the last chunk"
            return body
        body, raw = body + raw[:length], raw[length:]
        assert raw.startswith(b"\r\n"), "a chunk longer than its size"
        raw = raw[2:]


def auth(token: str) -> dict[str, str]:
    """The Authorization header for a seat token or API key."""
    return {"Authorization": f"Bearer {token}"}


def served_openapi(client: httpx.Client) -> dict[str, Any]:
    """The OpenAPI document the gateway serves (``GET /openapi.json``, asserted 200)."""
    response = client.get("/openapi.json")
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


def create_game(
    client: httpx.Client,
    game_type: str,
    players: list[dict[str, str]],
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """POST /v1/games and return the body (asserting 201)."""
    body: dict[str, Any] = {"game_type": game_type, "players": players}
    if seed is not None:
        body["seed_hex"] = seed_hex(seed)
    if options:
        body["options"] = options
    response = client.post("/v1/games", json=body, headers=headers or {})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def two_humans(client: httpx.Client, game_type: str, seed: int = 7) -> tuple[str, dict[int, str]]:
    """A new game of two human seats: its id and each seat's token."""
    created = create_game(client, game_type, [{"name": "Asha"}, {"name": "Bilal"}], seed=seed)
    return created["game_id"], {s["seat"]: s["token"] for s in created["seats"]}


def turn(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> tuple[int, dict[str, Any]]:
    """The first seat to act and its legal moves."""
    seat = client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    return seat, client.get(f"/v1/games/{game_id}/legal-moves", headers=auth(tokens[seat])).json()


def play_first_move(client: httpx.Client, game_id: str, tokens: dict[int, str]) -> httpx.Response:
    """The first seat to act plays its first legal move, pinned to the version it was listed at."""
    seat, legal = turn(client, game_id, tokens)
    body = {"move": legal["moves"][0], "expected_version": legal["version"]}
    return client.post(f"/v1/games/{game_id}/moves", json=body, headers=auth(tokens[seat]))


def assert_problem(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    """The response is problem+json with ``status`` (and ``code``)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"]
    if code is not None:
        assert body["code"] == code, body
    return body


def sse_events(response: httpx.Response) -> Iterator[dict[str, str]]:
    """Parse a text/event-stream response into ``{"id", "event", "data"}`` messages."""
    message: dict[str, str] = {}
    for line in response.iter_lines():
        done = sse_line(message, line)
        if done is not None:
            if "data" in done:
                yield done
            message = {}


async def sse_events_async(response: httpx.Response) -> AsyncIterator[dict[str, str]]:
    """:func:`sse_events` for an ``httpx.AsyncClient`` stream."""
    message: dict[str, str] = {}
    async for line in response.aiter_lines():
        done = sse_line(message, line)
        if done is not None:
            if "data" in done:
                yield done
            message = {}


def sse_line(message: dict[str, str], line: str) -> dict[str, str] | None:
    """Add one line of an event stream to ``message``; the finished message at a blank line (else ``None``)."""
    if not line:
        return message
    if line.startswith(":"):
        return None
    name, _, value = line.partition(":")
    message[name] = value[1:] if value.startswith(" ") else value
    return None


def within_rate_limit(client: httpx.Client, method: str, url: str, tries: int = 20, **kwargs: Any) -> httpx.Response:
    """The request, sent again after the ``Retry-After`` each 429 asks for, as a well-behaved client does.

    The gateway limits each token to a rate that a fast machine playing a whole game through
    REST can reach; the limit itself is tested elsewhere, so game-playing helpers wait it out.
    """
    response = client.request(method, url, **kwargs)
    for _ in range(tries):
        if response.status_code != 429:
            return response
        time.sleep(min(float(response.headers.get("Retry-After", "1")), 5.0))
        response = client.request(method, url, **kwargs)
    return response


def wait_for_game(
    client: httpx.Client,
    game_id: str,
    done: Callable[[dict[str, Any]], bool],
    headers: dict[str, str] | None = None,
    seconds: float = WAIT_SECONDS,
) -> dict[str, Any]:
    """Poll GET /v1/games/{id} until ``done(game)``; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        response = within_rate_limit(client, "GET", f"/v1/games/{game_id}", headers=headers or {})
        assert response.status_code == 200, response.text
        game: dict[str, Any] = response.json()
        if done(game):
            return game
        assert time.monotonic() < deadline, f"game {game_id} still not there after {seconds}s: {game['status']}"
        time.sleep(POLL_SECONDS)


def wait_over(client: httpx.Client, game_id: str, seconds: float = WAIT_SECONDS) -> dict[str, Any]:
    """Wait until the game is finished or aborted (the conductor plays its bots)."""
    return wait_for_game(client, game_id, lambda g: g["status"] in ("finished", "aborted"), seconds=seconds)


def wait_tournament_finished(client: httpx.Client, tournament_id: str, seconds: float = 60) -> dict[str, Any]:
    """Poll GET /v1/tournaments/{id} until it is finished; fail with its rounds after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tournament: dict[str, Any] = client.get(f"/v1/tournaments/{tournament_id}").json()
        if tournament["status"] == "finished":
            return tournament
        time.sleep(0.2)
    rounds = client.get(f"/v1/tournaments/{tournament_id}/rounds").text
    raise AssertionError(f"tournament {tournament_id} did not finish in {seconds}s: {rounds}")


def wait_for_humans(client: httpx.Client, game_id: str, humans: Any) -> dict[str, Any]:
    """Wait until one of ``humans`` (seats) is to act, or the game is over."""
    return wait_for_game(client, game_id, lambda g: g["status"] != "active" or any(s in humans for s in g["to_act"]))


def play_humans_to_end(
    client: httpx.Client, game_id: str, tokens: dict[int, str], pick: Any, max_moves: int = 20_000
) -> int:
    """Play the human seats with ``pick(moves)`` using only legal-moves and moves; return moves made."""
    game = wait_for_humans(client, game_id, tokens)
    status, to_act = game["status"], game["to_act"]
    made = tries = 0
    while status == "active":
        tries += 1
        assert made < max_moves and tries < 2 * max_moves, f"game {game_id} not over after {made} moves"
        seat = next(s for s in to_act if s in tokens)
        headers = auth(tokens[seat])
        reply = within_rate_limit(client, "GET", f"/v1/games/{game_id}/legal-moves", headers=headers)
        assert reply.status_code == 200, reply.text
        legal = reply.json()
        if not legal["moves"]:
            # The game moved on between the two reads (a bot acted): look again.
            answer = wait_for_humans(client, game_id, tokens)
            status, to_act = answer["status"], answer["to_act"]
            continue
        body = {"move": pick(legal["moves"]), "expected_version": legal["version"]}
        response = within_rate_limit(client, "POST", f"/v1/games/{game_id}/moves", json=body, headers=headers)
        if response.status_code == 409:
            # A bot acting at the same time (the conductor) moved first: look again and retry.
            answer = wait_for_humans(client, game_id, tokens)
            status, to_act = answer["status"], answer["to_act"]
            continue
        assert response.status_code == 200, response.text
        made += 1
        answer = response.json()
        if answer["status"] == "active" and not any(s in tokens for s in answer["to_act"]):
            # Bots are to act: the conductor plays them after our move, so wait for our turn.
            answer = wait_for_humans(client, game_id, tokens)
        status, to_act = answer["status"], answer["to_act"]
    return made


def guest(client: httpx.Client, name: str) -> tuple[str, str]:
    """A new guest player (``POST /v1/sessions``): their id and player token (kept out of logs)."""
    from tests.support import secrets

    session = client.post("/v1/sessions", json={"name": name})
    assert session.status_code == 201, session.text
    body: dict[str, Any] = session.json()
    secrets.remember(body["token"])
    return str(body["player_id"]), str(body["token"])


def shown_as_guest(name: str, player_id: str) -> str:
    """The name a guest who chose ``name`` is seated and listed under: with its guest mark
    (``Mira (guest 3f9a)``, :func:`services.identity.player.shown_name`)."""
    return f"{name} (guest {guest_mark(player_id.removeprefix('guest:'))})"


def rated_guests(monkeypatch: Any) -> None:
    """Let guests take rated seats in this test (``CHAIWALA_RATED_GUESTS``, read per seating): for
    tests of rated seats' mechanics, not of who may be rated."""
    monkeypatch.setenv("CHAIWALA_RATED_GUESTS", "true")


def rated_guest_pair(
    monkeypatch: Any, client: httpx.Client, first: str, second: str
) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two new guests (id and token each, as :func:`guest`) in a test that lets guests take rated
    seats (:func:`rated_guests`): the start of most tests of rated seats between two players."""
    rated_guests(monkeypatch)
    return guest(client, first), guest(client, second)
