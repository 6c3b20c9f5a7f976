"""``chaiwala.v1.TableService``: a game's state at any past version, and static board data.

The replay viewer steps through a finished game; rebuilding each position means replaying
the log from the seed with the engine, which only the rules service may do (the gateway has
no game logic).  Positions are rebuilt from the log exactly as the replay verifier does
(:mod:`services.fairness.verify`): set up from the seed and options, then every move entry
in order (lifecycle entries such as ``resign`` and ``timeout`` change no engine state).

Past positions of a game still being played are its hidden history (a seat's old hand, the
draws already made), so only finished and aborted games answer, except to operators; even then
each caller gets the view of its own seat or the spectator's, never more.
"""

from __future__ import annotations

from collections import OrderedDict

import grpc
from grpc import aio

from chaiwala.v1 import tables_pb2, tables_pb2_grpc
from services.common import errors
from services.common.runner import Match, Snapshot
from services.filing.store import is_ended
from services.games.records import GameMeta, LogEntry
from services.lobby.creation import waiting_snapshot
from services.rules.answers import words as call_words
from services.rules.boards import board_json
from services.rules.service import RulesServicer

CACHED_POSITIONS = 64  # rebuilt positions kept per process: a replay viewer steps forward one at a time


class TableServicer(tables_pb2_grpc.TableServiceServicer):
    """TableService for one game type, sharing the RulesService's engine, store and credentials.

    It uses the RulesService's access checks, narrator and game play rather
    than copies of them, so both services judge credentials and redact exactly alike.
    """

    def __init__(self, rules: RulesServicer) -> None:
        self.rules = rules
        self.positions: OrderedDict[str, tuple[int, bytes]] = OrderedDict()

    async def GetBoard(self, request: tables_pb2.GetBoardRequest, context: aio.ServicerContext) -> tables_pb2.Board:
        """The game type's static board as JSON."""
        board = board_json(self.rules.game_type)
        if board is None:
            message = f"{self.rules.game_type} has no board data apart from its state"
            raise errors.ServiceError(grpc.StatusCode.NOT_FOUND, "no_board", message)
        document, digest = board
        return tables_pb2.Board(game_type=self.rules.game_type, json=document, digest=digest)

    async def GetGameAtVersion(
        self, request: tables_pb2.GetGameAtVersionRequest, context: aio.ServicerContext
    ) -> tables_pb2.GameAtVersion:
        """The game right after ``request.version``, for the caller's seat or as a spectator."""
        rules = self.rules
        meta, snapshot = await rules.play.load(request.game_id)
        viewer = rules.access.reader(meta)  # a private game: its seats, host and operators only
        if not is_ended(meta.status):
            rules.access.require_operator("a past position of an unfinished game")
        if snapshot == waiting_snapshot():
            raise errors.illegal("game_not_started", "the game never started: it has no positions")
        if request.version > meta.version:
            # Well-formed but not (yet) there, like a game id nobody created: 404, not a bad request.
            raise errors.ServiceError(
                errors.grpc.StatusCode.NOT_FOUND, "version_not_found", f"the game has versions 0 to {meta.version}"
            )
        entries = await rules.store.entries(request.game_id, -1)
        match = self._position(meta, entries, request.version)
        answer = tables_pb2.GameAtVersion(
            game_id=meta.game_id, game_type=rules.game_type, version=request.version, last_version=meta.version
        )
        ended_here = request.version == meta.version and meta.status != "active"  # e.g. the last resignation
        if rules.engine.result(match.state) is None and not ended_here:
            answer.to_act.extend(match.to_act())
        answer.state.CopyFrom(rules.narrator.pack("State", rules.engine.view(match.state, viewer)))
        words = call_words(meta, context)
        for entry in entries:
            if entry.version == request.version:
                answer.events.extend(rules.narrator.entry_messages(entry, viewer, words=words))
        if viewer is not None:
            answer.viewer_seat = viewer
        return answer

    def _position(self, meta: GameMeta, entries: list[LogEntry], version: int) -> Match:
        """The match right after ``version``: from a cached earlier position of this game, else from the seed."""
        rules = self.rules
        cached = self.positions.get(meta.game_id)
        if cached is not None and cached[0] <= version:
            done, raw = cached
            match = rules.play.match(raw)
        else:
            options = rules.engine.validate_options(len(meta.players), meta.options)
            match = Match.start(rules.engine, len(meta.players), meta.seed, options, canonical=rules.play.canonical)
            done = 0
        for entry in entries:
            if done < entry.version <= version and not entry.kind and entry.seat is not None and entry.move is not None:
                match.play(entry.seat, entry.move)
        self.positions[meta.game_id] = (version, Snapshot(match.state, match.snapshot.rng).to_json())
        self.positions.move_to_end(meta.game_id)
        while len(self.positions) > CACHED_POSITIONS:
            self.positions.popitem(last=False)
        return match
