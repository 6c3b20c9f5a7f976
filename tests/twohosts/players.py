"""Players of the two-host test: a few threads playing Darjeeling through HAProxy, bounded in time.

Each player keeps two games going (its human seat 0 against a conductor bot on seat 1), one move at a
time.  Every move carries an ``Idempotency-Key`` and ``expected_version``, so a request whose answer
was lost is simply sent again: the server answers a repeat from its record instead of applying it
twice.  What happens to every request is counted by status (``conn`` for a connection error), and
every acknowledged move (a 200) is kept with the time it was acknowledged, to be found in the game's
log afterwards.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.client import auth
from tests.support.seeds import seed_hex

GAME = "darjeeling"
RETRIED = {429, 502, 503, 504}
REQUEST_BUDGET_SECONDS = 60.0  # one request, with its retries


@dataclass(frozen=True)
class Ack:
    """A move the server acknowledged (200)."""

    game_id: str
    expected_version: int
    move: dict[str, Any]
    at: float  # time.monotonic() of the 200
    sent: float  # time.monotonic() when the move was first sent


@dataclass
class Tally:
    """Everything the players saw, shared between their threads."""

    statuses: Counter[str] = field(default_factory=Counter)
    no_retry_after: Counter[str] = field(default_factory=Counter)
    problems: Counter[str] = field(default_factory=Counter)  # "<status> <problem code>" of every non-2xx answer
    acks: list[Ack] = field(default_factory=list)
    unknown: Counter[str] = field(default_factory=Counter)  # moves given up without an answer, per game
    games: list[tuple[str, str]] = field(default_factory=list)  # (game id, seat-0 token)
    over: set[str] = field(default_factory=set)  # games a player saw finished
    stop_at: float = 0.0  # time.monotonic() when the players stop (the test may move it)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, key: str, response: httpx.Response | None = None) -> None:
        """One answer (or connection error) more."""
        with self.lock:
            self.statuses[key] += 1
            if response is None or response.is_success:
                return
            if response.status_code == 503 and "Retry-After" not in response.headers:
                self.no_retry_after[key] += 1
            self.problems[f"{response.status_code} {problem_code(response)}"] += 1


def problem_code(response: httpx.Response) -> str:
    """The ``code`` of a problem+json answer (``-`` for any other body)."""
    if not response.headers.get("content-type", "").startswith("application/problem+json"):
        return "-"
    try:
        return str(response.json().get("code", "-"))
    except ValueError:
        return "-"


def send(client: httpx.Client, tally: Tally, method: str, url: str, **kwargs: Any) -> httpx.Response | None:
    """The request, sent again (same body, same key) after a connection error or a 429/502/503/504,
    for at most ``REQUEST_BUDGET_SECONDS``; ``None`` when no final answer came."""
    deadline = time.monotonic() + REQUEST_BUDGET_SECONDS
    while time.monotonic() < deadline:
        try:
            response = client.request(method, url, **kwargs)
        except httpx.TransportError:
            tally.count("conn")
            time.sleep(0.3)
            continue
        tally.count(str(response.status_code), response)
        if response.status_code not in RETRIED:
            return response
        time.sleep(min(float(response.headers.get("Retry-After", "0.5") or 0.5), 2.0))
    return None


def new_game(client: httpx.Client, tally: Tally, seed: int) -> tuple[str, str] | None:
    """A game of a human seat 0 against a random bot; its id and the human's token."""
    body = {
        "game_type": GAME,
        "players": [{"name": "human"}, {"name": "bot", "bot": "random"}],
        "seed_hex": seed_hex(seed),
    }
    response = send(client, tally, "POST", "/v1/games", json=body)
    if response is None or response.status_code != 201:
        return None
    created = response.json()
    token = next(seat["token"] for seat in created["seats"] if seat["seat"] == 0)
    with tally.lock:
        tally.games.append((created["game_id"], token))
    return created["game_id"], token


def step(client: httpx.Client, tally: Tally, game_id: str, token: str, chooser: random.Random) -> str:
    """One move of seat 0 when it is its turn: ``over``, ``waiting`` (the bot's turn) or ``moved``."""
    view = send(client, tally, "GET", f"/v1/games/{game_id}", headers=auth(token))
    if view is None or view.status_code != 200:
        return "waiting"
    game = view.json()
    if game["status"] != "active":
        return "over"
    if 0 not in game.get("to_act", []):
        return "waiting"
    legal = send(client, tally, "GET", f"/v1/games/{game_id}/legal-moves", headers=auth(token))
    if legal is None or legal.status_code != 200 or not legal.json().get("moves"):
        return "waiting"
    offered = legal.json()
    move = chooser.choice(offered["moves"])
    version = int(offered["version"])
    headers = {**auth(token), "Idempotency-Key": f"{game_id}-{version}"}
    body = {"move": move, "expected_version": version}
    sent = time.monotonic()
    response = send(client, tally, "POST", f"/v1/games/{game_id}/moves", json=body, headers=headers)
    if response is not None and response.status_code == 200:
        with tally.lock:
            tally.acks.append(Ack(game_id, version, move, time.monotonic(), sent))
        return "moved"
    if response is None or response.status_code >= 500:
        with tally.lock:
            tally.unknown[game_id] += 1  # it may or may not have been applied
    return "waiting"


def play(base_url: str, tally: Tally, player: int) -> None:
    """Keep two games going until ``tally.stop_at`` (time.monotonic()), starting a new one when one ends."""
    chooser = random.Random(player)
    seed = 1000 * (player + 1)
    with httpx.Client(base_url=base_url, timeout=httpx.Timeout(30.0, connect=2.0)) as client:
        games: list[tuple[str, str]] = []
        while time.monotonic() < tally.stop_at:
            while len(games) < 2 and time.monotonic() < tally.stop_at:
                seed += 1
                made = new_game(client, tally, seed)
                if made is not None:
                    games.append(made)
            moved = False
            for game in list(games):
                outcome = step(client, tally, *game, chooser)
                moved = moved or outcome == "moved"
                if outcome == "over":
                    games.remove(game)
                    with tally.lock:
                        tally.over.add(game[0])
            if not moved:
                time.sleep(0.05)  # the bots' turns: give the conductor a moment


def finish(base_url: str, tally: Tally, seconds: float) -> list[str]:
    """Seat 0 resigns every game still active (a bot plays its turns) and waits until all are over;
    the ids of the games still not finished after ``seconds``."""
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        for game_id, token in tally.games:
            view = send(client, tally, "GET", f"/v1/games/{game_id}")
            if view is not None and view.status_code == 200 and view.json()["status"] == "active":
                send(client, tally, "POST", f"/v1/games/{game_id}/resign", headers=auth(token))
        pending = [game_id for game_id, _ in tally.games]
        while pending and time.monotonic() < deadline:
            for game_id in list(pending):
                view = send(client, tally, "GET", f"/v1/games/{game_id}")
                if view is not None and view.status_code == 200 and view.json()["status"] != "active":
                    pending.remove(game_id)
            if pending:
                time.sleep(0.5)
    return pending
