"""Turn reminders: when a running clock's deadline comes near, the seat is reminded.

A seat whose clock runs gets one reminder per *lead* (``CHAIWALA_TURN_REMINDERS_S``, seconds
before the deadline, comma-separated; default 12 h and 1 h), at ``deadline - lead``, provided the
turn had started by then (a turn that starts with less time left than a lead skips it: its
``turn.started`` already says the deadline).  Clocks whose limit (the per-turn limit or the bank)
is shorter than ``CHAIWALA_TURN_REMINDER_MIN_CLOCK_S`` (default 2 h) get none: a blitz game needs
no callback.

The conductor keeps the schedule: a game's attention time includes its next reminder
(:func:`next_reminder`, through ``services.games.lifecycle.attention_due``), and when it claims a
game with a reminder due it writes ``turn.reminder`` to the outbox (:func:`due_reminders`).  A
reminder's event id names its game, version, seat and lead, so a conductor that writes it twice
(it was killed before releasing the claim) writes one fact, which consumers deduplicate.

Settings are read from the environment on every call (a dictionary look-up), as the idle limit
is, so every process that schedules attention agrees without wiring a setting through each.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from services.clock.clock import Clock, deadlines

DEFAULT_LEADS_S = (12 * 3600, 3600)
DEFAULT_MIN_CLOCK_S = 2 * 3600


@dataclass(frozen=True)
class Reminder:
    """One reminder due: the seat, its deadline (Unix ms) and how long before it (ms)."""

    seat: int
    deadline_ms: int
    lead_ms: int


def leads_ms() -> tuple[int, ...]:
    """The reminder leads, longest first, in ms (none when the setting is empty or ``0``)."""
    raw = os.environ.get("CHAIWALA_TURN_REMINDERS_S")
    if raw is None:
        return tuple(lead * 1000 for lead in DEFAULT_LEADS_S)
    values = [float(part) for part in raw.split(",") if part.strip()]
    return tuple(sorted((int(value * 1000) for value in values if value > 0), reverse=True))


def min_clock_ms() -> int:
    """The shortest clock limit that gets reminders, in ms."""
    raw = os.environ.get("CHAIWALA_TURN_REMINDER_MIN_CLOCK_S", "")
    return int(float(raw) * 1000) if raw.strip() else DEFAULT_MIN_CLOCK_S * 1000


def _limit_ms(clock: Clock) -> int:
    return int(clock.get("per_turn_ms") or clock.get("bank_ms") or 0)


def _schedule(clock: Clock | None) -> list[tuple[int, int, int, int]]:
    """(when, seat, deadline, lead) of every reminder of the turns running now, earliest first."""
    if clock is None or _limit_ms(clock) < min_clock_ms():
        return []
    out = []
    for seat, deadline in deadlines(clock).items():
        started = int(clock["turn_started_ms"].get(str(seat), 0))
        for lead in leads_ms():
            when = deadline - lead
            if when >= started:
                out.append((when, seat, deadline, lead))
    return sorted(out)


def next_reminder(clock: Clock | None, now: int) -> int | None:
    """When the next reminder after ``now`` is due (Unix ms), ``None`` when none is left."""
    return next((when for when, *_ in _schedule(clock) if when > now), None)


def due_reminders(clock: Clock | None, now: int, to_act: list[int]) -> list[Reminder]:
    """The reminders due by ``now`` for seats still to act before their deadline: per seat only the
    nearest lead passed (an earlier, longer lead that was missed is stale)."""
    latest: dict[int, Reminder] = {}
    for when, seat, deadline, lead in _schedule(clock):
        if when <= now < deadline and seat in to_act:
            latest[seat] = Reminder(seat, deadline, lead)
    return [latest[seat] for seat in sorted(latest)]
