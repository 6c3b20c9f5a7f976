"""The tournament director: seats rounds, creates their games, advances, and keeps ratings.

It runs as its own process (``python -m services.tournament``, see :mod:`.__main__`) and
does three kinds of work, all crash-safe because every decision is a WATCH/MULTI step on
Redis state and every input is durable:

* **Outbox consumer.**  It reads the platform outbox (:mod:`services.outbox`) in the consumer
  group ``ratings-tournaments``.  A ``game.finished`` of a rated game updates its players'
  ratings (once: :class:`~services.rating.ledger.Ledger`); one of a tournament game (its
  ``tournament`` metadata names the table) records the table's places and, when it was the
  round's last game, plans the next round from the standings or finishes the tournament —
  ``tournament.finished`` is emitted in the same MULTI.  ``game.aborted`` of a tournament
  game records the table as a tie (nobody earns more than anybody else there).  Events are
  acknowledged only after they were handled, so a director killed mid-work handles them
  again after a restart (every step is idempotent).
* **Seating.**  A planned round's tables get their games (seeds derived from the tournament
  seed, each entrant's seat credential its entrant token, see :mod:`.tables`) under a short
  per-tournament lease, each game id recorded as soon as it exists; when every table has its
  game the round is ``playing`` and ``tournament.round_started`` goes out in the same MULTI.
  A director that dies between creating a game and recording it leaves one orphan game that
  nobody plays in the tournament (its lease expires, the table gets a new game).
* **Sweep.**  Every few seconds it looks at running tournaments: rounds left ``seating`` are
  seated again, and tables whose game ended without the director hearing of it are recorded
  from the game's metadata.  It is a safety net beside the outbox, not the fast path.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Any

from chaiwala.tournament.v1 import tournament_pb2
from services import outbox
from services.clock import clock as clocks
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.common.store import GameNotFound
from services.filing.store import is_ended
from services.games.records import GameMeta
from services.games.store import GameStore
from services.outbox import events as game_events
from services.outbox.reader import OutboxReader
from services.outbox.wait import IDLE_SECONDS
from services.rating.ledger import FinishedGame, Ledger
from services.tournament import metrics, seeds
from services.tournament.creation import new_tournament
from services.tournament.model import Tournament
from services.tournament.store import Event, TournamentNotFound, TournamentStore, new_tournament_id
from services.tournament.tables import RulesClients, parse_ref

log = get_logger("tournament")
GROUP = "ratings-tournaments"
ROUND_STARTED = "tournament.round_started"
FINISHED = "tournament.finished"
POLL_SECONDS = 0.2  # the outbox poll on Redis Cluster; a single Redis wakes the director at once
SWEEP_SECONDS = 3.0
ENDS = (game_events.GAME_FINISHED, game_events.GAME_ABORTED)  # the only events it reads


def standings_data(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings as events carry them."""
    names = {e.external_id: e.name for e in tournament.entrants}
    return [
        {"external_id": s.external_id, "name": names[s.external_id], "rank": s.rank, "points": s.points}
        for s in tournament.standings()
    ]


def advance(tournament: Tournament, now_ms: int) -> list[Event]:
    """After a round ended: plan the next one, or finish the tournament (with its event)."""
    plan = tournament.next_plan()
    if plan is not None:
        tournament.start_round(plan)
        return []
    tournament.status = "finished"
    tournament.finished_ms = now_ms
    data = {"tournament_id": tournament.tournament_id, "game_type": tournament.game_type,
            "rounds": len(tournament.rounds), "standings": standings_data(tournament)}  # fmt: skip
    return [(FINISHED, f"evt_tournament_finished_{tournament.tournament_id}", data)]


def record_step(game_id: str, ranking: list[int], now_ms: int) -> Any:
    """The step that notes a finished table (and advances when it ended the round)."""

    def step(tournament: Tournament) -> list[Event] | None:
        if tournament.status != "running" or not tournament.record(game_id, ranking):
            return None
        played = tournament.rounds[-1]
        return advance(tournament, now_ms) if played.status == "finished" else []

    return step


def round_started_event(tournament: Tournament) -> Event:
    """``tournament.round_started`` of the current round."""
    played = tournament.rounds[-1]
    tables = [{"game_id": t.game_id, "players": list(t.players)} for t in played.tables]
    data = {"tournament_id": tournament.tournament_id, "round": played.number, "tables": tables,
            "byes": list(played.byes)}  # fmt: skip
    return ROUND_STARTED, f"evt_tournament_round_{tournament.tournament_id}_{played.number}", data


def _ranking_of(meta: GameMeta) -> list[int]:
    """A finished game's places; an aborted one is a tie of every seat."""
    if meta.status == "finished" and meta.result:
        return [int(place) for place in meta.result["ranking"]]
    return [1] * len(meta.players)


class Director:
    """The tournament and rating work of one director process."""

    def __init__(self, games: GameStore, rules: RulesClients) -> None:
        self.games = games
        self.redis = games.redis
        self.rules = rules
        self.tournaments = TournamentStore(games.redis)
        self.ledger = Ledger(games.redis)
        self.name = f"director-{secrets.token_hex(4)}"
        self.tasks: set[asyncio.Task[Any]] = set()
        self.watch = StoreWatch(log)  # Redis away: one warning, not one per poll

    # ---- requests ----

    async def create(self, request: tournament_pb2.CreateTournamentRequest) -> tuple[Tournament, list[str]]:
        """Create a tournament, plan its first round and start seating it in the background."""
        tournament, tokens = new_tournament(request, new_tournament_id(), clocks.now_ms())
        for entrant in tournament.entrants:
            rating = await self.ledger.rating(tournament.game_type, entrant.external_id)
            entrant.rating = rating.ordinal if rating is not None else None
        plan = tournament.next_plan()
        assert plan is not None  # validated: the entrants fill at least one table
        tournament.start_round(plan)
        await self.tournaments.create(tournament)
        metrics.TOURNAMENTS_CREATED.labels(tournament.game_type, tournament.format).inc()
        log.info("tournament_created", tournament_id=tournament.tournament_id, game_type=tournament.game_type,
                 format=tournament.format, entrants=len(tournament.entrants))  # fmt: skip
        self._soon(self.seat(tournament.tournament_id))
        return tournament, tokens

    async def withdraw(self, tournament_id: str, external_id: str) -> Tournament:
        """Withdraw an entrant: never seated again; its seat in a game still playing resigns."""

        def step(tournament: Tournament) -> list[Event] | None:
            entrant = tournament.entrant(external_id)
            if entrant is None or entrant.withdrawn or tournament.status != "running":
                return None
            entrant.withdrawn = True
            return []

        tournament = await self.tournaments.change(tournament_id, step)
        await self._resign_withdrawn(tournament)
        return tournament

    async def _resign_withdrawn(self, tournament: Tournament) -> None:
        played = tournament.current()
        if played is None:
            return
        for entrant in tournament.entrants:
            if not entrant.withdrawn:
                continue
            for table in played.tables:
                if entrant.external_id in table.players and table.game_id and table.ranking is None:
                    token = seeds.entrant_token(tournament.secret, entrant.external_id)
                    await self.rules.resign(tournament.game_type, table.game_id, token)

    # ---- seating ----

    async def seat(self, tournament_id: str) -> None:
        """Create the missing games of the current round (under the seating lease)."""
        if not await self.tournaments.take_seating(tournament_id, self.name):
            return
        try:
            while await self._seat_round(tournament_id):
                pass  # the round ended at once (byes, or games faster than their seating): seat the next
        finally:
            await self.tournaments.release_seating(tournament_id)

    async def _seat_round(self, tournament_id: str) -> bool:
        """Seat the current round; whether a new round is waiting to be seated after it."""
        tournament = await self.tournaments.load(tournament_id)
        played = tournament.current()
        if tournament.status != "running" or played is None or played.status != "seating":
            return False
        for number, table in enumerate(played.tables):
            if table.game_id:
                continue
            game_id = await self.rules.create_table(tournament, played.number, number, table)
            metrics.GAMES_CREATED.labels(tournament.game_type).inc()
            tournament = await self.tournaments.change(tournament_id, _set_game(played.number, number, game_id))
            await self._check_game(game_id)  # it may have ended before its id was noted
        tournament = await self.tournaments.change(tournament_id, _mark_playing(played.number))
        metrics.ROUNDS_STARTED.labels(tournament.game_type).inc()
        await self._resign_withdrawn(tournament)
        return tournament.current() is not None and tournament.rounds[-1].number != played.number

    # ---- finished games ----

    async def handle(self, event: outbox.OutboxEvent) -> None:
        """One outbox event (anything but a finished or aborted game is ignored)."""
        if event.type not in ENDS:
            return
        await self._check_game(str(event.data.get("game_id", "")))

    async def _check_game(self, game_id: str) -> None:
        try:
            meta = await self.games.meta(game_id)
        except GameNotFound:
            return
        if not is_ended(meta.status):
            return
        if meta.rated and meta.status == "finished":
            await self._rate(meta)
        ref = parse_ref(meta.tournament) if meta.tournament else None
        if ref is not None:
            await self._record(ref[0], game_id, _ranking_of(meta))

    async def _rate(self, meta: GameMeta) -> None:
        game = FinishedGame(meta.game_id, meta.game_type, list(meta.players), _ranking_of(meta), clocks.now_ms())
        if await self.ledger.record(game) is not None:
            metrics.RATINGS_UPDATED.labels(meta.game_type).inc()

    async def _record(self, tournament_id: str, game_id: str, ranking: list[int]) -> None:
        try:
            before = await self.tournaments.load(tournament_id)
            tournament = await self.tournaments.change(tournament_id, record_step(game_id, ranking, clocks.now_ms()))
        except TournamentNotFound:
            return
        if len(tournament.rounds) != len(before.rounds):
            self._soon(self.seat(tournament_id))
        if tournament.status == "finished" and before.status != "finished":
            metrics.TOURNAMENTS_FINISHED.labels(tournament.game_type, tournament.format).inc()
            log.info("tournament_finished", tournament_id=tournament_id, rounds=len(tournament.rounds))

    # ---- loops ----

    async def consume(self, stop: asyncio.Event) -> None:
        """Handle outbox events until ``stop``; acknowledge each batch once handled.  Only game ends
        are read as events (a move's facts are acknowledged unread, :mod:`services.outbox.reader`)."""
        # A game's end may wait a fifth of a second to be read with others (OutboxReader's linger).
        reader = OutboxReader(self.redis, GROUP, self.name, ENDS, POLL_SECONDS, linger_seconds=POLL_SECONDS)
        while not stop.is_set():
            try:
                batch = await reader.read(stop, IDLE_SECONDS)
                self.watch.answered()
                for event in batch:
                    await self.handle(event)
                await reader.ack(batch)
                continue
            except Exception as error:  # a dependency down: keep the loop alive, retry shortly
                if not self.watch.failed(error, "outbox_read"):
                    log.warning("outbox_read_failed", error=type(error).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), POLL_SECONDS)

    async def sweep(self, stop: asyncio.Event) -> None:
        """The safety net (see the module docstring), every :data:`SWEEP_SECONDS`."""
        while not stop.is_set():
            try:
                running = await self.tournaments.running()
                self.watch.answered()
                metrics.TOURNAMENTS_RUNNING.set(len(running))
                for tournament_id in running:
                    await self._sweep_one(tournament_id)
            except Exception as error:
                if not self.watch.failed(error, "sweep"):
                    log.warning("sweep_failed", error=type(error).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SWEEP_SECONDS)

    async def _sweep_one(self, tournament_id: str) -> None:
        try:
            tournament = await self.tournaments.load(tournament_id)
        except TournamentNotFound:
            return
        played = tournament.current()
        if played is None:
            return
        if played.status == "seating":
            await self.seat(tournament_id)
        for table in played.tables:
            if table.game_id and table.ranking is None:
                await self._check_game(table.game_id)

    def _soon(self, work: Any) -> None:
        """Run ``work`` in the background (kept referenced until done; failures logged)."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None and not self.watch.failed(error, "background"):
            log.warning("background_failed", error=type(error).__name__)


def _set_game(round_number: int, table_number: int, game_id: str) -> Any:
    def step(tournament: Tournament) -> list[Event] | None:
        played = tournament.rounds[round_number - 1]
        table = played.tables[table_number]
        if table.game_id:
            return None
        table.game_id = game_id
        table.status = "playing"
        return []

    return step


def _mark_playing(round_number: int) -> Any:
    """Every table has its game: the round is ``playing`` (and ``tournament.round_started`` goes out)."""

    def step(tournament: Tournament) -> list[Event] | None:
        played = tournament.rounds[round_number - 1]
        if played.status != "seating" or any(not t.game_id for t in played.tables):
            return None
        played.status = "playing"
        events = [round_started_event(tournament)]
        if all(t.ranking is not None for t in played.tables):  # every game ended already (or none)
            played.status = "finished"
            events += advance(tournament, clocks.now_ms())
        return events

    return step
