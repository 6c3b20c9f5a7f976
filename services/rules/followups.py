"""What follows a committed step of a game, in one place.

A game's step (creation, the lobby's start, a commit of moves or lifecycle entries, an abort) is
durable once Redis has it; what follows it is best effort and outside it, because losing it costs
a delay, never a wrong game:

* **the conductors** are nudged when the game is due before their longest sleep ends
  (:func:`services.common.attention.wake_conductors`; a lost nudge is caught by the next poll);
* **the players' feeds** get one notice per seated player (:mod:`services.lobby.feed`): a game
  started, whose turn it is, a game ended, an invitation; a lost notice is logged, never raised.

The position cache of :class:`~services.rules.gameplay.GamePlay` is its own (in memory) and is
kept there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from services.clock import clock as clocks
from services.common.attention import wake_conductors
from services.games.store import GameStore
from services.lobby.feed import Feed


class FollowUps:
    """The follow-ups of one game type's steps."""

    def __init__(self, store: GameStore, game_type: str) -> None:
        self.redis = store.redis
        self.game_type = game_type

    async def started(self, game_id: str, players: Sequence[dict[str, Any]], to_act: Sequence[int],
                      clock: clocks.Clock | None, attention_ms: int | None, now: int) -> None:  # fmt: skip
        """A game started (created active, or started by the lobby): nudge, then ``game_started`` and
        ``your_turn`` for its players."""
        await wake_conductors(self.redis, attention_ms, now)
        await Feed(self.redis).started(game_id, self.game_type, players, to_act, 0, clock)

    async def invited(self, game_id: str, players: Sequence[dict[str, Any]], host: str, creator: str) -> None:
        """A game that waits for players: ``invited`` for every player seated by someone else."""
        await Feed(self.redis).invited(game_id, self.game_type, players, host, creator)

    async def moved(self, game_id: str, players: Sequence[dict[str, Any]], to_act: Sequence[int], version: int,
                    clock: clocks.Clock | None, attention_ms: int | None, now: int) -> None:  # fmt: skip
        """A commit that left the game active: nudge, then ``your_turn`` for ``to_act``, the seats it made
        due (:func:`services.lobby.feed.becoming_due`: once per turn, not after every move of a turn)."""
        await wake_conductors(self.redis, attention_ms, now)
        await Feed(self.redis).turns(game_id, self.game_type, players, to_act, version, clock)

    async def ended(self, game_id: str, players: Sequence[dict[str, Any]], status: str,
                    result: dict[str, Any] | None) -> None:  # fmt: skip
        """A game ended (:class:`~services.rules.finisher.Finisher`): ``game_finished`` for its players.
        An ended game needs no conductor: its step dropped its attention."""
        await Feed(self.redis).finished(game_id, self.game_type, players, status, result)
