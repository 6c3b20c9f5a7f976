"""Resigning: the seat leaves the game for good, a bot plays its remaining turns.

Mixed into the ``RulesService``.  A resignation is an entry of the game's log
(kind ``resign``, with the seat and no move), so replays show it; see
:mod:`services.games.lifecycle` for how resigned seats rank and when the game ends.
"""

from __future__ import annotations

from grpc import aio

from chaiwala.v1 import rules_pb2
from services.common import errors
from services.common.logs import get_logger
from services.common.store import VersionConflict
from services.fairness import chain
from services.games.lifecycle import Lifecycle
from services.games.records import Commit
from services.games.store import GameStore
from services.rules.access import Access
from services.rules.gameplay import GamePlay

log = get_logger("service")
RESIGN_RETRIES = 8


class ResignRpcs:
    """ResignGame; needs the attributes and helpers of the RulesServicer."""

    store: GameStore
    game_type: str
    play: GamePlay
    access: Access

    async def ResignGame(self, request: rules_pb2.ResignGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """The caller's seat resigns (once); the answer is the game after it."""
        for _ in range(RESIGN_RETRIES):
            meta, snapshot = await self.play.load(request.game_id)
            seat = self.access.seat(meta)
            if meta.status != "active":
                raise errors.illegal("game_not_active", f"the game is {meta.status}")
            lifecycle = Lifecycle.from_dict(meta.lifecycle)
            if seat in lifecycle.resigned:
                raise errors.illegal("already_resigned", "this seat resigned already")
            lifecycle.resigned.append(seat)
            match = self.play.match(snapshot)
            entry = Commit(seat=seat, bot="", move=None, events=[], kind="resign", state_digest=chain.digest(snapshot))
            try:
                _, after = await self.play.commit(meta, match, [entry], None, lifecycle=lifecycle)
            except VersionConflict:
                continue  # a move got in first: resign from the new state
            log.info("seat_resigned", game_type=self.game_type, game_id=meta.game_id, seat=seat)
            assert after is not None  # only a keyed retry answers without it, and this commit has no key
            return self.play.narrator.game_message(after, match, seat)  # the commit knows the game after it: no reload
        raise errors.conflict(meta.version)
