"""The one ``RulesService`` implementation, shared by every game: thin gRPC handlers.

Each handler parses its request, asks :class:`~services.rules.access.Access` who is calling,
and hands the work to :class:`~services.rules.gameplay.GamePlay` (moves and commits), the
:class:`~services.rules.narrator.Narrator` (messages and sentences) or a domain; it never
knows which game it runs beyond ``engine.game_type``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from grpc import aio

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.bots.roster import bots_for
from services.common import errors
from services.common.engine import Engine
from services.common.interceptors import BEARER
from services.common.store import GameNotActive
from services.fairness import seeding
from services.filing.store import GameIndex, is_ended
from services.games.lifecycle import Lifecycle
from services.games.records import GameMeta, LogEntry
from services.games.store import GameStore
from services.legalmoves.entries import legal_answer
from services.lobby import seats as lobby_seats
from services.retention import archive
from services.rules import answers, gametype
from services.rules.access import Access
from services.rules.creation import create_game
from services.rules.gameplay import GamePlay
from services.rules.lobby_rpcs import LobbyRpcs
from services.rules.positions import DEFAULT_CAPACITY
from services.rules.resignation import ResignRpcs
from services.rules.tickets import TICKET_TTL_SECONDS, StreamTickets
from services.streaming.hub import EventHub
from services.streaming.watch import watch_entries


class RulesServicer(LobbyRpcs, ResignRpcs, rules_pb2_grpc.RulesServiceServicer):
    """RulesService for one engine, backed by a :class:`GameStore`.

    Bots never play here: a commit records in Redis that the game needs attention
    and a conductor (``services.conductor``) plays the bots and clock timeouts.
    """

    def __init__(
        self,
        engine: Engine,
        store: GameStore,
        api_keys: frozenset[str],
        live: EventHub | None = None,
        ticket_seconds: int = TICKET_TTL_SECONDS,
        kept_positions: int = DEFAULT_CAPACITY,
    ) -> None:
        self.engine = engine
        self.store = store
        self.game_type = engine.game_type
        # Live events: one reader per watched game, shared by every WatchEvents call (services.streaming).
        self.live = live or EventHub.for_store(store, engine.game_type)
        self.tickets = StreamTickets(store.redis, ticket_seconds)
        self.access = Access(api_keys, self.tickets)
        self.play = GamePlay(engine, store, kept_positions)
        self.narrator = self.play.narrator
        self.index = GameIndex(store.redis)

    async def GetGameType(
        self, request: rules_pb2.GetGameTypeRequest, context: aio.ServicerContext
    ) -> rules_pb2.GameType:
        """Describe the game this service plays, its name and options in the call's language."""
        options = self.narrator.pack("Options", self.engine.default_options())
        bots = sorted(bots_for(self.engine))
        return gametype.game_type_message(self.engine, options, bots, answers.language(context))

    async def GetRules(
        self, request: rules_pb2.GetRulesRequest, context: aio.ServicerContext
    ) -> rules_pb2.RulesSummary:
        """The game's rules summary (Markdown) in the call's language."""
        return gametype.rules_summary(self.game_type, answers.language(context))

    async def CreateGame(
        self, request: rules_pb2.CreateGameRequest, context: aio.ServicerContext
    ) -> rules_pb2.CreateGameResponse:
        """Store a game: active at once when every seat is filled, else waiting for players."""
        return await create_game(self.play, self.access, request)

    async def GetGame(self, request: rules_pb2.GetGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """The game as the caller may see it."""
        meta, snapshot = await self.play.load(request.game_id)
        viewer = self.access.reader(meta)
        game = self.narrator.game_message(meta, self.play.match_of(meta, snapshot), viewer)
        if not self.access.shows_player_ids(meta, viewer):
            for seat in game.seats:
                seat.external_id = ""
        return game

    async def ListLegalMoves(
        self, request: rules_pb2.ListLegalMovesRequest, context: aio.ServicerContext
    ) -> rules_pb2.LegalMoves:
        """The caller's legal moves (empty when it is not the caller's turn)."""
        meta, snapshot = await self.play.load(request.game_id)
        seat = self.access.seat(meta)
        playing = meta.status == "active" and seat not in Lifecycle.from_dict(meta.lifecycle).resigned
        match = self.play.position(meta, snapshot) if playing else None
        return legal_answer(self.narrator, meta.version, match, seat, *answers.words(meta, context))

    async def SubmitMoves(
        self, request: rules_pb2.SubmitMovesRequest, context: aio.ServicerContext
    ) -> rules_pb2.SubmitMovesResponse:
        """Apply the caller's moves atomically; the conductor lets bots answer.

        A gRPC caller reads legal moves with ``ListLegalMoves``: the commit stores no REST
        ``GET legal-moves`` answers (the gateway's ``RenderedRules.SubmitMoves`` does).  Its
        ``read_mask`` spares the parts of the answer it does not read (:mod:`services.rules.readmask`)."""
        return await self.play.submit(request, self.access.seat, answers.language(context), store_legal=False)

    async def ListEvents(
        self, request: rules_pb2.ListEventsRequest, context: aio.ServicerContext
    ) -> rules_pb2.ListEventsResponse:
        """Events after a version, redacted for the caller."""
        meta = await self.play.meta(request.game_id)
        viewer = await self.access.event_viewer(meta, request.ticket)
        archive.refuse_events(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        response = rules_pb2.ListEventsResponse(version=meta.version, status=meta.status)
        words = answers.words(meta, context)
        for entry in await self.store.entries(request.game_id, after):
            skip_to = skip if entry.version == request.after else -1
            response.events.extend(self.narrator.entry_messages(entry, viewer, skip_to, words=words))
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
        meta = await self.play.meta(request.game_id)
        viewer = await self.access.event_viewer(meta, request.ticket)
        archive.refuse_events(meta)
        after, skip = _resume_point(request.after, request.after_index if request.HasField("after_index") else None)
        names = answers.SeatNames(meta, context, self.play.meta)

        async def render(entry: LogEntry) -> list[rules_pb2.GameEvent]:
            skip_to = skip if entry.version == request.after else -1
            return self.narrator.entry_messages(entry, viewer, skip_to, words=await names.at(entry.version))

        async with self.tickets.kept(request.game_id, request.ticket):  # open: its ticket stays good
            async for messages in watch_entries(self.live, self.store, request.game_id, after, render, context):
                yield messages

    async def CreateStreamTicket(
        self, request: rules_pb2.CreateStreamTicketRequest, context: aio.ServicerContext
    ) -> rules_pb2.StreamTicket:
        """A short-lived, read-only ticket for the caller's seat's events (see :mod:`services.rules.tickets`)."""
        meta = await self.play.meta(request.game_id)
        ticket, expires_at = await self.tickets.issue(meta.game_id, self.access.seat(meta))
        answer = rules_pb2.StreamTicket(ticket=ticket)
        answer.expires_at.FromSeconds(expires_at)
        return answer

    async def GetReplay(self, request: rules_pb2.GetReplayRequest, context: aio.ServicerContext) -> rules_pb2.Replay:
        """Seed, options, players and every move; unfinished games need an operator key."""
        meta = await self.play.meta(request.game_id)
        viewer = self.access.reader(meta)  # a private game's replay: its seats, host and operators only
        over = is_ended(meta.status)
        if not over:
            self.access.require_operator("the replay of an unfinished game")
        replay = _replay_header(meta, over)
        if not self.access.shows_player_ids(meta, viewer):
            for player in replay.players:
                player.external_id = ""
        seeding.reveal_seed(replay, meta.seed, over)  # the seed only once over (it reveals every draw)
        replay.options.CopyFrom(self.narrator.pack("Options", meta.options))
        for entry in await archive.replay_entries(self.store, meta):
            if entry.version == 0:
                replay.genesis_hash = entry.hash
            if entry.seat is None:
                continue
            move = rules_pb2.ReplayMove(version=entry.version, seat=entry.seat, bot=entry.bot, kind=entry.kind,
                                        hash=entry.hash, state_digest=entry.state_digest)  # fmt: skip
            if entry.move is not None:
                move.move.CopyFrom(self.narrator.pack("Move", entry.move))
            replay.moves.append(move)
        result = answers.result_message(meta.result)
        if result is not None:
            replay.result.CopyFrom(result)
        return replay

    async def AbortGame(self, request: rules_pb2.AbortGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Stop a waiting or active game for good (operators, or the game's host)."""
        meta = await self.play.meta(request.game_id)
        if not meta.is_host(BEARER.get()):
            self.access.require_operator("aborting a game")
        try:
            await self.play.finisher.abort(meta, request.reason)  # as every end: filed, its event, told
        except GameNotActive as error:
            raise errors.illegal("game_not_active", f"the game is {error.status}") from None
        meta, snapshot = await self.store.load(request.game_id)
        return self.narrator.game_message(meta, self.play.match_of(meta, snapshot), None)


def _replay_header(meta: GameMeta, over: bool) -> rules_pb2.Replay:
    """Everything of a replay but its options and moves."""
    return rules_pb2.Replay(
        game_id=meta.game_id,
        game_type=meta.game_type,
        # The seed and the secret behind it would reveal every future draw: only once it is over.
        server_secret=meta.fairness.server_secret if over else None,
        seed_commitment=meta.fairness.seed_commitment,
        seed_source=meta.fairness.seed_source,
        client_seed=meta.fairness.client_seed,
        log_head=meta.log_head,
        players=[lobby_seats.replay_player(p) for p in meta.players],
        status=meta.status,
    )


def _resume_point(after: int, after_index: int | None) -> tuple[int, int]:
    """Translate (version, index) resume positions into (entries after, skip up to index)."""
    if after_index is None:
        return after, -1
    return after - 1, after_index
