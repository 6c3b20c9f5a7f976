"""GamePlay: the one owner of a move, from load to after the commit.

Load the game, check who may act (the caller's :class:`~services.rules.access.Access`), play
the moves on the engine, seal the entries into the hash chain, commit them atomically with
everything that must change with them, and schedule what follows (the conductor's attention).
The gRPC handlers, the lobby, resignation, the tables service and the conductor all play and
commit through this object's public methods.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import orjson
from google.protobuf import any_pb2

from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import errors, metrics, protojson, sentences
from services.common.engine import Engine, IllegalMove, Move
from services.common.logs import get_logger
from services.common.runner import Match, Snapshot
from services.common.store import StoreError, VersionConflict
from services.fairness import chain
from services.games.lifecycle import Lifecycle, attention_due, clocked_seats
from services.games.records import Commit, GameMeta, LogEntry, Step
from services.games.store import GameStore
from services.legalmoves.entries import after_commit
from services.lobby.creation import waiting_snapshot
from services.lobby.feed import becoming_due
from services.outbox import turns as outbox_turns
from services.rules import answers, idempotency, readmask
from services.rules.finisher import Finisher, Outcome
from services.rules.followups import FollowUps
from services.rules.narrator import Narrator
from services.rules.positions import DEFAULT_CAPACITY, Positions

log = get_logger("service")

MAX_MOVES_PER_SUBMIT = 200
MAX_IDEMPOTENCY_KEY = 128
RETRIES_WITHOUT_EXPECTED_VERSION = 5


class StalePosition(Exception):
    """A commit on a kept position was refused by the store: the game is no longer there."""


@dataclass(frozen=True)
class _Ask:
    """A seat's submission as :meth:`GamePlay.submit` received it, its checks' inputs read once."""

    request: rules_pb2.SubmitMovesRequest
    seat_of: Callable[[GameMeta], int]
    expected: int | None
    fingerprint: bytes
    language: str
    printed: answers.PrintedAnswer | None
    store_legal: bool
    reads: readmask.Reads


class GamePlay:
    """Plays and commits the moves of one game type."""

    def __init__(self, engine: Engine, store: GameStore, kept_positions: int = DEFAULT_CAPACITY) -> None:
        self.engine = engine
        self.store = store
        self.game_type = engine.game_type
        self.narrator = Narrator(engine)
        self.positions = Positions(engine, self.canonical, kept_positions)
        self.follow = FollowUps(store, self.game_type)
        self.finisher = Finisher(engine, store, self.follow)

    # ---- positions -------------------------------------------------------------

    def canonical(self, move: Move) -> bytes:
        """A move's canonical bytes (its proto, serialised deterministically): what the chain hashes."""
        return protojson.identity(self.game_type, "Move", move)

    def match(self, snapshot: bytes) -> Match:
        """The in-memory match of a stored snapshot."""
        return Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self.canonical, trusted=True)

    def position(self, meta: GameMeta, snapshot: bytes) -> Match:
        """The match of a started game's current position, parsed and legal moves computed once per position."""
        return self.positions.match(meta, snapshot)

    def match_of(self, meta: GameMeta, snapshot: bytes) -> Match | None:
        """The match of a started game; ``None`` for one that waits (or was aborted while waiting)."""
        return None if snapshot == waiting_snapshot() else self.position(meta, snapshot)

    def check_type(self, meta: GameMeta) -> None:
        """A game of another type is not found here."""
        if meta.game_type != self.game_type:
            raise errors.not_found(f"no {self.game_type} game {meta.game_id}")

    async def load(self, game_id: str) -> tuple[GameMeta, bytes]:
        """A game of this type: metadata and snapshot."""
        meta, snapshot = await self.store.load(game_id)
        self.check_type(meta)
        return meta, snapshot

    async def meta(self, game_id: str) -> GameMeta:
        """A game of this type's metadata."""
        meta = await self.store.meta(game_id)
        self.check_type(meta)
        return meta

    # ---- a seat's moves --------------------------------------------------------

    async def submit(
        self,
        request: rules_pb2.SubmitMovesRequest,
        seat_of: Callable[[GameMeta], int],
        language: str,
        printed: answers.PrintedAnswer | None = None,
        store_legal: bool = True,
    ) -> rules_pb2.SubmitMovesResponse:
        """The moves of the caller's seat (``seat_of`` checks who is calling), applied atomically;
        with ``printed``, the seat's state and the events are printed
        into it as JSON instead of packed into the answer (:mod:`services.rules.rendered`).
        ``store_legal``: whether the commit stores every seat's next ``GET legal-moves`` answer
        (see :meth:`commit`).  The request's ``read_mask`` says which parts of the answer are
        built at all (:mod:`services.rules.readmask`)."""
        key = request.idempotency_key
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise errors.invalid(
                "bad_idempotency_key", f"idempotency keys are at most {MAX_IDEMPOTENCY_KEY} characters"
            )
        reads = readmask.reads(request.read_mask.paths)
        expected = request.expected_version if request.HasField("expected_version") else None
        print_ = idempotency.fingerprint(request.moves, expected, reads.fingerprint()) if key else b""
        ask = _Ask(request, seat_of, expected, print_, language, printed, store_legal, reads)
        kept = self.positions.kept(request.game_id)
        if kept is not None:
            answer = await self._submit_kept(ask, *kept)
            if answer is not None:
                return answer
        # A keyed retry is answered before anything else; its first answer is read with the game
        # (one round trip): the seat is not known yet, so the key of every possible seat is read.
        seats = range(self.engine.max_players) if key else range(0)
        keys = [self.store.idempotency_key(request.game_id, seat, key) for seat in seats]
        meta, snapshot, answers_by_seat = await self.store.load_with(request.game_id, keys)
        self.check_type(meta)
        seat = seat_of(meta)
        earlier = answers_by_seat[seat] if seat < len(answers_by_seat) else None
        if earlier is not None:
            return idempotency.first_answer(earlier, print_)
        moves = self._unpack_moves(request.moves)
        errors.require_pin(expected, key)
        attempts = 0
        while True:
            try:
                return await self.play(meta, snapshot, seat, moves, expected, key, language, printed, store_legal,
                                       fingerprint=print_, reads=reads)  # fmt: skip
            except VersionConflict as error:
                # Keyed but unpinned: re-check on the new state.  Safe, because the commit script
                # answers a key it has already seen with its first answer instead of applying again.
                attempts += 1
                if expected is not None or attempts >= RETRIES_WITHOUT_EXPECTED_VERSION:
                    raise errors.conflict(error.current) from None
                meta, snapshot = await self.store.load(request.game_id)

    async def _submit_kept(self, ask: _Ask, meta: GameMeta, match: Match) -> rules_pb2.SubmitMovesResponse | None:
        """The moves played on the position this process kept (:mod:`services.rules.positions`) and
        committed at once, the commit script guarding the version, head, status and seats' identity
        the checks here read; ``None`` when the kept position cannot answer, and then the load
        decides, as without a kept position.  Every refusal here (a seat, a move, a version) is
        of a position that may be stale, so it is left to the load too: its answer is what it
        was without this path, computed from the game as stored."""
        request, key = ask.request, ask.request.idempotency_key
        try:
            self.check_type(meta)
            seat = ask.seat_of(meta)
            moves = self._unpack_moves(request.moves)
            errors.require_pin(ask.expected, key)
            lifecycle = self._playable(meta, seat, ask.expected)
            commits = self._play_all(meta, match, seat, moves, lifecycle, kept=True)
        except errors.ServiceError:
            self._not_kept(ask, meta.game_id, "checked")
            return None
        try:
            response, _ = await self.commit(meta, match, commits, seat, key, lifecycle, language=ask.language,
                                            printed=ask.printed, store_legal=ask.store_legal,
                                            fingerprint=ask.fingerprint, reads=ask.reads, with_meta=False,
                                            kept=True)  # fmt: skip
        except StalePosition:  # another process, the conductor or an operator moved the game: nothing written
            self._not_kept(ask, meta.game_id, "refused")
            return None
        metrics.KEPT_MOVES.labels(self.game_type, "committed").inc()
        return response

    def _not_kept(self, ask: _Ask, game_id: str, outcome: str) -> None:
        """After a try on the kept position that the load must decide: the game's next moves load
        first until a load finds the kept position current (the load that follows does, when
        only the request was at fault), and nothing printed for the try is left in the answer."""
        self.positions.refused(game_id)
        metrics.KEPT_MOVES.labels(self.game_type, outcome).inc()
        if ask.printed is not None:  # what was printed is of the kept position's attempt
            ask.printed.state = ask.printed.events = b""

    def _unpack_moves(self, packed: Sequence[any_pb2.Any]) -> list[Move]:
        if not packed:
            raise errors.invalid("no_moves", "submit at least one move")
        if len(packed) > MAX_MOVES_PER_SUBMIT:
            raise errors.invalid("too_many_moves", f"at most {MAX_MOVES_PER_SUBMIT} moves per submission")
        try:
            return [protojson.unpack(self.game_type, "Move", item) for item in packed]
        except protojson.BadMessage as error:
            raise errors.invalid("malformed_move", str(error)) from None

    async def play(
        self,
        meta: GameMeta,
        snapshot: bytes,
        seat: int,
        moves: list[Move],
        expected: int | None,
        key: str,
        language: str = sentences.DEFAULT_LANGUAGE,
        printed: answers.PrintedAnswer | None = None,
        store_legal: bool = True,
        fingerprint: bytes = b"",
        reads: readmask.Reads = readmask.EVERYTHING,
    ) -> rules_pb2.SubmitMovesResponse:
        """Play ``moves`` for ``seat`` on the stored position and commit them (one atomic step);
        a keyed answer is kept behind the request's ``fingerprint`` (:mod:`services.rules.idempotency`);
        its answer holds what ``reads`` asks for."""
        lifecycle = self._playable(meta, seat, expected)
        match = self.position(meta, snapshot)
        commits = self._play_all(meta, match, seat, moves, lifecycle)
        # The lifecycle read above is the commit's (nothing changed it); nobody reads the game after it here.
        response, _ = await self.commit(meta, match, commits, seat, key, lifecycle, language=language, printed=printed,
                                        store_legal=store_legal, fingerprint=fingerprint, reads=reads,
                                        with_meta=False)  # fmt: skip
        return response

    @staticmethod
    def _playable(meta: GameMeta, seat: int, expected: int | None) -> Lifecycle:
        """The checks of the game before a seat's moves (status, resignation, pinned version); its lifecycle."""
        if meta.status != "active":
            raise errors.illegal("game_not_active", f"the game is {meta.status}")
        lifecycle = Lifecycle.from_dict(meta.lifecycle)
        if seat in lifecycle.resigned:
            raise errors.forbidden("seat_resigned", "this seat resigned; a bot plays it now")
        if expected is not None and expected != meta.version:
            raise errors.conflict(meta.version)
        return lifecycle

    def _play_all(
        self, meta: GameMeta, match: Match, seat: int, moves: list[Move], lifecycle: Lifecycle, kept: bool = False
    ) -> list[Commit]:
        """``moves`` played on ``match`` (refused as a whole if the game ends before the last one);
        on a ``kept`` position a refusal is not counted (the load that follows counts it)."""
        commits = []
        for move in moves:
            commits.append(self._play_one(match, seat, move, count=not kept))
            if self.finisher.is_over(meta, match, lifecycle) and len(commits) < len(moves):
                raise errors.illegal("game_over", "the game ended before the last moves of the batch")
        return commits

    def _play_one(self, match: Match, seat: int, move: Move, count: bool = True) -> Commit:
        try:
            with metrics.ENGINE_APPLY.labels(self.game_type).time():
                events = match.play(seat, move)
        except IllegalMove as refusal:
            if count:
                metrics.MOVES_REJECTED.labels(self.game_type, refusal.code).inc()
            if refusal.code == "not_your_turn":
                raise errors.forbidden(refusal.code, refusal.message) from None
            raise errors.illegal(refusal.code, refusal.message) from None
        return Commit(seat=seat, bot="", move=move, events=events, state_digest=chain.state_digest(match),
                      to_act=match.to_act())  # fmt: skip

    # ---- the commit ------------------------------------------------------------

    async def commit(
        self,
        meta: GameMeta,
        match: Match,
        commits: list[Commit],
        seat: int | None,
        key: str = "",
        lifecycle: Lifecycle | None = None,
        language: str = sentences.DEFAULT_LANGUAGE,
        printed: answers.PrintedAnswer | None = None,
        bot_memory: bytes = b"",
        store_legal: bool = True,
        fingerprint: bytes = b"",
        reads: readmask.Reads = readmask.EVERYTHING,
        with_meta: bool = True,
        kept: bool = False,
    ) -> tuple[rules_pb2.SubmitMovesResponse, GameMeta | None]:
        """Seal and commit ``commits`` against ``meta.version``: snapshot, status, result, clock and
        the game's next attention (bot due now, or a clock deadline), all in one atomic step.

        ``meta.status == "aborted"`` asks for an abort (a timeout policy); ``seat`` is the
        submitting seat (``None`` for the conductor), whose answer carries its view and events
        (those of them ``reads`` asks for: a read mask's, :mod:`services.rules.readmask`).

        Answers the submitting seat's response and the game's metadata after the commit, so a
        caller that shows the game next needs no reload (``None`` when a keyed retry got its
        first answer instead, or when ``with_meta`` is false: a caller that does not read it).
        ``bot_memory`` (the conductor's; empty: unchanged) is stored with
        the commit (:func:`services.games.records.bot_memory_key`).

        With ``store_legal`` every seat's next ``GET legal-moves`` answer is rendered and stored with
        the commit (:mod:`services.legalmoves`), so the gateway serves it without a rules call.
        Without, the commit still drops the previous answers, and a seat's next GET asks the rules
        service, which answers the same bytes: a plain gRPC ``SubmitMoves`` passes ``False``, since
        its callers read legal moves over gRPC and rendering every seat's answer was a tenth of
        the call (docs/lab/speed.md).

        ``kept``: ``meta`` and ``match`` are a position this process kept, not loaded for this call
        (:mod:`services.rules.positions`): the commit also checks the seats' identity, and a refusal
        of the store (the game moved on, ended or is gone) raises :class:`StalePosition`.
        """
        commits = chain.seal(self.game_type, meta.log_head, meta.version + 1, commits)
        lifecycle = lifecycle or Lifecycle.from_dict(meta.lifecycle)
        outcome = self.finisher.settle(meta, match, lifecycle)
        status = outcome.status
        to_act = match.to_act() if status == "active" else []
        commits = _with_turns(commits, status, to_act)
        now = _advance(meta, lifecycle, commits, to_act)
        attention = attention_due(meta.players, lifecycle, to_act, now) if status == "active" else None
        new_version = meta.version + len(commits)
        response = rules_pb2.SubmitMovesResponse(version=new_version, status=status, to_act=to_act)
        if seat is not None:
            self._fill_answer(response, meta, match, commits, seat, language, printed, bool(key), reads)
        idem_key = self.store.idempotency_key(meta.game_id, seat, key) if seat is not None else ""
        # Every seat's next GET legal-moves, stored with the commit (services.legalmoves).
        legal = (after_commit(self.narrator, meta, lifecycle.resigned, match, new_version, language)
                 if to_act and store_legal else None)  # fmt: skip
        # An end is filed by this commit itself (its status), with its outbox event (the Finisher's).
        step = Step(meta.game_id, meta.version, match.snapshot.to_json(), status, outcome.result_dict, commits,
                    previous_head=meta.log_head, lifecycle=lifecycle.to_dict(), attention_ms=attention,
                    idempotency_key=idem_key,
                    # The answer is kept only for a keyed retry; without a key nothing reads it.
                    answer=idempotency.kept(fingerprint, response.SerializeToString()) if idem_key else b"",
                    # the end's event (the Finisher's) and a turn.started per seat newly due
                    outbox=self.finisher.events(meta, outcome, commits, lifecycle, now)
                    + outbox_turns.for_commit(meta, status, commits, lifecycle.to_dict(), now),
                    legal=legal,
                    visibility=meta.visibility, bot_memory=bot_memory,
                    seats_identity=meta.identity if kept else "")  # fmt: skip
        earlier = await self._store(step, kept, printed, fingerprint)
        if earlier is not None:
            return earlier, None
        return response, await self._committed(meta, match, step, outcome, lifecycle, now, with_meta)

    async def _store(
        self, step: Step, kept: bool, printed: answers.PrintedAnswer | None, fingerprint: bytes
    ) -> rules_pb2.SubmitMovesResponse | None:
        """Write ``step`` in its one atomic commit; a keyed retry's first answer when the store
        kept one for its key (nothing written then), else ``None``.  The store's refusal of a
        ``kept`` position's step raises :class:`StalePosition` (nothing written either)."""
        try:
            stored, value = await self.store.commit(step)
        except StoreError as refusal:
            if kept:
                raise StalePosition(step.game_id) from refusal
            raise
        if stored != "idempotent":
            return None
        assert isinstance(value, bytes)
        if printed is not None:  # what was printed is of this attempt, not of the answer kept
            printed.state = printed.events = b""
        return idempotency.first_answer(value, fingerprint)

    async def _committed(
        self,
        meta: GameMeta,
        match: Match,
        step: Step,
        outcome: Outcome,
        lifecycle: Lifecycle,
        now: int,
        with_meta: bool,
    ) -> GameMeta | None:
        """After a commit of ``step`` on ``meta``: the position kept, the metrics and the log line,
        then the end's follow-ups (the Finisher's) or a move's; answers the game after the commit
        when ``with_meta``."""
        new_version = meta.version + len(step.entries)
        head = step.entries[-1].hash if step.entries else meta.log_head
        # The game as stored after the commit (its lifecycle a copy of what was written: nothing
        # shares it), kept with its position: its next move needs no load (services.rules.positions).
        after = replace(meta, version=new_version, status=outcome.status, result=outcome.result_dict,
                        lifecycle=orjson.loads(orjson.dumps(step.lifecycle)), log_head=head)  # fmt: skip
        self.positions.remember(after, match)
        movers = [item.seat for item in step.entries if not item.kind and item.seat is not None]
        metrics.MOVES_ACCEPTED.labels(self.game_type).inc(len(movers))
        # One line per commit (not per RPC), and only what every seat may see: who, which version.
        log.info("committed", game_type=self.game_type, game_id=meta.game_id, version=new_version, seats=movers,
                 kinds=[c.kind for c in step.entries if c.kind], status=outcome.status)  # fmt: skip
        if outcome.over:
            await self.finisher.ended(meta, outcome, new_version)
        else:
            # your_turn once per turn: only the seats this commit makes due (meta is the game before it).
            due = becoming_due(meta.lifecycle.get("to_act"), [e.to_act or [] for e in step.entries], lifecycle.to_act)
            await self.follow.moved(meta.game_id, meta.players, due, new_version, lifecycle.clock,
                                    step.attention_ms, now)  # fmt: skip
        return after if with_meta else None

    def _fill_answer(
        self,
        response: rules_pb2.SubmitMovesResponse,
        meta: GameMeta,
        match: Match,
        commits: list[Commit],
        seat: int,
        language: str,
        printed: answers.PrintedAnswer | None,
        kept: bool,
        reads: readmask.Reads,
    ) -> None:
        """The submitting seat's view and the events of its entries (bots' moves skip the work):
        packed into ``response``, or printed into ``printed`` (both when the answer is ``kept``);
        only those ``reads`` asks for are built (the view, its packing, the redaction, the words)."""
        if reads.state:
            answers.fill_state(response, self.game_type, self.engine.view(match.state, seat), printed, kept)
        if not reads.events:
            return
        words = (meta.names(), language)
        fields = []
        for offset, item in enumerate(commits):
            entry = LogEntry.of(item, meta.version + offset + 1)
            fields += self.narrator.entry_fields(entry, seat, words=words)
        printing = printed if printed is not None and printed.with_events else None
        if printing is not None:
            printing.events = orjson.dumps([self.narrator.event_json(item) for item in fields])
        if printing is None or kept:
            for event_fields in fields:
                self.narrator.add_event(response.events, event_fields)

    def count_bot_move(self, bot: str) -> None:
        """Count one move played by a server-side bot (the conductor's)."""
        metrics.BOT_MOVES.labels(self.game_type, bot).inc()


def _advance(meta: GameMeta, lifecycle: Lifecycle, commits: list[Commit], to_act: list[int]) -> int:
    """The lifecycle after ``commits``: the seats to act, the last entry's time (idle aborts count
    from it, services.retention) and the clocks of the seats that moved; answers that time."""
    lifecycle.to_act = list(to_act)
    now = clocks.now_ms()
    lifecycle.touched_ms = now
    movers = [item.seat for item in commits if not item.kind and item.seat is not None]
    clocks.advance(lifecycle.clock, movers, to_act, clocked_seats(meta.players, lifecycle), now)
    return now


def _with_turns(commits: list[Commit], status: str, to_act: list[int]) -> list[Commit]:
    """Every entry with the game after it: the last one the commit's status and seats to act; an
    earlier move of a batch ``active`` with the seats it left to act; a lifecycle entry, which
    changes no position, the commit's."""
    last = len(commits) - 1
    return [
        replace(item, status=status, to_act=to_act)
        if index == last or item.to_act is None
        else replace(item, status="active", to_act=list(item.to_act))
        for index, item in enumerate(commits)
    ]
