"""Time controls: a per-turn limit, or a Fischer time bank per seat, or none.

The clock is platform state (the game's metadata ``lifecycle.clock``), updated at
every commit from the wall clock of the process that commits.  Engines never see
it.  What the clock decides (a timeout) enters the game's log as an entry, so
``seed + log`` still reproduces the game.

Clock dict shape (JSON in the game's metadata)::

    {"per_turn_ms": N} or {"bank_ms": N, "increment_ms": M},
    "remaining_ms": [ms per seat],            # bank mode: the bank; per-turn: the limit
    "turn_started_ms": {"<seat>": unix ms}    # seats to act whose clock runs

Only *clocked* seats run a clock: human seats that have not resigned.  A seat's
turn starts when it becomes one of the seats to act and ends when it moves (or
stops being to act); games with several seats to act at once run one clock per
seat.  In bank mode a move costs the time it took and earns the increment; a
bank never goes below zero, so a seat that ran out has only its increment for
its next turns (and times out again if it does not move within it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

Clock = dict[str, Any]
MAX_CLOCK_SECONDS = 30 * 24 * 3600


class BadClock(ValueError):
    """A time control the platform does not support."""


def now_ms() -> int:
    """The platform's wall clock, in Unix milliseconds."""
    return int(time.time() * 1000)


def rfc3339(ms: int) -> str:
    """A Unix-ms instant as RFC 3339 (UTC, millisecond precision)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_clock(per_turn_s: int, bank_s: int, increment_s: int, seats: int) -> Clock | None:
    """A fresh clock for ``seats`` seats, or ``None`` for no time control."""
    if per_turn_s and bank_s:
        raise BadClock("choose either per_turn_s or bank_s, not both")
    if increment_s and not bank_s:
        raise BadClock("increment_s goes with bank_s")
    if max(per_turn_s, bank_s, increment_s) > MAX_CLOCK_SECONDS:
        raise BadClock(f"clock values are at most {MAX_CLOCK_SECONDS} seconds")
    if per_turn_s:
        return {"per_turn_ms": per_turn_s * 1000, "remaining_ms": [per_turn_s * 1000] * seats, "turn_started_ms": {}}
    if bank_s:
        return {
            "bank_ms": bank_s * 1000,
            "increment_ms": increment_s * 1000,
            "remaining_ms": [bank_s * 1000] * seats,
            "turn_started_ms": {},
        }
    return None


def _end_turn(clock: Clock, seat: int, now: int, moved: bool) -> None:
    started = clock["turn_started_ms"].pop(str(seat), None)
    if started is None or "bank_ms" not in clock:
        return
    left = max(0, clock["remaining_ms"][seat] - (now - started))
    clock["remaining_ms"][seat] = left + (clock["increment_ms"] if moved else 0)


def advance(clock: Clock | None, movers: Iterable[int], to_act: Iterable[int], clocked: set[int], now: int) -> None:
    """Update ``clock`` in place after a commit: charge the movers, start the turns of new seats to act."""
    if clock is None:
        return
    acting = {seat for seat in to_act if seat in clocked}
    for seat in set(movers):
        _end_turn(clock, seat, now, moved=True)
    for key in list(clock["turn_started_ms"]):
        if int(key) not in acting:
            _end_turn(clock, int(key), now, moved=False)
    for seat in acting:
        clock["turn_started_ms"].setdefault(str(seat), now)


def renumber(clock: Clock | None, seats: int) -> None:
    """Resize a clock made for the seats offered to the seats that actually play."""
    if clock is not None:
        clock["remaining_ms"] = clock["remaining_ms"][:seats]


def deadlines(clock: Clock | None) -> dict[int, int]:
    """The deadline (Unix ms) of every seat whose clock runs."""
    if clock is None:
        return {}
    out = {}
    for key, started in clock["turn_started_ms"].items():
        seat = int(key)
        limit = clock.get("per_turn_ms") or clock["remaining_ms"][seat]
        out[seat] = started + limit
    return out


def overdue(clock: Clock | None, now: int) -> list[int]:
    """Seats whose time ran out by ``now``, in seat order."""
    return sorted(seat for seat, deadline in deadlines(clock).items() if deadline <= now)


def remaining_s(clock: Clock, now: int) -> dict[str, float]:
    """Time left per seat in seconds, counting down for seats whose clock runs."""
    running = deadlines(clock)
    out = {}
    for seat, left in enumerate(clock["remaining_ms"]):
        value = running[seat] - now if seat in running else left
        out[str(seat)] = round(max(0, value) / 1000, 3)
    return out
