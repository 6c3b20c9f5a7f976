"""The ``capacity`` suite's load: blocks of players, games, bots and spectators that act like people.

A :class:`Block` is the unit the suite ramps by. With ``PLAYERS`` guest players (``POST
/v1/sessions``) it holds ``PLAYERS`` two-seat games between them (game ``j`` seats players ``j`` and
``j + 1``: everyone sits in two), one game against the conductor's heuristic bot for every fourth
player, and ``SPECTATORS`` anonymous watchers of a few of the human games. Every player keeps ``GET
/v1/me/events`` open and acts only when told: on a ``your_turn`` notice it thinks for a time drawn
log-uniformly between the plan's two think times (:attr:`bench.config.Plan.think`: "every few
seconds to minutes"), reads its legal moves, and posts one of them (when the answer says the same
turn goes on, as a turn of several steps does, it thinks and acts again: no second notice comes for
one turn). Nothing is scripted across players: a move reaches the next player through the server
(its notice), a bot's reply through the conductor, a spectator's event through the game's stream.

What one block measures into the step's :class:`Tally`: the read and the move (``POST /moves``)
latencies; the notice's time from the move that caused it to the next player's stream (human
games), the bot's turn (the human's answer to its next notice, bot games), the spectators' events;
and every failure by kind (an answer ≥ 400 other than a retried version race, a stream that ended
or never opened).  Clocks: ``time.perf_counter`` (``CLOCK_MONOTONIC``) in every process of the
machine, so the webhook sink's stamps compare with the driver's.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson

from bench.lean_http import LeanClient
from tests.support.seeds import seed_hex

PLAYERS = 40  # guest players per block
BOT_EVERY = 4  # every fourth player also plays the conductor's bot
SPECTATED = 5  # human games of a block with spectators
SPECTATORS = 2  # per spectated game
BOT = "heuristic"
EVENT_ID = re.compile(rb"^id: (\d+):", re.M)


@dataclass
class Tally:
    """One step's measurements (latencies in seconds)."""

    moves: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    notices: list[float] = field(default_factory=list)
    bot_turns: list[float] = field(default_factory=list)
    spectated: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    retried: int = 0  # version races (two seats due at once) read again and posted: not errors
    ended: int = 0  # games that finished during the step


@dataclass
class Game:
    """One game of a block: its seats' players (``None``: the bot), tokens and spectators."""

    game_id: str
    players: list[int | None]
    tokens: list[str]
    acted: dict[int, int] = field(default_factory=dict)  # seat -> the version its last turn began at
    active: bool = True


class Shared:
    """What every block of a run shares: the client, the keys, the think-time draw and the tally."""

    def __init__(self, port: int, operator_key: str, game_type: str, think: tuple[float, float], seed: int) -> None:
        self.port, self.game_type, self.think_range = port, game_type, think
        self.operator = {"Authorization": f"Bearer {operator_key}"}
        self.http = LeanClient(port, timeout=60.0)
        self.random = random.Random(seed)
        self.tally = Tally()
        self.created = 0
        # (game_id, version) -> when the move that made a human seat due was sent (human games):
        # the notice and the webhook it causes are timed from it.
        self.caused: dict[tuple[str, int], float] = {}
        self.hooked: dict[tuple[str, int], float] = {}
        self.waiting_bot: dict[str, float] = {}  # bot game -> when the human's move was answered
        self.moved: dict[tuple[str, int], float] = {}  # (game_id, version) -> when its move was sent
        # Notices read before the answer of the move that caused them (the loop read the stream first).
        self.early: dict[tuple[str, int], float] = {}

    def forget_before(self, moment: float) -> None:
        """Drop the send times of moves older than ``moment`` (a spectator event later than that is
        not timed; a notice or webhook not come by then was counted missing)."""
        for waiting in (self.caused, self.hooked, self.moved, self.early):
            for key in [key for key, sent in waiting.items() if sent < moment]:
                del waiting[key]

    def think(self, first: bool = False) -> float:
        """A think time; the first turn of a new game starts part-way through one (a uniform share of a
        length-biased draw), so a block joins a steady stream instead of a burst."""
        low, high = self.think_range
        if first:
            return self.random.uniform(0, self.random.uniform(low, high))
        return math.exp(self.random.uniform(math.log(low), math.log(high)))

    async def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        """One request; an answer ≥ 400 raises :class:`Failed` with its status."""
        answer = await self.http.request(method, path, orjson.dumps(body) if body is not None else b"", headers or {})
        if answer.status_code >= 400:
            raise Failed(f"http_{answer.status_code}")
        return answer.json()


class Failed(Exception):
    """A refused request, named by its status."""


async def _open_stream(port: int, path: str, headers: dict[str, str]) -> tuple[asyncio.StreamReader, Any, bool]:
    """``GET path`` as an event stream; the reader, the writer and whether the body is chunked."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    writer.write(f"GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n{extra}\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    status = int(head.split(b" ", 2)[1])
    if status != 200:
        writer.close()
        raise Failed(f"stream_http_{status}")
    return reader, writer, b"transfer-encoding: chunked" in head.lower()


async def events(reader: asyncio.StreamReader, chunked: bool) -> Any:
    """Yield each SSE event of an open stream as raw bytes (pings and comments left out)."""
    buffer = b""
    while True:
        if chunked:
            size = int((await reader.readline()).strip() or b"0", 16)
            data = (await reader.readexactly(size + 2))[:-2]
            if size == 0:
                return
        else:
            data = await reader.read(65536)
            if not data:
                return
        buffer = (buffer + data).replace(b"\r\n", b"\n")  # a CR LF may be split over two reads
        *complete, buffer = buffer.split(b"\n\n")
        for event in complete:
            if event and not event.startswith(b":"):
                yield event


def _field(event: bytes, name: bytes) -> bytes:
    for line in event.split(b"\n"):
        if line.startswith(name + b": "):
            return line[len(name) + 2 :]
    return b""


@dataclass
class Player:
    """One guest: its token, its seats (game index → seat) and its tasks."""

    index: int
    player_id: str
    token: str
    seats: dict[str, tuple[Game, int]] = field(default_factory=dict)  # game_id -> (game, seat)


class Block:
    """A unit of the mix: players, their games, a bot game for every fourth, spectators."""

    def __init__(self, shared: Shared, number: int) -> None:
        self.shared, self.number = shared, number
        self.players: list[Player] = []
        self.games: list[Game] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self.streams_open = 0
        self.running = True

    @property
    def mix(self) -> dict[str, int]:
        """What this block holds."""
        bots = sum(1 for game in self.games if None in game.players)
        return {
            "players": len(self.players),
            "games": len(self.games),
            "bot_games": bots,
            "spectators": SPECTATED * SPECTATORS,
        }

    async def start(self, gate: asyncio.Semaphore) -> None:
        """Create the players, open their streams, create the games, then start the spectators."""
        shared = self.shared

        async def guest(n: int) -> Player:
            async with gate:
                body = await shared.call("POST", "/v1/sessions", {"name": f"B{self.number}P{n}"})
            return Player(n, str(body["player_id"]), str(body["token"]))

        self.players = list(await asyncio.gather(*(guest(n) for n in range(PLAYERS))))
        opened = [asyncio.Event() for _ in self.players]
        for player, ready in zip(self.players, opened, strict=True):
            self._spawn(self._listen(player, ready))
        await asyncio.wait_for(asyncio.gather(*(ready.wait() for ready in opened)), 120)
        count = len(self.players)
        pairs: list[list[int | None]] = [[j, (j + 1) % count] for j in range(count)]
        pairs += [[j, None] for j in range(0, count, BOT_EVERY)]
        self.games = list(await asyncio.gather(*(self._create(seats, gate) for seats in pairs)))
        for game in self.games:
            for seat, index in enumerate(game.players):
                if index is not None:
                    self.players[index].seats[game.game_id] = (game, seat)
        await asyncio.gather(*(self._first_turns(game, gate) for game in self.games))
        for game in self.games[:SPECTATED]:
            for _ in range(SPECTATORS):
                self._spawn(self._watch(game))

    async def _create(self, seats: list[int | None], gate: asyncio.Semaphore) -> Game:
        shared = self.shared
        shared.created += 1
        specs = [
            {"name": "bot", "bot": BOT}
            if n is None
            else {"name": f"B{self.number}P{n}", "external_id": self.players[n].player_id}
            for n in seats
        ]
        body = {"game_type": shared.game_type, "players": specs, "seed_hex": seed_hex(shared.created)}
        async with gate:
            created = await shared.call("POST", "/v1/games", body, shared.operator)
        tokens = [str(seat.get("token", "")) for seat in created["seats"]]
        return Game(str(created["game_id"]), seats, tokens)

    async def _first_turns(self, game: Game, gate: asyncio.Semaphore) -> None:
        """The seats due at the start (their notice may have come before the game was known here)."""
        async with gate:
            state = await self.shared.call("GET", f"/v1/games/{game.game_id}")
        for seat in state["to_act"]:
            self._due(game, seat, int(state["version"]), first=True)

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _due(self, game: Game, seat: int, version: int, first: bool = False) -> None:
        """A human seat's turn began at ``version``: think, then act (once per turn)."""
        if game.players[seat] is None or game.acted.get(seat, -1) >= version or not game.active or not self.running:
            return
        game.acted[seat] = version
        self._spawn(self._act(game, seat, self.shared.think(first)))

    async def _listen(self, player: Player, ready: asyncio.Event) -> None:
        """The player's stream: each ``your_turn`` notice starts a turn.  A stream the server ends is
        counted, with the code of its ``error`` event when it sent one (``player_stream_ended_<code>``),
        and reopened after its last event as an EventSource would, so that the steps after it are not
        measured with dead streams."""
        shared = self.shared
        last_id = ""
        try:
            while self.running:
                ended, last_id = await self._follow(player, ready, last_id)
                if not self.running:
                    return
                shared.tally.errors[f"player_stream_ended{ended}"] += 1
                await asyncio.sleep(1.0)  # an EventSource's retry
        except asyncio.CancelledError:
            raise
        except Exception as error:
            shared.tally.errors[f"player_stream_{_kind(error)}"] += 1
        finally:
            ready.set()

    async def _follow(self, player: Player, ready: asyncio.Event, last_id: str) -> tuple[str, str]:
        """One opening of the player's stream until the server ends it: ``_<code>`` of its ``error``
        event (or ``""``), and the id of the last event read."""
        headers = {"Authorization": f"Bearer {player.token}"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        reader, writer, chunked = await _open_stream(self.shared.port, "/v1/me/events", headers)
        ended = ""
        try:
            if not ready.is_set():
                self.streams_open += 1
                ready.set()
            async for event in events(reader, chunked):
                last_id = _field(event, b"id").decode() or last_id
                kind = _field(event, b"event")
                if kind == b"your_turn":
                    self._notice(player, orjson.loads(_field(event, b"data")))
                elif kind == b"error":
                    ended = "_" + str(orjson.loads(_field(event, b"data")).get("code", ""))
        finally:
            writer.close()
        return ended, last_id

    def _notice(self, player: Player, data: dict[str, Any]) -> None:
        now = time.perf_counter()
        game_id, version = str(data["game_id"]), int(data["version"])
        found = player.seats.get(game_id)
        if found is None:
            return  # a game still being created here: its first turns are read after creation
        game, seat = found
        shared = self.shared
        sent = shared.caused.pop((game_id, version), None)
        if sent is not None:
            shared.tally.notices.append(now - sent)
        else:  # it came before the answer of the move that caused it was read here
            shared.early[(game_id, version)] = now
        answered = shared.waiting_bot.pop(game_id, None)
        if answered is not None:
            shared.tally.bot_turns.append(now - answered)
        self._due(game, seat, version)

    async def _act(self, game: Game, seat: int, think: float) -> None:
        await asyncio.sleep(think)
        if not self.running or not game.active:
            return
        shared = self.shared
        try:
            for attempt in range(3):
                try:
                    return await self._move(game, seat)
                except Failed as refused:
                    if str(refused) != "http_409" or attempt == 2:
                        raise
                    shared.tally.retried += 1
        except asyncio.CancelledError:
            raise
        except Exception as error:
            shared.tally.errors[f"move_{_kind(error)}"] += 1

    async def _move(self, game: Game, seat: int) -> None:
        shared = self.shared
        bearer = {"Authorization": f"Bearer {game.tokens[seat]}"}
        began = time.perf_counter()
        listing = await shared.call("GET", f"/v1/games/{game.game_id}/legal-moves", headers=bearer)
        sent = time.perf_counter()
        shared.tally.reads.append(sent - began)
        if not listing["moves"]:
            return  # not this seat's turn after all (a notice outrun by a later one)
        body = {"move": shared.random.choice(listing["moves"]), "expected_version": listing["version"]}
        answer = await shared.call("POST", f"/v1/games/{game.game_id}/moves", body, bearer)
        answered = time.perf_counter()
        shared.tally.moves.append(answered - sent)
        version = int(answer["version"])
        shared.moved[(game.game_id, version)] = sent
        if answer["status"] != "active":
            game.active = False
            shared.tally.ended += 1
            return
        for due in answer["to_act"]:
            if due == seat:  # the same turn goes on (no new notice): the answer says so
                self._due(game, seat, version)
            elif game.players[due] is None:
                shared.waiting_bot[game.game_id] = answered
            else:
                shared.hooked[(game.game_id, version)] = sent
                early = shared.early.pop((game.game_id, version), None)
                if early is None:
                    shared.caused[(game.game_id, version)] = sent
                else:
                    shared.tally.notices.append(early - sent)

    async def _watch(self, game: Game) -> None:
        """A spectator: every event of the game's stream, timed from the move that made it (when known)."""
        shared = self.shared
        seen: set[int] = set()
        writer = None
        try:
            reader, writer, chunked = await _open_stream(shared.port, f"/v1/games/{game.game_id}/events", {})
            async for event in events(reader, chunked):
                found = EVENT_ID.search(event)
                version = int(found.group(1)) if found else -1
                sent = shared.moved.get((game.game_id, version))
                if sent is not None and version not in seen:
                    seen.add(version)
                    shared.tally.spectated.append(time.perf_counter() - sent)
            if self.running and game.active:
                shared.tally.errors["spectator_stream_ended"] += 1
        except asyncio.CancelledError:
            raise
        except Exception as error:
            shared.tally.errors[f"spectator_stream_{_kind(error)}"] += 1
        finally:
            if writer is not None:
                writer.close()

    async def stop(self) -> None:
        """Stop acting and close every stream (the narrowing goes down by whole blocks)."""
        self.running = False
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        ids = {game.game_id for game in self.games}
        shared = self.shared
        for waiting in (shared.caused, shared.hooked, shared.moved):
            for key in [key for key in waiting if key[0] in ids]:
                del waiting[key]
        for game_id in ids:
            shared.waiting_bot.pop(game_id, None)


def _kind(error: BaseException) -> str:
    return str(error) if isinstance(error, Failed) else type(error).__name__
