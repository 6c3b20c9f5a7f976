"""Platform state of a game beside its engine state: resignations, timeouts, clock.

It lives in the game's metadata (``lifecycle``, JSON) and is rewritten by every
commit, atomically with the snapshot.  Everything in it is derived from the log
(resign and timeout entries) plus the wall-clock times of the commits, so the
replay of ``seed + log`` reproduces every engine state and result.

Decisions (see README "Match lifecycle"):

* A resigned seat ranks below every seat still playing; among resigned seats the
  engine's order holds.  Its remaining turns are played by the game's heuristic bot
  (the random bot where a game has none), so the others can finish.
* When only one seat is still playing, the game cannot go on meaningfully (a 2-player
  game): it ends at once and that seat wins, score 1; resigned seats score 0.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from services.clock import clock as clocks
from services.clock.reminders import next_reminder
from services.common.engine import Result

ON_TIMEOUT = ("bot", "resign", "abort")
DEFAULT_TIMEOUTS_TO_RESIGN = 3
DAY_SECONDS = 24 * 3600


@dataclass
class Lifecycle:
    """Resigned seats, timeouts per seat, clock and timeout policy of one game."""

    resigned: list[int] = field(default_factory=list)
    timeouts: list[int] = field(default_factory=list)
    clock: clocks.Clock | None = None
    on_timeout: str = "bot"
    timeouts_to_resign: int = DEFAULT_TIMEOUTS_TO_RESIGN
    # When the game's log last grew (Unix ms; 0 = not since it started): what idle aborts count from.
    touched_ms: int = 0
    # When the game started (Unix ms; 0 = unknown, a game from before it was kept): game events
    # carry it and the game-duration metric counts from it (services.outbox.events).
    started_ms: int = 0
    # The seats to act after the last commit (empty once over): lets a player's game list say
    # whose turn it is without loading the engine (services.lobby.mine).
    to_act: list[int] = field(default_factory=list)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Lifecycle:
        """Read the metadata form (missing fields take their defaults).  Nothing of ``data`` is
        shared: a commit advances the clock in place, and the metadata read may be a kept one
        (:mod:`services.rules.positions`) that other requests read too."""
        return Lifecycle(
            resigned=list(data.get("resigned", [])),
            timeouts=list(data.get("timeouts", [])),
            clock=_copied(data.get("clock")),
            on_timeout=data.get("on_timeout", "bot"),
            timeouts_to_resign=int(data.get("timeouts_to_resign", DEFAULT_TIMEOUTS_TO_RESIGN)),
            touched_ms=int(data.get("touched_ms", 0)),
            started_ms=int(data.get("started_ms", 0)),
            to_act=[int(seat) for seat in data.get("to_act", [])],
        )

    def to_dict(self) -> dict[str, Any]:
        """The metadata form."""
        return {
            "resigned": self.resigned,
            "timeouts": self.timeouts,
            "clock": self.clock,
            "on_timeout": self.on_timeout,
            "timeouts_to_resign": self.timeouts_to_resign,
            "touched_ms": self.touched_ms,
            "started_ms": self.started_ms,
            "to_act": self.to_act,
        }

    def count_timeout(self, seat: int) -> int:
        """Record one more timeout of ``seat``; return its count."""
        while len(self.timeouts) <= seat:
            self.timeouts.append(0)
        self.timeouts[seat] += 1
        return self.timeouts[seat]

    def playing(self, seats: int) -> list[int]:
        """Seats that have not resigned."""
        return [seat for seat in range(seats) if seat not in self.resigned]


def _copied(clock: clocks.Clock | None) -> clocks.Clock | None:
    """A clock's own copy: its lists and maps one level down (its values are numbers)."""
    if clock is None:
        return None
    return {key: (list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value)
            for key, value in clock.items()}  # fmt: skip


def bot_of_seat(players: Sequence[dict[str, Any]], lifecycle: Lifecycle, seat: int, bots: Sequence[str]) -> str:
    """The bot that plays ``seat`` now: its own, or the stand-in of a resigned seat; "" for a human."""
    own = str(players[seat].get("bot") or "")
    if own:
        return own
    if seat in lifecycle.resigned:
        return stand_in_bot(bots)
    return ""


def stand_in_bot(bots: Sequence[str]) -> str:
    """The bot that plays for resigned or timed-out seats: heuristic where the game has one."""
    return "heuristic" if "heuristic" in bots else "random"


def clocked_seats(players: Sequence[dict[str, Any]], lifecycle: Lifecycle) -> set[int]:
    """Seats whose clock runs when they are to act: humans still playing."""
    return {s for s, p in enumerate(players) if not p.get("bot") and s not in lifecycle.resigned}


def rank_with_resignations(result: Result, resigned: Sequence[int]) -> Result:
    """The engine's result with resigned seats ranked below every seat still playing."""
    if not resigned:
        return result
    keys = [(seat in resigned, result.ranking[seat]) for seat in range(len(result.ranking))]
    ranking = [1 + sum(1 for other in keys if other < keys[s]) for s in range(len(keys))]
    winners = [s for s in range(len(keys)) if ranking[s] == 1 and s not in resigned]
    return Result(scores=list(result.scores), ranking=ranking, winners=winners)


def last_seat_standing(seats: int, lifecycle: Lifecycle) -> Result | None:
    """The result when resignations left at most one seat playing (it wins), else ``None``."""
    playing = lifecycle.playing(seats)
    if not lifecycle.resigned or len(playing) > 1:
        return None
    scores = [1.0 if seat in playing else 0.0 for seat in range(seats)]
    ranking = [1 if seat in playing else 2 for seat in range(seats)]
    return Result(scores=scores, ranking=ranking, winners=list(playing))


def settled_result(engine_result: Result | None, seats: int, lifecycle: Lifecycle) -> Result | None:
    """The game's result as the platform settles it: the last seat standing wins, else the
    engine's result (``None`` while it plays on) with resigned seats ranked below the others."""
    alone = last_seat_standing(seats, lifecycle)
    if alone is not None:
        return alone
    return None if engine_result is None else rank_with_resignations(engine_result, lifecycle.resigned)


def idle_abort_ms() -> int:
    """How long an active game may go without a log entry before the conductor aborts it (0 = never):
    ``CHAIWALA_IDLE_ABORT_SECONDS`` (default 30 days; the retention policy, :mod:`services.retention.policy`).

    Read from the environment on every call (a dictionary look-up), so that every process that
    schedules attention agrees with the conductors without wiring a setting through each of them.
    """
    raw = os.environ.get("CHAIWALA_IDLE_ABORT_SECONDS", "")
    seconds = float(raw) if raw.strip() else 30.0 * DAY_SECONDS
    return max(0, int(seconds * 1000))


def attention_due(
    players: Sequence[dict[str, Any]], lifecycle: Lifecycle, to_act: Sequence[int], now: int
) -> int | None:
    """When the conductor must look at an active game: now for a bot to act, else the earliest
    deadline or turn reminder (:mod:`services.clock.reminders`), at the latest when it has been idle too
    long (:func:`idle_abort_ms`)."""
    if any(players[seat].get("bot") or seat in lifecycle.resigned for seat in to_act):
        return now
    deadlines = list(clocks.deadlines(lifecycle.clock).values())
    reminder = next_reminder(lifecycle.clock, now)  # a turn.reminder is the conductor's to write
    if reminder is not None:
        deadlines.append(reminder)
    idle_limit = idle_abort_ms()
    if idle_limit:
        deadlines.append((lifecycle.touched_ms or now) + idle_limit)
    return min(deadlines) if deadlines else None


def idle_too_long(lifecycle: Lifecycle, started_ms: int, now: int) -> bool:
    """Whether an active game went without a log entry for longer than the idle limit."""
    idle_limit = idle_abort_ms()
    return bool(idle_limit) and now - (lifecycle.touched_ms or started_ms) >= idle_limit
