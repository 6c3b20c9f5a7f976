"""Turn facts for the outbox: ``turn.started`` when a human seat becomes due, ``turn.reminder``
when its deadline comes near (pure: no I/O).

*A seat newly due* is the one rule, shared with the player stream's ``your_turn``: a human seat
(not a bot, not resigned, so a stand-in bot plays it) that is to act after a commit and was not
to act before it — before the commit, or after one of the commit's own entries (a seat that ended
its turn and is due again within one commit starts a new turn).  A seat that stays to act across
commits (a turn made of several steps, a retried move) is not due again, so there is one
``turn.started`` per seat per turn; the event id names game, version and seat, so the same fact
written twice is one event.

Data of both: ``game_id``, ``game_type``, ``version``, ``seat``, ``players`` (as every game
event shows them: names, bots, ``external_id``), the seat's ``external_id`` when its player has
one, and ``deadline`` (RFC 3339) when its clock runs.  ``turn.reminder`` adds ``lead_s``, how long
before the deadline it was scheduled.  Nothing here is hidden information: who is to act and
until when is on every seat's view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from services.clock import clock as clocks
from services.clock.reminders import Reminder
from services.outbox.events import TURN_REMINDER, TURN_STARTED, event_id, player_data
from services.outbox.stream import OutboxEvent, new_event


class _Entry(Protocol):
    """What the rule needs of a commit's entry (``services.games.records.Commit``)."""

    @property
    def to_act(self) -> Sequence[int] | None: ...


def human_seats(players: Sequence[dict[str, Any]], resigned: Iterable[int]) -> set[int]:
    """Seats a person plays: no bot, not resigned."""
    gone = set(resigned)
    return {seat for seat, player in enumerate(players) if not player.get("bot") and seat not in gone}


def newly_due(before: Sequence[int], entries: Sequence[_Entry], after: Sequence[int]) -> list[int]:
    """Seats to act ``after`` a commit that were not to act ``before`` it or after one of its ``entries``."""
    was_due = set(before)
    for entry in entries:
        if entry.to_act is not None:
            was_due &= set(entry.to_act)
    return sorted(set(after) - was_due)


def _turn_data(game_id: str, game_type: str, players: Sequence[dict[str, Any]], seat: int, version: int,
               deadline_ms: int | None) -> dict[str, Any]:  # fmt: skip
    data: dict[str, Any] = {
        "game_id": game_id,
        "game_type": game_type,
        "version": version,
        "seat": seat,
        "players": [player_data(index, record) for index, record in enumerate(players)],
    }
    external_id = players[seat].get("external_id")
    if external_id:
        data["external_id"] = external_id
    if deadline_ms is not None:
        data["deadline"] = clocks.rfc3339(deadline_ms)
    return data


def turns_started(
    game_id: str,
    game_type: str,
    players: Sequence[dict[str, Any]],
    seats: Iterable[int],
    version: int,
    lifecycle: dict[str, Any],
    ts_ms: int,
) -> list[OutboxEvent]:
    """``turn.started`` for each of ``seats`` a person plays, at ``version`` (``lifecycle`` as
    stored after the commit: its clock gives the deadlines, its ``resigned`` the stand-ins)."""
    humans = human_seats(players, lifecycle.get("resigned", []))
    deadlines = clocks.deadlines(lifecycle.get("clock"))
    return [
        new_event(
            TURN_STARTED,
            _turn_data(game_id, game_type, players, seat, version, deadlines.get(seat)),
            event_id(game_id, TURN_STARTED, version, seat),
            ts_ms,
        )
        for seat in sorted(seats)
        if seat in humans
    ]


def for_commit(meta: Any, status: str, entries: Sequence[_Entry], lifecycle: dict[str, Any],
               ts_ms: int) -> list[OutboxEvent]:  # fmt: skip
    """The ``turn.started`` facts of a commit of ``entries`` on ``meta`` (a ``GameMeta``), whose
    ``lifecycle`` after it holds the seats to act; none once the game ended."""
    if status != "active":
        return []
    before = [int(seat) for seat in (meta.lifecycle or {}).get("to_act", [])]
    seats = newly_due(before, entries, lifecycle.get("to_act", []))
    version = meta.version + len(entries)
    return turns_started(meta.game_id, meta.game_type, meta.players, seats, version, lifecycle, ts_ms)


def reminder(meta: Any, due: Reminder, ts_ms: int) -> OutboxEvent:
    """``turn.reminder`` of one seat of ``meta`` (a ``GameMeta``) at its current version."""
    data = _turn_data(meta.game_id, meta.game_type, meta.players, due.seat, meta.version, due.deadline_ms)
    data["lead_s"] = due.lead_ms // 1000
    fact = f"{TURN_REMINDER}/{due.lead_ms}"  # one fact per turn, seat and lead
    return new_event(TURN_REMINDER, data, event_id(meta.game_id, fact, meta.version, due.seat), ts_ms)
