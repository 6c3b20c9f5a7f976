"""The one ``RulesService`` implementation, shared by every game.

It turns RPCs into engine calls on a :class:`~services.common.runner.Match` and
store operations; it never knows which game it runs beyond ``engine.game_type``.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from typing import Any

from google.protobuf import any_pb2, json_format
from grpc import aio

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import errors, metrics, protojson, sentences
from services.common.engine import BadConfig, Engine, IllegalMove, Move, Result
from services.common.interceptors import BEARER
from services.common.logs import get_logger
from services.common.runner import Match, Snapshot
from services.common.store import Commit, GameMeta, GameStore, StoreError, VersionConflict

log = get_logger("service")

MAX_MOVES_PER_SUBMIT = 200
MAX_PLAYER_NAME = 64
MAX_IDEMPOTENCY_KEY = 128
RETRIES_WITHOUT_EXPECTED_VERSION = 5
# Bot moves committed per script call while several bots move in a row.
BOT_BATCH = 64


def result_dict(result: Result | None) -> dict[str, Any] | None:
    """A result as stored in the game's metadata."""
    if result is None:
        return None
    return {"scores": result.scores, "ranking": result.ranking, "winners": result.winners}


def result_message(result: dict[str, Any] | None) -> rules_pb2.GameResult | None:
    """A stored result as its proto message."""
    if result is None:
        return None
    return rules_pb2.GameResult(scores=result["scores"], ranking=result["ranking"], winners=result["winners"])


class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
    """RulesService for one engine, backed by a :class:`GameStore`."""

    def __init__(self, engine: Engine, store: GameStore, api_keys: frozenset[str], bot_budget: int = 20_000) -> None:
        self.engine = engine
        self.store = store
        self.api_keys = api_keys
        self.bot_budget = bot_budget
        self.game_type = engine.game_type
        self.sentences = sentences.sentences_for(engine.game_type)
        self.text_errors: set[str] = set()

    # ---- helpers ---------------------------------------------------------------

    def _canonical(self, move: Move) -> bytes:
        return protojson.identity(self.game_type, "Move", move)

    def _match(self, snapshot: bytes) -> Match:
        return Match(engine=self.engine, snapshot=Snapshot.from_json(snapshot), canonical=self._canonical)

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
        if self._is_api_key(token):
            return None
        raise errors.unauthenticated("unknown bearer token for this game")

    def _seat_viewer(self, meta: GameMeta) -> int:
        seat = self._viewer(meta)
        if seat is None:
            raise errors.unauthenticated("this call needs the seat token of a player of this game")
        return seat

    def _seats(self, meta: GameMeta) -> list[rules_pb2.Seat]:
        return [rules_pb2.Seat(seat=i, name=p["name"], bot=p.get("bot", "")) for i, p in enumerate(meta.players)]

    def _game_message(self, meta: GameMeta, match: Match, seat: int | None) -> rules_pb2.Game:
        game = rules_pb2.Game(
            game_id=meta.game_id,
            game_type=self.game_type,
            status=meta.status,
            version=meta.version,
            to_act=match.to_act() if meta.status == "active" else [],
            state=self._pack("State", self.engine.view(match.state, seat)),
            seats=self._seats(meta),
        )
        result = result_message(meta.result)
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

    def _event_messages(
        self,
        version: int,
        seat_of_move: int | None,
        events: Sequence[dict[str, Any]],
        viewer: int | None,
        skip_to: int = -1,
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
            message = rules_pb2.GameEvent(version=version, index=index, event=self._pack("Event", visible), text=text)
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
            bots=sorted(self.engine.bots()),
        )

    def _options_from(self, request: rules_pb2.CreateGameRequest) -> dict[str, Any]:
        if not request.HasField("options"):
            return {}
        cls = protojson.message_class(self.game_type, "Options")
        message = cls()
        if not request.options.Unpack(message):
            raise errors.invalid("bad_options", f"options must be chaiwala.{self.game_type}.v1.Options")
        # Only fields the caller set: absent ones take the engine's defaults.
        return json_format.MessageToDict(message, preserving_proto_field_name=True)

    def _players_from(self, request: rules_pb2.CreateGameRequest) -> list[dict[str, str]]:
        bots = self.engine.bots()
        players = []
        for index, spec in enumerate(request.players):
            name = spec.name.strip() or f"Player {index + 1}"
            if len(name) > MAX_PLAYER_NAME:
                raise errors.invalid("bad_player", f"player names are at most {MAX_PLAYER_NAME} characters")
            if not name.isprintable():
                raise errors.invalid("bad_player", "player names may not contain control characters")
            if spec.bot and spec.bot not in bots:
                raise errors.invalid("unknown_bot", f"no bot named {spec.bot!r}; choose from {sorted(bots)}")
            players.append({"name": name, "bot": spec.bot})
        return players

    async def CreateGame(
        self, request: rules_pb2.CreateGameRequest, context: aio.ServicerContext
    ) -> rules_pb2.CreateGameResponse:
        """Set a game up, store it, and let bots play if they move first."""
        self._require_operator("creating a game")
        players = self._players_from(request)
        seed = request.seed if request.HasField("seed") else secrets.randbelow(2**31)
        try:
            options = self.engine.validate_options(len(players), self._options_from(request))
            match = Match.start(self.engine, len(players), seed, options, canonical=self._canonical)
        except BadConfig as error:
            raise errors.invalid(error.code, error.message) from None
        game_id, tokens = await self.store.create(
            self.game_type, seed, options, players, match.snapshot.to_json(), creation_events=[]
        )
        metrics.GAMES_CREATED.labels(self.game_type).inc()
        log.info("game_created", game_type=self.game_type, game_id=game_id, players=len(players), seed=seed)
        status, version = "active", 0
        if _bot_to_act(players, match.to_act()):
            await self.play_bots(game_id)
            meta = await self.store.meta(game_id)
            status, version = meta.status, meta.version
        seats = [rules_pb2.Seat(seat=i, name=p["name"], bot=p["bot"], token=tokens[i]) for i, p in enumerate(players)]
        return rules_pb2.CreateGameResponse(
            game_id=game_id, game_type=self.game_type, status=status, version=version, seats=seats
        )

    async def GetGame(self, request: rules_pb2.GetGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """The game as the caller may see it."""
        meta, snapshot = await self.store.load(request.game_id)
        self._check_type(meta)
        return self._game_message(meta, self._match(snapshot), self._viewer(meta))

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
        if meta.status != "active":
            return rules_pb2.LegalMoves(version=meta.version)
        moves = self.engine.legal_moves(self._match(snapshot).state, seat)
        names, language = _words(meta, context)
        texts = [self._say(self.sentences.move_text, m, seat, names, language) for m in moves]
        return rules_pb2.LegalMoves(version=meta.version, moves=[self._pack("Move", m) for m in moves], texts=texts)

    async def SubmitMoves(
        self, request: rules_pb2.SubmitMovesRequest, context: aio.ServicerContext
    ) -> rules_pb2.SubmitMovesResponse:
        """Apply the caller's moves atomically, then let bots answer."""
        meta, snapshot = await self.store.load(request.game_id)
        self._check_type(meta)
        seat = self._seat_viewer(meta)
        key = request.idempotency_key
        if len(key) > MAX_IDEMPOTENCY_KEY:
            raise errors.invalid(
                "bad_idempotency_key", f"idempotency keys are at most {MAX_IDEMPOTENCY_KEY} characters"
            )
        earlier = await self.store.idempotent_answer(request.game_id, seat, key)
        if earlier is not None:
            return rules_pb2.SubmitMovesResponse.FromString(earlier)
        moves = self._unpack_moves(request.moves)
        expected = request.expected_version if request.HasField("expected_version") else None
        attempts = 0
        while True:
            try:
                response = await self._submit_once(meta, snapshot, seat, moves, expected, key, _language(context))
                break
            except VersionConflict as error:
                # Without an expected version the caller did not pin a state: re-check on the new one.
                attempts += 1
                if expected is not None or attempts >= RETRIES_WITHOUT_EXPECTED_VERSION:
                    raise errors.conflict(error.current) from None
                meta, snapshot = await self.store.load(request.game_id)
        # Reload and hand over to the bots only when one of them is to act now.
        if response.status == "active" and _bot_to_act(meta.players, response.to_act):
            await self.play_bots(request.game_id)
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
    ) -> rules_pb2.SubmitMovesResponse:
        if meta.status != "active":
            raise errors.illegal("game_not_active", f"the game is {meta.status}")
        if expected is not None and expected != meta.version:
            raise errors.conflict(meta.version)
        match = self._match(snapshot)
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
            commits.append(Commit(seat=seat, bot="", move=move, events=events))
            if self.engine.is_over(match.state) and len(commits) < len(moves):
                raise errors.illegal("game_over", "the game ended before the last moves of the batch")
        return await self._commit(meta, match, commits, seat, key, language)

    async def _commit(
        self,
        meta: GameMeta,
        match: Match,
        commits: list[Commit],
        seat: int | None,
        key: str = "",
        language: str = sentences.DEFAULT_LANGUAGE,
    ) -> rules_pb2.SubmitMovesResponse:
        result = self.engine.result(match.state)
        status = "finished" if result is not None else "active"
        new_version = meta.version + len(commits)
        response = rules_pb2.SubmitMovesResponse(
            version=new_version, status=status, to_act=match.to_act() if result is None else []
        )
        if seat is not None:
            # Only a seat's own submission needs the view and events; bots' moves skip the work.
            response.state.CopyFrom(self._pack("State", self.engine.view(match.state, seat)))
            words = (_names(meta), language)
            for offset, item in enumerate(commits):
                version = meta.version + offset + 1
                response.events.extend(self._event_messages(version, item.seat, item.events, seat, words=words))
        idem_key = self.store.idempotency_key(meta.game_id, seat, key) if seat is not None else ""
        outcome, value = await self.store.commit(
            meta.game_id,
            meta.version,
            match.snapshot.to_json(),
            status,
            result_dict(result),
            commits,
            idempotency_key=idem_key,
            answer=response.SerializeToString(),
        )
        if outcome == "idempotent":
            assert isinstance(value, bytes)
            return rules_pb2.SubmitMovesResponse.FromString(value)
        metrics.MOVES_ACCEPTED.labels(self.game_type).inc(len(commits))
        if result is not None:
            await self.store.mark_inactive(self.game_type, meta.game_id)
            self._record_finish(meta, result, new_version)
        return response

    async def play_bots(self, game_id: str) -> int:
        """Let bot seats move while it is their turn; return how many moves they made.

        Consecutive bot moves are committed in batches (one script call, one snapshot
        write per batch), each move still getting its own version and stream entry.
        Safe with several service instances: a batch is committed against the version
        it was computed from, and a conflict means another instance is already
        playing, so this one stops.
        """
        meta, snapshot = await self.store.load(game_id)
        match = self._match(snapshot)
        bots = self.engine.bots()
        played = 0
        pending: list[Commit] = []
        while meta.status == "active" and played < self.bot_budget:
            seat = next((s for s in match.to_act() if meta.players[s].get("bot")), None)
            if seat is not None:
                bot_name = meta.players[seat]["bot"]
                move, events = self._bot_move(match, bots, bot_name, seat, meta.version + len(pending))
                metrics.BOT_MOVES.labels(self.game_type, bot_name).inc()
                pending.append(Commit(seat=seat, bot=bot_name, move=move, events=events))
                played += 1
            over = self.engine.is_over(match.state)
            if pending and (seat is None or over or len(pending) >= BOT_BATCH or played >= self.bot_budget):
                try:
                    response = await self._commit(meta, match, pending, None)
                except StoreError:
                    break  # another instance moved the game on (or it was aborted): it carries on
                meta = replace(meta, version=response.version, status=response.status)
                pending = []
            if seat is None:
                break
        return played

    def _bot_move(
        self, match: Match, bots: dict[str, Any], bot_name: str, seat: int, salt: int
    ) -> tuple[Move, list[dict[str, Any]]]:
        """Play the bot's move; a bot that fails or cheats is replaced by the random bot for that move."""
        try:
            move = match.bot_move(bots[bot_name], seat, salt)
            return move, match.play(seat, move)
        except Exception:
            log.exception("bot_failed", game_type=self.game_type, bot=bot_name, seat=seat)
            move = match.bot_move(bots["random"], seat, salt)
            return move, match.play(seat, move)

    async def ListEvents(
        self, request: rules_pb2.ListEventsRequest, context: aio.ServicerContext
    ) -> rules_pb2.ListEventsResponse:
        """Events after a version, redacted for the caller."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        viewer = self._viewer(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        response = rules_pb2.ListEventsResponse(version=meta.version)
        words = _words(meta, context)
        for entry in await self.store.entries(request.game_id, after):
            skip_to = skip if entry.version == request.after else -1
            response.events.extend(
                self._event_messages(entry.version, entry.seat, entry.events, viewer, skip_to, words)
            )
        return response

    async def WatchEvents(
        self, request: rules_pb2.WatchEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[rules_pb2.GameEvent]:
        """Events after a version, then live, until the game is over and all is delivered."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        viewer = self._viewer(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        delivered = after
        words = _words(meta, context)
        async for entry in self.store.follow(request.game_id, after, block_ms=2_000):
            if entry is None:
                meta = await self.store.meta(request.game_id)
                if meta.status != "active" and delivered >= meta.version:
                    return
                continue
            delivered = entry.version
            skip_to = skip if entry.version == request.after else -1
            for message in self._event_messages(entry.version, entry.seat, entry.events, viewer, skip_to, words):
                yield message
            if entry.version >= meta.version:
                meta = await self.store.meta(request.game_id)
                if meta.status != "active" and delivered >= meta.version:
                    return

    async def GetReplay(self, request: rules_pb2.GetReplayRequest, context: aio.ServicerContext) -> rules_pb2.Replay:
        """Seed, options, players and every move; unfinished games need an operator key."""
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        if meta.status == "active":
            self._require_operator("the replay of an unfinished game")
        replay = rules_pb2.Replay(
            game_id=meta.game_id,
            game_type=self.game_type,
            seed=meta.seed,
            options=self._pack("Options", meta.options),
            players=[rules_pb2.PlayerSpec(name=p["name"], bot=p.get("bot", "")) for p in meta.players],
            status=meta.status,
        )
        for entry in await self.store.entries(request.game_id, 0):
            if entry.move is None or entry.seat is None:
                continue
            replay.moves.append(
                rules_pb2.ReplayMove(
                    version=entry.version, seat=entry.seat, move=self._pack("Move", entry.move), bot=entry.bot
                )
            )
        result = result_message(meta.result)
        if result is not None:
            replay.result.CopyFrom(result)
        return replay

    async def AbortGame(self, request: rules_pb2.AbortGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Stop an active game for good (operators only)."""
        self._require_operator("aborting a game")
        meta = await self.store.meta(request.game_id)
        self._check_type(meta)
        await self.store.set_status(request.game_id, self.game_type, "aborted")
        log.info("game_aborted", game_type=self.game_type, game_id=meta.game_id, reason=request.reason[:200])
        meta, snapshot = await self.store.load(request.game_id)
        return self._game_message(meta, self._match(snapshot), None)


def _bot_to_act(players: Sequence[dict[str, str]], to_act: Sequence[int]) -> bool:
    """Whether a bot seat is among the seats that must decide now."""
    return any(players[seat].get("bot") for seat in to_act)


def _resume_point(after: int, after_index: int | None) -> tuple[int, int]:
    """Translate (version, index) resume positions into (entries after, skip up to index)."""
    if after_index is None:
        return after, -1
    return after - 1, after_index


def _language(context: aio.ServicerContext) -> str:
    """The call's language, from its ``accept-language`` metadata (English when absent)."""
    for key, value in context.invocation_metadata() or ():
        if key == "accept-language":
            return sentences.pick_language(str(value))
    return sentences.DEFAULT_LANGUAGE


def _names(meta: GameMeta) -> list[str]:
    """The players' names, by seat."""
    return [str(player["name"]) for player in meta.players]


def _words(meta: GameMeta, context: aio.ServicerContext) -> tuple[list[str], str]:
    """What sentences need besides the event: the players' names and the call's language."""
    return _names(meta), _language(context)
