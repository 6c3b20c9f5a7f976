"""The chaos suite's clients: each plays tables with random legal moves, every submission pinned.

A :class:`Player` is a thread with its own HTTP client.  It creates a table (a game whose seats
it holds, some of them bots played by the conductor), and plays it: the seat to act reads its
legal moves and submits one at random with ``expected_version`` (and, for a *keyed* player, an
``Idempotency-Key``), as a careful client would.  A 503 or a transport error (connection refused,
reset, timed out) is retried with the very same submission after a short pause; a 409 means the
game moved on, so the player reads it again.  Every answer is counted, every acknowledged
submission remembered, with the moment it was acknowledged, so that the suite can check the
games' logs afterwards and measure how long each fault kept moves from being acknowledged.

A player keeps starting new tables until the chaos is over, then plays its last table to the end.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.client import auth
from tests.support.seeds import seed_hex

# What a client may see while components die: answers, conflicts, "come back later", broken
# connections.  Anything else (a 500, a 502, a 422 for a legal move, a 404 for a known game) is a bug.
EXPECTED = {"200", "201", "409", "503", "transport"}
RETRY_PAUSE = 0.1  # seconds; finer than the 1 s Retry-After, so recovery is measured closely
REQUEST_TIMEOUT = 20.0
POLL = 0.05


@dataclass
class Intent:
    """One submission as the client meant it: this move, by this seat, on this version."""

    seat: int
    basis: int
    move: dict[str, Any]
    key: str | None
    acked: int | None = None  # the version its 200 answer reported


@dataclass
class Table:
    """A game one player holds, and everything it submitted to it."""

    game_id: str
    tokens: dict[int, str]
    keyed: bool
    intents: list[Intent] = field(default_factory=list)
    status: str = "active"


class Observations:
    """What all players saw, shared between their threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[str] = Counter()
        self.unexpected: list[str] = []
        # (since, seen): a human submission last sent at ``since`` acknowledged at ``seen``, or a
        # bot move that was not there at ``since`` and was at ``seen`` (monotonic seconds).
        self.acks: list[tuple[float, float, str]] = []  # (since, seen, game type)
        self.bot_moves: list[tuple[float, float, str]] = []

    def answer(self, label: str, detail: str) -> None:
        """Count one answer (a status code, or ``transport``)."""
        with self.lock:
            self.statuses[label] += 1
            if label not in EXPECTED:
                self.unexpected.append(f"{label}: {detail[:300]}")

    def acked(self, sent: float, game_type: str) -> None:
        """A human submission sent at ``sent`` was acknowledged just now."""
        with self.lock:
            self.acks.append((sent, time.monotonic(), game_type))

    def bot_moved(self, absent: float, game_type: str) -> None:
        """A bot's move, not there at ``absent``, was seen just now."""
        with self.lock:
            self.bot_moves.append((absent, time.monotonic(), game_type))

    def first_after(self, moment: float, bots: bool = False, game_type: str = "") -> float | None:
        """Seconds from ``moment`` to the first move certainly made after it: a human submission
        sent after it and acknowledged, or a bot move that was not there yet after it (of
        ``game_type`` only, if given)."""
        with self.lock:
            moves = self.bot_moves if bots else self.acks
            later = [seen for since, seen, game in moves if since > moment and game_type in ("", game)]
        return min(later) - moment if later else None


class GaveUp(RuntimeError):
    """A request kept failing past the player's deadline."""


class Player(threading.Thread):
    """One client thread playing its tables (see the module docstring)."""

    def __init__(
        self,
        url: str,
        api_key: str,
        game_type: str,
        players: list[dict[str, str]],
        keyed: bool,
        seed: int,
        seen: Observations,
        chaos_over: threading.Event,
        deadline: float,
    ) -> None:
        super().__init__(daemon=True, name=f"player-{seed}")
        self.http = httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT)
        self.api_key, self.game_type, self.players, self.keyed = api_key, game_type, players, keyed
        self.rng = random.Random(seed)
        self.seen, self.chaos_over, self.deadline = seen, chaos_over, deadline
        self.tables: list[Table] = []
        self.failure: BaseException | None = None
        self.sent = 0.0

    def run(self) -> None:
        """Play tables until the chaos is over and the last one has ended."""
        try:
            while True:
                table = self._new_table()
                self.tables.append(table)
                self._play(table)
                if self.chaos_over.is_set():
                    return
        except BaseException as error:  # reported by the test, which joins every player
            self.failure = error
        finally:
            self.http.close()

    # ---------------------------------------------------------------------------------------------
    # requests

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send until the answer is neither a 503 nor a transport error; count every attempt.

        ``self.sent`` is when the last attempt went out."""
        while True:
            if time.monotonic() > self.deadline:
                raise GaveUp(f"{method} {path} still failing at the deadline")
            self.sent = time.monotonic()
            try:
                response = self.http.request(method, path, **kwargs)
            except httpx.TransportError as error:
                self.seen.answer("transport", f"{method} {path}: {error!r}")
                time.sleep(RETRY_PAUSE)
                continue
            self.seen.answer(str(response.status_code), f"{method} {path}: {response.text}")
            if response.status_code != 503:
                return response
            time.sleep(RETRY_PAUSE)

    def _new_table(self) -> Table:
        body = {"game_type": self.game_type, "players": self.players, "seed_hex": seed_hex(self.rng.randrange(2**31))}
        response = self._request("POST", "/v1/games", json=body, headers=auth(self.api_key))
        if response.status_code != 201:
            raise AssertionError(f"create: {response.status_code} {response.text}")
        created = response.json()
        humans = [seat for seat in created["seats"] if not seat.get("bot") and seat.get("token")]
        tokens = {seat["seat"]: seat["token"] for seat in humans}
        return Table(created["game_id"], tokens, self.keyed)

    def _game(self, table: Table) -> dict[str, Any]:
        response = self._request("GET", f"/v1/games/{table.game_id}")
        if response.status_code != 200:
            raise AssertionError(f"read {table.game_id}: {response.status_code} {response.text}")
        game: dict[str, Any] = response.json()
        return game

    # ---------------------------------------------------------------------------------------------
    # play

    def _play(self, table: Table) -> None:
        game = self._game(table)
        while game["status"] == "active":
            humans = [seat for seat in game["to_act"] if seat in table.tokens]
            if not humans:
                game = self._wait_for_bots(table, game["version"])
                continue
            answer = self._move(table, humans[0])
            game = answer if answer is not None else self._game(table)
        table.status = game["status"]

    def _wait_for_bots(self, table: Table, version: int) -> dict[str, Any]:
        """Poll until the bots (the conductor) have moved the game past ``version``."""
        absent = self.sent  # the read that showed ``version`` went out then
        while True:
            game = self._game(table)
            if game["version"] != version:
                self.seen.bot_moved(absent, self.game_type)
                return game
            absent = self.sent  # the bot had not moved when this read was sent
            if time.monotonic() > self.deadline:
                raise GaveUp(f"{table.game_id}: the bots never moved past version {version}")
            time.sleep(POLL)

    def _move(self, table: Table, seat: int) -> dict[str, Any] | None:
        """Submit one random legal move for ``seat``; the 200 answer, or None when the game moved on."""
        path = f"/v1/games/{table.game_id}"
        legal_answer = self._request("GET", f"{path}/legal-moves", headers=auth(table.tokens[seat]))
        if legal_answer.status_code != 200:
            raise AssertionError(f"legal-moves: {legal_answer.status_code} {legal_answer.text}")
        legal = legal_answer.json()
        if not legal["moves"]:
            return None
        key = uuid.uuid4().hex if table.keyed else None
        intent = Intent(seat, legal["version"], self.rng.choice(legal["moves"]), key)
        table.intents.append(intent)
        headers = {**auth(table.tokens[seat]), **({"Idempotency-Key": key} if key else {})}
        body = {"move": intent.move, "expected_version": intent.basis}
        response = self._request("POST", f"{path}/moves", json=body, headers=headers)
        if response.status_code != 200:
            return None  # 409 (counted as expected) or a counted bug: read the game again
        self.seen.acked(self.sent, self.game_type)
        answer: dict[str, Any] = response.json()
        intent.acked = answer["version"]
        return answer


def same_move(sent: dict[str, Any], logged: dict[str, Any]) -> bool:
    """Whether a logged move is the one sent (a legal-moves element may carry its ``text``)."""
    # A listed move's words and prices are beside the move, not part of it (posted back, ignored).
    extra = ("text", "costs")
    return {k: v for k, v in sent.items() if k not in extra} == {k: v for k, v in logged.items() if k not in extra}


def audit(table: Table, replay: dict[str, Any]) -> list[str]:
    """Every acknowledged submission is in the log exactly once, and every human entry was sent.

    Submissions are pinned, so one made on version ``v`` can only be the log's entry ``v + 1``.
    """
    problems: list[str] = []
    entries = replay["moves"]
    if [entry["version"] for entry in entries] != list(range(1, len(entries) + 1)):
        problems.append(f"{table.game_id}: log versions are not 1..{len(entries)}")
        return problems
    by_basis: dict[int, list[Intent]] = {}
    for intent in table.intents:
        by_basis.setdefault(intent.basis, []).append(intent)
    for intent in table.intents:
        if intent.acked is None:
            continue
        entry = entries[intent.basis] if intent.basis < len(entries) else None
        if intent.acked != intent.basis + 1 or entry is None or entry["seat"] != intent.seat:
            problems.append(f"{table.game_id}: acknowledged move on v{intent.basis} is not log entry {intent.acked}")
        elif not same_move(intent.move, entry["move"]):
            problems.append(f"{table.game_id}: log entry {intent.acked} is not the acknowledged move")
    for entry in entries:
        if entry["bot"] or entry["kind"] or entry["seat"] not in table.tokens:
            continue  # a bot's move or a lifecycle entry
        sent = by_basis.get(entry["version"] - 1, [])
        if not any(i.seat == entry["seat"] and same_move(i.move, entry["move"]) for i in sent):
            problems.append(f"{table.game_id}: log entry {entry['version']} was never submitted")
    return problems
