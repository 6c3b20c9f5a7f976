"""The game domain's outbox events, built from what a commit writes (pure: no I/O).

Event ids are derived from the fact (game, type, version, seat), so the same fact always has
the same id: a consumer that sees it twice knows it is one event.

Data of every game event: ``game_id``, ``game_type``, ``version`` and ``players``
(``seat``, ``name``, ``bot`` and the ``external_id`` the player record carries, if any);
``game.finished`` adds ``result`` as ``GET /v1/games/{id}`` shows it (``scores``,
``ranking``, ``winners``), ``resigned`` seats, ``rated`` and the end ``reason``
(:func:`end_reason`); ``game.finished`` and ``game.aborted`` of a game that had started add
``started_at`` (RFC 3339) and ``duration_ms`` (wall clock from its start to this event);
``game.aborted`` adds ``rated``, ``reason`` ``abort`` and ``started`` (false for a lobby that
never started); ``seat.timed_out`` adds ``seat`` and
the timeout ``policy``.

Order: a game's events happen in the order of :func:`sequence_of` (see
``docs/concepts/webhooks-order.md``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from services.clock import clock as clocks
from services.outbox.stream import OutboxEvent, new_event

GAME_STARTED = "game.started"
GAME_FINISHED = "game.finished"
GAME_ABORTED = "game.aborted"
SEAT_TIMED_OUT = "seat.timed_out"
GAME_EVENT_TYPES = (GAME_STARTED, GAME_FINISHED, GAME_ABORTED, SEAT_TIMED_OUT)
# A human seat became due (newly to act), and its deadline comes near (see services/outbox/turns.py).
TURN_STARTED = "turn.started"
TURN_REMINDER = "turn.reminder"
TURN_EVENT_TYPES = (TURN_STARTED, TURN_REMINDER)
# Someone else seated a player (an invitation to a waiting game, a quick-play match): facts for the
# notification sender only, no webhook event types (see services/outbox/seating.py).
SEAT_INVITED = "seat.invited"
MATCH_FOUND = "match.found"
SEATING_EVENT_TYPES = (SEAT_INVITED, MATCH_FOUND)
# Copied from a player record into events when present (set by the tournament and rating domain).
PLAYER_EXTRA_FIELDS = ("external_id",)
# How a game ended (game.finished and game.aborted ``reason``; chaiwala_games_ended_total{reason}).
NORMAL, RESIGN, TIMEOUT, ABORT = "normal", "resign", "timeout", "abort"
END_REASONS = (NORMAL, RESIGN, TIMEOUT, ABORT)


class _Entry(Protocol):
    """What the commit events need of a log entry (``services.games.records.Commit``)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def kind(self) -> str: ...


def event_id(game_id: str, event_type: str, version: int, seat: int | None = None) -> str:
    """The stable id of one fact about a game."""
    fact = f"{game_id}|{event_type}|{version}|{'' if seat is None else seat}"
    return "evt_" + hashlib.sha256(fact.encode()).hexdigest()[:32]


def player_data(seat: int, record: dict[str, Any]) -> dict[str, Any]:
    """A seat as events show it."""
    data: dict[str, Any] = {"seat": seat, "name": str(record.get("name", "")), "bot": str(record.get("bot", ""))}
    for name in PLAYER_EXTRA_FIELDS:
        if record.get(name):
            data[name] = record[name]
    return data


def _game_data(game_id: str, game_type: str, version: int, players: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "game_type": game_type,
        "version": version,
        "players": [player_data(seat, record) for seat, record in enumerate(players)],
    }


def result_data(result: dict[str, Any]) -> dict[str, Any]:
    """A stored result as the REST API shows it (scores are doubles there)."""
    return {
        "scores": [float(score) for score in result.get("scores", [])],
        "ranking": [int(place) for place in result.get("ranking", [])],
        "winners": [int(seat) for seat in result.get("winners", [])],
    }


def game_started(game_id: str, game_type: str, players: Sequence[dict[str, Any]], ts_ms: int) -> OutboxEvent:
    """A game became active (created full, or its lobby filled or its host started it)."""
    data = _game_data(game_id, game_type, 0, players)
    return new_event(GAME_STARTED, data, event_id(game_id, GAME_STARTED, 0), ts_ms)


def game_aborted(meta: Any, version: int, ts_ms: int, lifecycle: dict[str, Any] | None = None) -> OutboxEvent:
    """The game ``meta`` (a ``GameMeta``; ``lifecycle`` its platform state if newer than the
    meta's) was stopped without a result (operator, host, clock or idle abort); ``started_at``
    and ``duration_ms`` only when it had started."""
    data = {
        **_game_data(meta.game_id, meta.game_type, version, meta.players),
        "rated": bool(meta.rated),
        "reason": ABORT,
        "started": meta.status != "waiting",
    }
    if data["started"]:
        data.update(_timing(meta.lifecycle if lifecycle is None else lifecycle, ts_ms))
    return new_event(GAME_ABORTED, data, event_id(meta.game_id, GAME_ABORTED, version), ts_ms)


def _timing(lifecycle: dict[str, Any], ts_ms: int) -> dict[str, Any]:
    """``started_at`` and ``duration_ms`` of an ending game (nothing when its start is unknown)."""
    started_ms = int(lifecycle.get("started_ms") or 0)
    if not started_ms:
        return {}
    return {"started_at": clocks.rfc3339(started_ms), "duration_ms": max(0, ts_ms - started_ms)}


def end_reason(seats: int, lifecycle: dict[str, Any], commits: Sequence[_Entry]) -> str:
    """Why a game that finished with a result ended (aborted games are :data:`ABORT`).

    * ``resign`` - resignations left at most one seat playing (that seat wins), and the commit
      that ended the game holds no timeout entry: a player resigned.
    * ``timeout`` - the same, but the ending commit holds a timeout entry: a clock ran out and
      the ``resign`` timeout policy resigned the seat.
    * ``normal`` - the rules ended the game (played to its end, by people or bots; seats that
      resigned earlier and were played by a stand-in bot do not change that).
    """
    resigned = {int(seat) for seat in lifecycle.get("resigned", [])}
    if not resigned or seats - len(resigned) > 1:
        return NORMAL
    return TIMEOUT if any(item.kind == "timeout" for item in commits) else RESIGN


def sequence_of(event_type: str, data: dict[str, Any]) -> int | None:
    """The place of a game event among its game's events (increasing in the order they happen),
    ``None`` for an event that is not a game's.

    Twice the game's version at the event, plus one for the event that ends the game: a
    ``seat.timed_out`` and the ``game.finished`` or ``game.aborted`` of the same commit share
    a version, and the end comes after it.
    """
    if event_type in TURN_EVENT_TYPES and "game_id" in data:
        return 2 * int(data.get("version", 0)) + 1  # after the version's moves; an active game has no end there
    if event_type not in GAME_EVENT_TYPES or "game_id" not in data:
        return None
    ending = event_type in (GAME_FINISHED, GAME_ABORTED)
    return 2 * int(data.get("version", 0)) + (1 if ending else 0)


def for_commit(
    meta: Any,
    status: str,
    result: dict[str, Any] | None,
    commits: Sequence[_Entry],
    lifecycle: dict[str, Any],
    ts_ms: int,
) -> list[OutboxEvent]:
    """The events a commit of ``commits`` on ``meta`` (a ``GameMeta``) causes.

    One ``seat.timed_out`` per timeout entry, then ``game.finished`` or ``game.aborted`` when
    the commit ends the game.
    """
    events: list[OutboxEvent] = []
    version = meta.version
    for item in commits:
        version += 1
        if item.kind == "timeout" and item.seat is not None:  # a timeout is always a seat's
            events.append(_timed_out(meta, item.seat, version, lifecycle, ts_ms))
    if status == "finished" and result is not None:
        data = {
            **_game_data(meta.game_id, meta.game_type, version, meta.players),
            "result": result_data(result),
            "resigned": sorted(int(seat) for seat in lifecycle.get("resigned", [])),
            "rated": bool(getattr(meta, "rated", False)),
            "reason": end_reason(len(meta.players), lifecycle, commits),
            **_timing(lifecycle, ts_ms),
        }
        events.append(new_event(GAME_FINISHED, data, event_id(meta.game_id, GAME_FINISHED, version), ts_ms))
    elif status == "aborted":
        events.append(game_aborted(meta, version, ts_ms, lifecycle))
    return events


def _timed_out(meta: Any, seat: int, version: int, lifecycle: dict[str, Any], ts_ms: int) -> OutboxEvent:
    data = {
        **_game_data(meta.game_id, meta.game_type, version, meta.players),
        "seat": seat,
        "policy": str(lifecycle.get("on_timeout", "bot")),
    }
    return new_event(SEAT_TIMED_OUT, data, event_id(meta.game_id, SEAT_TIMED_OUT, version, seat), ts_ms)
