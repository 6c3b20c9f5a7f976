"""The one ``RulesService`` implementation, shared by every game.

It turns RPCs into engine calls on a :class:`~services.common.runner.Match` and
store operations; it never knows which game it runs beyond ``engine.game_type``.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from google.protobuf import any_pb2
from grpc import aio

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.bots.roster import bots_for
from services.clock import clock as clocks
from services.common import errors, metrics, protojson, sentences
from services.common.attention import new_game_id, wake_conductors
from services.common.engine import BadConfig, Engine, IllegalMove, Move, Result
from services.common.interceptors import BEARER
from services.common.logs import get_logger
from services.common.rng import Seed
from services.common.runner import Match, Snapshot
from services.common.store import GameNotActive, VersionConflict, hash_token, new_token
from services.fairness import chain, seeding
from services.games.lifecycle import Lifecycle, attention_due, clocked_seats, settled_result
from services.games.records import Commit, Fairness, GameMeta, LogEntry, NewGame
from services.games.store import GameStore
from services.legalmoves.entries import after_commit, legal_answer
from services.lobby import seats as lobby_seats
from services.lobby.creation import lifecycle_from, rating_fields, seat_credentials, waiting_snapshot
from services.lobby.listing import GameIndex
from services.outbox import events as outbox_events
from services.retention import archive
from services.rules import answers
from services.rules.lobby_rpcs import LobbyRpcs
from services.rules.positions import Positions
from services.rules.resignation import ResignRpcs
from services.rules.tickets import StreamTickets
from services.streaming.hub import EventHub
from services.streaming.watch import watch_entries

log = get_logger("service")

MAX_MOVES_PER_SUBMIT = 200
MAX_IDEMPOTENCY_KEY = 128
RETRIES_WITHOUT_EXPECTED_VERSION = 5


class RulesServicer(LobbyRpcs, ResignRpcs, rules_pb2_grpc.RulesServiceServicer):
    """RulesService for one engine, backed by a :class:`GameStore`.

    Bots never play here: a commit records in Redis that the game needs attention
    and a conductor (``services.conductor``) plays the bots and clock timeouts.
    """

    def __init__(
        self, engine: Engine, store: GameStore, api_keys: frozenset[str], live: EventHub | None = None
    ) -> None:
        self.engine = engine
        self.store = store
        # Live events: one reader per watched game, shared by every WatchEvents call (services.streaming).
        self.live = live or EventHub.for_store(store, engine.game_type)
        self.api_keys = api_keys
        self.game_type = engine.game_type
        self.sentences = sentences.sentences_for(engine.game_type)
        self.tickets = StreamTickets(store.redis)
        self.index = GameIndex(store.redis)
        self.text_errors: set[str] = set()
        self.positions = Positions(engine, self._canonical)

    # ---- helpers ---------------------------------------------------------------

    def _canonical(self, move: Move) -> bytes:
        return protojson.identity(self.game_type, "Move", move)

    def match(self, snapshot: bytes) -> Match:
        """The in-memory match of a stored snapshot."""
        return self._match(snapshot)

    def _match(self, snapshot: bytes) -> Match:
        return Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self._canonical, trusted=True)

    def position(self, meta: GameMeta, snapshot: bytes) -> Match:
        """The match of a started game's current position, parsed and legal moves computed once per position."""
        return self.positions.match(meta, snapshot)

    def _pack(self, name: str, data: dict[str, Any]) -> any_pb2.Any:
        return protojson.pack_engine(self.game_type, name, data)

    def _is_api_key(self, token: str) -> bool:
        return any(secrets.compare_digest(token, key) for key in self.api_keys)

    def _is_operator(self) -> bool:
        return not self.api_keys or self._is_api_key(BEARER.get())

    def _require_operator(self, what: str) -> None:
        token = BEARER.get()
        if self._is_operator():
            return
        if not token:
            raise errors.unauthenticated(f"{what} needs an operator API key")
        raise errors.forbidden("api_key_required", f"{what} needs an operator API key")

    def _viewer(self, meta: GameMeta) -> int | None:
        """The caller's seat, or ``None`` for a spectator (no token, or an operator key)."""
        token = BEARER.get()
        if not token:
            return None
        seat = meta.seat_of_token(token)
        if seat is not None:
            return seat
        if self._is_api_key(token) or meta.is_host(token):
            return None
        raise errors.unauthenticated("unknown bearer token for this game")

    async def _event_viewer(self, meta: GameMeta, ticket: str) -> int | None:
        """The viewer of an event RPC: a stream ticket's seat when one is sent, else as :meth:`_viewer`."""
        if not ticket:
            return self._viewer(meta)
        return await self.tickets.viewer(meta.game_id, ticket, has_bearer=bool(BEARER.get()))

    def _seat_viewer(self, meta: GameMeta) -> int:
        seat = self._viewer(meta)
        if seat is None:
            raise errors.unauthenticated("this call needs the seat token of a player of this game")
        return seat

    def _game_message(self, meta: GameMeta, match: Match | None, seat: int | None) -> rules_pb2.Game:
        lifecycle = Lifecycle.from_dict(meta.lifecycle)
        game = rules_pb2.Game(
            game_id=meta.game_id,
            game_type=self.game_type,
            status=meta.status,
            version=meta.version,
            to_act=match.to_act() if match is not None and meta.status == "active" else [],
            seats=lobby_seats.seat_messages(meta.players, lifecycle.resigned),
            visibility=meta.visibility,
            seed_commitment=meta.fairness.seed_commitment,
            seed_source=meta.fairness.seed_source,
            log_head=meta.log_head,
        )
        if match is not None:
            game.state.CopyFrom(self._pack("State", self.engine.view(match.state, seat)))
        if lifecycle.clock is not None:
            game.clock.CopyFrom(answers.clock_message(lifecycle.clock, meta.status))
        result = answers.result_message(meta.result)
        if result is not None:
            game.result.CopyFrom(result)
        if seat is not None:
            game.viewer_seat = seat
        return game

    def _say(self, render: Any, *args: Any) -> str:
        """A sentence, or "" (logged) when a template is missing or fails: words never fail a call."""
        try:
            return str(render(*args))
        except sentences.TextError as error:
            if str(error) not in self.text_errors:  # once per process and problem, not once per event
                self.text_errors.add(str(error))
                log.warning("text_missing", game_type=self.game_type, error=str(error))
            return ""

    def _entry_messages(
        self,
        entry: LogEntry,
        viewer: int | None,
        skip_to: int = -1,
        words: tuple[list[str], str] = ([], sentences.DEFAULT_LANGUAGE),
    ) -> list[rules_pb2.GameEvent]:
        """The events of one log entry as ``viewer`` may see them (lifecycle entries are public)."""
        if not entry.kind:
            return self._event_messages(
                entry.version, entry.seat, entry.events, viewer, skip_to, entry_hash=entry.hash, words=words
            )
        if skip_to >= 0:
            return []
        payload = {} if entry.seat is None else {"seat": entry.seat}
        text = self._say(self.sentences.event_text, {entry.kind: payload}, viewer, words[0], entry.seat, words[1])
        message = rules_pb2.GameEvent(version=entry.version, index=0, kind=entry.kind, hash=entry.hash, text=text)
        if entry.seat is not None:
            message.seat = entry.seat
        return [message]

    def _event_messages(
        self,
        version: int,
        seat_of_move: int | None,
        events: Sequence[dict[str, Any]],
        viewer: int | None,
        skip_to: int = -1,
        entry_hash: str = "",
        words: tuple[list[str], str] = ([], sentences.DEFAULT_LANGUAGE),
    ) -> list[rules_pb2.GameEvent]:
        """The events of one version as ``viewer`` may see them; ``words`` = (player names, language)."""
        out = []
        for index, event in enumerate(events):
            if index <= skip_to:
                continue
            visible = self.engine.event_view(event, viewer)
            if visible is None:
                continue
            text = self._say(self.sentences.event_text, visible, viewer, words[0], seat_of_move, words[1])
            message = rules_pb2.GameEvent(
                version=version, index=index, event=self._pack("Event", visible), text=text, hash=entry_hash
            )
            if seat_of_move is not None:
                message.seat = seat_of_move
            out.append(message)
        return out

    def _unpack_moves(self, packed: Sequence[any_pb2.Any]) -> list[Move]:
        if not packed:
            raise errors.invalid("no_moves", "submit at least one move")
        if len(packed) > MAX_MOVES_PER_SUBMIT:
            raise errors.invalid("too_many_moves", f"at most {MAX_MOVES_PER_SUBMIT} moves per submission")
        try:
            return [protojson.unpack(self.game_type, "Move", item) for item in packed]
        except protojson.BadMessage as error:
            raise errors.invalid("malformed_move", str(error)) from None

    def count_bot_move(self, bot: str) -> None:
        """Count one move played by a server-side bot (the conductor's)."""
        metrics.BOT_MOVES.labels(self.game_type, bot).inc()

    def _record_finish(self, meta: GameMeta, result: Result, moves: int) -> None:
        metrics.GAMES_FINISHED.labels(self.game_type).inc()
        metrics.GAME_LENGTH.labels(self.game_type).observe(moves)
        for score in result.scores:
            metrics.FINAL_SCORE.labels(self.game_type).observe(score)
        for seat in result.winners:
            metrics.WINS.labels(self.game_type, str(seat)).inc()
        log.info("game_finished", game_type=self.game_type, game_id=meta.game_id, moves=moves, winners=result.winners)

    # ---- RPCs ------------------------------------------------------------------

    async def GetGameType(
        self, request: rules_pb2.GetGameTypeRequest, context: aio.ServicerContext
    ) -> rules_pb2.GameType:
        """Describe the game this service plays."""
        return rules_pb2.GameType(
            id=self.game_type,
            name=self.engine.name,
            min_players=self.engine.min_players,
            max_players=self.engine.max_players,
            options=self._pack("Options", self.engine.default_options()),
            bots=sorted(bots_for(self.engine)),
        )

    def _options_from(self, request: rules_pb2.CreateGameRequest) -> dict[str, Any]:
        if not request.HasField("options"):
            return {}
        try:
            return protojson.unpack(self.game_type, "Options", request.options, only_set=True)
        except protojson.BadMessage as error:
            raise errors.invalid("bad_options", str(error)) from None

    async def CreateGame(
        self, request: rules_pb2.CreateGameRequest, context: aio.ServicerContext
    ) -> rules_pb2.CreateGameResponse:
        """Store a game: active at once when every seat is filled, else waiting for players.

        Bots never move here: a conductor plays them, so the answer is at version 0.
        """
        self._require_operator("creating a game")
        visibility = lobby_seats.visibility_of(request.visibility)
        players = lobby_seats.players_from(request.players, sorted(bots_for(self.engine)), visibility)
        game_id = new_game_id(self.game_type)
        fairness, seed = self._seed_for(request, game_id)
        lifecycle = lifecycle_from(request, len(players))
        waiting = any(lobby_seats.is_open(p) for p in players)
        now = clocks.now_ms()
        try:
            options = self.engine.validate_options(len(players), self._options_from(request))
            match = None
            if not waiting:
                match = Match.start(self.engine, len(players), seed, options, canonical=self._canonical)
        except BadConfig as error:
            raise errors.invalid(error.code, error.message) from None
        tokens, token_hashes = seat_credentials(request.players, players)
        rated, tournament = rating_fields(request, players)
        host_token = new_token()
        attention = None
        if match is not None:
            clocks.advance(lifecycle.clock, (), match.to_act(), clocked_seats(players, lifecycle), now)
            attention = attention_due(players, lifecycle, match.to_act(), now)
        snapshot = waiting_snapshot() if match is None else match.snapshot.to_json()
        game = NewGame(
            game_id=game_id,
            seed=seed,
            options=options,
            players=players,
            token_hashes=token_hashes,
            host_hash=hash_token(host_token),
            status="waiting" if waiting else "active",
            snapshot=snapshot,
            lifecycle=lifecycle.to_dict(),
            visibility=visibility,
            created_ms=now,
            attention_ms=attention,
            fairness=fairness,
            genesis=None if match is None else self._genesis(game_id, fairness, options, players, snapshot),
            rated=rated,
            tournament=tournament,
        )
        game_id = await self.store.create(game)
        await wake_conductors(self.store.redis, attention, now)
        await self.index.record(self.game_type, visibility, game.status, game_id, now)
        metrics.GAMES_CREATED.labels(self.game_type).inc()
        # Never the seed or the secret: while the game runs they would reveal every draw.
        log.info("game_created", game_type=self.game_type, game_id=game_id, players=len(players),
                 seed_source=fairness.seed_source)  # fmt: skip
        seats = lobby_seats.seat_messages(players, [])
        for seat, token in zip(seats, tokens, strict=True):
            seat.token = token
        return rules_pb2.CreateGameResponse(game_id=game_id, game_type=self.game_type, status=game.status, version=0,
                                            seats=seats, host_token=host_token)  # fmt: skip

    def _seed_for(self, request: rules_pb2.CreateGameRequest, game_id: str) -> tuple[Fairness, Seed]:
        """Draw and commit the server secret; the seed is derived from it unless an operator gives one."""
        return seeding.seed_for(request, game_id, self._require_operator)

    def _genesis(
        self, game_id: str, fairness: Fairness, options: dict[str, Any], players: list[dict[str, Any]], snapshot: bytes
    ) -> tuple[str, str]:
        """The chain's first hash and the set-up snapshot's digest."""
        setup = chain.digest(snapshot)
        options_digest = chain.message_digest(self.game_type, "Options", options)
        return chain.genesis(game_id, self.game_type, fairness.seed_commitment, options_digest, players, setup), setup

    async def GetGame(self, request: rules_pb2.GetGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """The game as the caller may see it."""
        meta, snapshot = await self.store.load(request.game_id)
        self._check_type(meta)
        return self._game_message(meta, self._match_of(meta, snapshot), self._viewer(meta))

    def _match_of(self, meta: GameMeta, snapshot: bytes) -> Match | None:
        """The match of a started game; ``None`` for one that waits (or was aborted while waiting)."""
        return None if snapshot == waiting_snapshot() else self.position(meta, snapshot)

    def _check_type(self, meta: GameMeta) -> None:
        if meta.game_type != self.game_type:
            raise errors.not_found(f"no {self.game_type} game {meta.game_id}")

    async def ListLegalMoves(
        self, request: rules_pb2.ListLegalMovesRequest, context: aio.ServicerContext
    ) -> rules_pb2.LegalMoves:
        """The caller's legal moves (empty when it is not the caller's turn)."""
        meta, snapshot = await self.store.load(request.game_id)
        self._check_type(meta)
        seat = self._seat_viewer(meta)
        playing = meta.status == "active" and seat not in Lifecycle.from_dict(meta.lifecycle).resigned
        match = self.position(meta, snapshot) if playing else None
        return legal_answer(self, meta.version, match, seat, *answers.words(meta, context))

    async def SubmitMoves(
        self, request: rules_pb2.SubmitMovesRequest, context: aio.ServicerContext
    ) -> rules_pb2.SubmitMovesResponse:
        """Apply the caller's moves atomically, then let bots answer."""
        return await self.submit(request, context)

    async def submit(
        self, request: rules_pb2.SubmitMovesRequest, context: aio.ServicerContext, rendered: list[bytes] | None = None
    ) -> rules_pb2.SubmitMovesResponse:
        """:meth:`SubmitMoves`; with ``rendered``, the seat's state is rendered into it as JSON
        instead of packed into the answer (:mod:`services.rules.rendered`)."""
        key = request.idempotency_key
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise errors.invalid(
                "bad_idempotency_key", f"idempotency keys are at most {MAX_IDEMPOTENCY_KEY} characters"
            )
        # A keyed retry is answered before anything else; its first answer is read with the game
        # (one round trip): the seat is not known yet, so the key of every possible seat is read.
        seats = range(self.engine.max_players) if key else range(0)
        keys = [self.store.idempotency_key(request.game_id, seat, key) for seat in seats]
        meta, snapshot, answers_by_seat = await self.store.load_with(request.game_id, keys)
        self._check_type(meta)
        seat = self._seat_viewer(meta)
        earlier = answers_by_seat[seat] if seat < len(answers_by_seat) else None
        if earlier is not None:
            return rules_pb2.SubmitMovesResponse.FromString(earlier)
        moves = self._unpack_moves(request.moves)
        expected = request.expected_version if request.HasField("expected_version") else None
        errors.require_pin(expected, key)
        attempts = 0
        while True:
            try:
                language = answers.language(context)
                response = await self._submit_once(meta, snapshot, seat, moves, expected, key, language, rendered)
                break
            except VersionConflict as error:
                # Keyed but unpinned: re-check on the new state.  Safe, because the commit script
                # answers a key it has already seen with its first answer instead of applying again.
                attempts += 1
                if expected is not None or attempts >= RETRIES_WITHOUT_EXPECTED_VERSION:
                    raise errors.conflict(error.current) from None
                meta, snapshot = await self.store.load(request.game_id)
        return response

    async def _submit_once(
        self,
        meta: GameMeta,
        snapshot: bytes,
        seat: int,
        moves: list[Move],
        expected: int | None,
        key: str,
        language: str = sentences.DEFAULT_LANGUAGE,
        rendered: list[bytes] | None = None,
    ) -> rules_pb2.SubmitMovesResponse:
        if meta.status != "active":
            raise errors.illegal("game_not_active", f"the game is {meta.status}")
        if seat in Lifecycle.from_dict(meta.lifecycle).resigned:
            raise errors.forbidden("seat_resigned", "this seat resigned; a bot plays it now")
        if expected is not None and expected != meta.version:
            raise errors.conflict(meta.version)
        match = self.position(meta, snapshot)
        commits = []
        for move in moves:
            try:
                with metrics.ENGINE_APPLY.labels(self.game_type).time():
                    events = match.play(seat, move)
            except IllegalMove as refusal:
                metrics.MOVES_REJECTED.labels(self.game_type, refusal.code).inc()
                if refusal.code == "not_your_turn":
                    raise errors.forbidden(refusal.code, refusal.message) from None
                raise errors.illegal(refusal.code, refusal.message) from None
            commits.append(Commit(seat=seat, bot="", move=move, events=events, state_digest=chain.state_digest(match)))
            if self.engine.is_over(match.state) and len(commits) < len(moves):
                raise errors.illegal("game_over", "the game ended before the last moves of the batch")
        response, _ = await self.commit_entries(meta, match, commits, seat, key, language=language, rendered=rendered)
        return response

    def settle(self, meta: GameMeta, match: Match, lifecycle: Lifecycle) -> tuple[Result | None, str]:
        """The result and status after a commit: the engine's result re-ranked for resignations,
        or the last seat standing's win, or ``aborted`` when a timeout policy aborted it."""
        if meta.status == "aborted":
            return None, "aborted"
        result = settled_result(self.engine.result(match.state), len(meta.players), lifecycle)
        return result, "finished" if result is not None else "active"

    async def commit_entries(
        self,
        meta: GameMeta,
        match: Match,
        commits: list[Commit],
        seat: int | None,
        key: str = "",
        lifecycle: Lifecycle | None = None,
        language: str = sentences.DEFAULT_LANGUAGE,
        rendered: list[bytes] | None = None,
    ) -> tuple[rules_pb2.SubmitMovesResponse, GameMeta | None]:
        """Seal and commit ``commits`` against ``meta.version``: snapshot, status, result, clock and
        the game's next attention (bot due now, or a clock deadline), all in one atomic step.

        ``meta.status == "aborted"`` asks for an abort (a timeout policy); ``seat`` is the
        submitting seat (``None`` for the conductor), whose answer carries its view and events.

        Answers the submitting seat's response and the game's metadata after the commit, so a
        caller that shows the game next needs no reload (``None`` when a keyed retry got its
        first answer instead).
        """
        commits = chain.seal(self.game_type, meta.log_head, meta.version + 1, commits)
        lifecycle = lifecycle or Lifecycle.from_dict(meta.lifecycle)
        result, status = self.settle(meta, match, lifecycle)
        to_act = match.to_act() if status == "active" else []
        now = clocks.now_ms()
        lifecycle.touched_ms = now  # idle aborts count from the last entry (services.retention)
        movers = [item.seat for item in commits if not item.kind]
        clocks.advance(lifecycle.clock, movers, to_act, clocked_seats(meta.players, lifecycle), now)
        attention = attention_due(meta.players, lifecycle, to_act, now) if status == "active" else None
        new_version = meta.version + len(commits)
        response = rules_pb2.SubmitMovesResponse(version=new_version, status=status, to_act=to_act)
        if seat is not None:
            # Only a seat's own submission needs the view and events; bots' moves skip the work.
            answers.fill_state(response, self.game_type, self.engine.view(match.state, seat), rendered, bool(key))
            words = (meta.names(), language)
            for offset, item in enumerate(commits):
                entry = LogEntry(
                    meta.version + offset + 1,
                    item.seat,
                    item.bot,
                    item.move,
                    item.events,
                    hash=item.hash,
                    kind=item.kind,
                )
                response.events.extend(self._entry_messages(entry, seat, words=words))
        idem_key = self.store.idempotency_key(meta.game_id, seat, key) if seat is not None else ""
        # Every seat's next GET legal-moves, stored with the commit (services.legalmoves).
        legal = after_commit(self, meta, lifecycle.resigned, match, new_version, language) if to_act else None
        outcome, value = await self.store.commit(
            meta.game_id,
            meta.version,
            match.snapshot.to_json(),
            status,
            answers.result_dict(result),
            commits,
            idempotency_key=idem_key,
            # The answer is kept only for a keyed retry; without a key nothing reads it.
            answer=response.SerializeToString() if idem_key else b"",
            lifecycle=lifecycle.to_dict(),
            attention_ms=attention,
            previous_head=meta.log_head,
            outbox=outbox_events.for_commit(
                meta, status, answers.result_dict(result), commits, lifecycle.to_dict(), now
            ),
            legal=legal,
        )
        if outcome == "idempotent":
            assert isinstance(value, bytes)
            return rules_pb2.SubmitMovesResponse.FromString(value), None
        head = commits[-1].hash if commits else meta.log_head
        self.positions.remember(meta.game_id, new_version, head, match)
        after = replace(
            meta,
            version=new_version,
            status=status,
            result=answers.result_dict(result),
            lifecycle=lifecycle.to_dict(),
            log_head=head,
        )
        await wake_conductors(self.store.redis, attention, now)
        metrics.MOVES_ACCEPTED.labels(self.game_type).inc(len(movers))
        # One line per commit (not per RPC), and only what every seat may see: who, which version.
        log.info("committed", game_type=self.game_type, game_id=meta.game_id, version=new_version, seats=movers,
                 kinds=[c.kind for c in commits if c.kind], status=status)  # fmt: skip
        if status != "active":
            await self.store.mark_inactive(self.game_type, meta.game_id)
            await self.index.record(self.game_type, meta.visibility, status, meta.game_id, meta.created_ms)
        if result is not None:
            self._record_finish(meta, result, new_version)
        return response, after

    async def ListEvents(
        self, request: rules_pb2.ListEventsRequest, context: aio.ServicerContext
    ) -> rules_pb2.ListEventsResponse:
        """Events after a version, redacted for the caller."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        viewer = await self._event_viewer(meta, request.ticket)
        archive.refuse_events(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        response = rules_pb2.ListEventsResponse(version=meta.version)
        words = answers.words(meta, context)
        for entry in await self.store.entries(request.game_id, after):
            skip_to = skip if entry.version == request.after else -1
            response.events.extend(self._entry_messages(entry, viewer, skip_to, words=words))
        return response

    async def WatchEvents(
        self, request: rules_pb2.WatchEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[rules_pb2.GameEvent]:
        """Events after a version, then live, until the game is over and all is delivered (services.streaming)."""
        async for messages in self.watch_entries(request, context):
            for message in messages:
                yield message

    async def watch_entries(
        self, request: rules_pb2.WatchEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[list[rules_pb2.GameEvent]]:
        """What :meth:`WatchEvents` sends, one list per log entry (``RenderedRules.WatchEventBatches``)."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        viewer = await self._event_viewer(meta, request.ticket)
        archive.refuse_events(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        words = answers.words(meta, context)

        def render(entry: LogEntry) -> list[rules_pb2.GameEvent]:
            skip_to = skip if entry.version == request.after else -1
            return self._entry_messages(entry, viewer, skip_to, words=words)

        async for messages in watch_entries(self.live, self.store, request.game_id, after, render, context):
            yield messages

    async def CreateStreamTicket(
        self, request: rules_pb2.CreateStreamTicketRequest, context: aio.ServicerContext
    ) -> rules_pb2.StreamTicket:
        """A short-lived, read-only ticket for the caller's seat's events (see :mod:`services.rules.tickets`)."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        ticket, expires_at = await self.tickets.issue(meta.game_id, self._seat_viewer(meta))
        answer = rules_pb2.StreamTicket(ticket=ticket)
        answer.expires_at.FromSeconds(expires_at)
        return answer

    async def GetReplay(self, request: rules_pb2.GetReplayRequest, context: aio.ServicerContext) -> rules_pb2.Replay:
        """Seed, options, players and every move; unfinished games need an operator key."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        over = _over(meta.status)
        if not over:
            self._require_operator("the replay of an unfinished game")
        replay = rules_pb2.Replay(
            game_id=meta.game_id,
            game_type=self.game_type,
            # The seed and the secret behind it would reveal every future draw: only once it is over.
            server_secret=meta.fairness.server_secret if over else "",
            seed_commitment=meta.fairness.seed_commitment,
            seed_source=meta.fairness.seed_source,
            client_seed=meta.fairness.client_seed,
            log_head=meta.log_head,
            options=self._pack("Options", meta.options),
            players=[lobby_seats.replay_player(p) for p in meta.players],
            status=meta.status,
        )
        seeding.reveal_seed(replay, meta.seed, over)
        for entry in await archive.replay_entries(self.store, meta):
            if entry.version == 0:
                replay.genesis_hash = entry.hash
            if entry.seat is None:
                continue
            move = rules_pb2.ReplayMove(
                version=entry.version,
                seat=entry.seat,
                bot=entry.bot,
                kind=entry.kind,
                hash=entry.hash,
                state_digest=entry.state_digest,
            )
            if entry.move is not None:
                move.move.CopyFrom(self._pack("Move", entry.move))
            replay.moves.append(move)
        result = answers.result_message(meta.result)
        if result is not None:
            replay.result.CopyFrom(result)
        return replay

    async def AbortGame(self, request: rules_pb2.AbortGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Stop a waiting or active game for good (operators, or the game's host)."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        if not meta.is_host(BEARER.get()):
            self._require_operator("aborting a game")
        try:
            aborted = outbox_events.game_aborted(meta, meta.version, clocks.now_ms())
            await self.store.set_status(request.game_id, self.game_type, "aborted", [aborted])
        except GameNotActive as error:
            raise errors.illegal("game_not_active", f"the game is {error.status}") from None
        await self.index.record(self.game_type, meta.visibility, "aborted", meta.game_id, meta.created_ms)
        log.info("game_aborted", game_type=self.game_type, game_id=meta.game_id, reason=request.reason[:200])
        meta, snapshot = await self.store.load(request.game_id)
        return self._game_message(meta, self._match_of(meta, snapshot), None)


def _over(status: str) -> bool:
    """Whether a game can change no more."""
    return status in ("finished", "aborted")


def _resume_point(after: int, after_index: int | None) -> tuple[int, int]:
    """Translate (version, index) resume positions into (entries after, skip up to index)."""
    if after_index is None:
        return after, -1
    return after - 1, after_index
