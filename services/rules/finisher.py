"""Finisher: the one way a game ends.

Every end goes through here: the last move, a resignation that leaves one seat standing (a
tournament's withdrawal resigns the entrant's seats), a clock's timeout under the ``resign`` or
``abort`` policy, the conductor's idle abort — all commits of :class:`~services.rules.gameplay.GamePlay`
— and an operator's or host's abort, which changes the status without a log entry.

For each it does the same three things:

* **files the end** — the status it hands the atomic step, whose
  :data:`~services.filing.store.FILING` part moves the game between the listings, out of the active
  set and into the retention index (:mod:`services.filing`);
* **writes the outbox event** — ``game.finished`` or ``game.aborted`` (and a timeout's
  ``seat.timed_out``), in the same atomic step (:mod:`services.outbox`);
* **schedules what follows** — the step drops the game's attention (an ended game needs no
  conductor); once it is committed, the end is logged and every seated player's feed is told
  (:class:`~services.rules.followups.FollowUps`).

Whether a position ends the game is decided here once (:meth:`Finisher.is_over`, and with the
result :meth:`Finisher.settle`), from the engine, the resignations and the timeout policy; whether
a stored status is an end is :func:`services.filing.store.is_ended`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from services.clock import clock as clocks
from services.common.engine import Engine, Result
from services.common.logs import get_logger
from services.common.runner import Match
from services.filing.store import is_ended
from services.games.lifecycle import Lifecycle, last_seat_standing, settled_result
from services.games.records import Commit, GameMeta
from services.games.store import GameStore
from services.outbox import events as outbox_events
from services.outbox.stream import OutboxEvent
from services.rules import answers
from services.rules.followups import FollowUps

log = get_logger("service")

@dataclass(frozen=True)
class Outcome:
    """A game after a commit: its status and, once finished, its result."""

    status: str
    result: Result | None = None

    @property
    def over(self) -> bool:
        """Whether the game ended (finished or aborted)."""
        return is_ended(self.status)

    @property
    def result_dict(self) -> dict[str, Any] | None:
        """The result as stored and shown (``None`` unless finished)."""
        return answers.result_dict(self.result)


class Finisher:
    """Ends the games of one game type (see the module's docstring)."""

    def __init__(self, engine: Engine, store: GameStore, follow: FollowUps) -> None:
        self.engine = engine
        self.store = store
        self.follow = follow
        self.game_type = engine.game_type

    def is_over(self, meta: GameMeta, match: Match, lifecycle: Lifecycle) -> bool:
        """Whether the position ends the game: the engine says so, or resignations left at most one
        seat playing (cheaper than :meth:`settle`, which also ranks)."""
        return self.engine.is_over(match.state) or last_seat_standing(len(meta.players), lifecycle) is not None

    def settle(self, meta: GameMeta, match: Match, lifecycle: Lifecycle) -> Outcome:
        """The game after a commit: the engine's result re-ranked for resignations, or the last seat
        standing's win (``finished``), ``aborted`` when a timeout policy or the idle limit aborted it
        (``meta.status`` says so), else still ``active``."""
        if meta.status == "aborted":
            return Outcome("aborted")
        result = settled_result(self.engine.result(match.state), len(meta.players), lifecycle)
        return Outcome("finished", result) if result is not None else Outcome("active")

    def events(
        self, meta: GameMeta, outcome: Outcome, commits: Sequence[Commit], lifecycle: Lifecycle, now: int
    ) -> list[OutboxEvent]:
        """The outbox events a commit writes with itself: a timeout's ``seat.timed_out``, and the
        end's ``game.finished`` or ``game.aborted`` when it ends the game."""
        return outbox_events.for_commit(meta, outcome.status, outcome.result_dict, commits, lifecycle.to_dict(), now)

    async def abort(self, meta: GameMeta, reason: str) -> None:
        """Stop a waiting or active game for good, with no log entry (an operator's or host's abort):
        its status, filing and ``game.aborted`` in one atomic step, then what follows an end.

        Raises :class:`~services.common.store.GameNotActive` when it had ended already."""
        aborted = outbox_events.game_aborted(meta, meta.version, clocks.now_ms())
        await self.store.set_status(meta.game_id, "aborted", [aborted], meta.visibility)
        await self.ended(meta, Outcome("aborted"), meta.version, abort_reason=reason)

    async def ended(self, meta: GameMeta, outcome: Outcome, version: int, abort_reason: str | None = None) -> None:
        """What follows an end once it is committed (best effort: the end itself is filed already):
        the log line, and every seated player's ``game_finished`` in their feed."""
        if outcome.result is not None:
            # The game's metrics are counted once, from its game.finished (services.conductor.game_facts).
            log.info("game_finished", game_type=self.game_type, game_id=meta.game_id, moves=version,
                     winners=outcome.result.winners)  # fmt: skip
        if abort_reason is not None:
            log.info("game_aborted", game_type=self.game_type, game_id=meta.game_id, reason=abort_reason[:200])
        await self.follow.ended(meta.game_id, meta.players, outcome.status, outcome.result_dict)
