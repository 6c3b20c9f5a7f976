"""The game domain's outbox events, built from what a commit writes (pure: no I/O).

Event ids are derived from the fact (game, type, version, seat), so the same fact always has
the same id: a consumer that sees it twice knows it is one event.

Data of every game event: ``game_id``, ``game_type``, ``version`` and ``players``
(``seat``, ``name``, ``bot`` and the ``external_id`` the player record carries, if any);
``game.finished`` adds ``result`` as ``GET /v1/games/{id}`` shows it (``scores``,
``ranking``, ``winners``) and ``resigned`` seats; ``seat.timed_out`` adds ``seat`` and the
timeout ``policy``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from services.outbox.stream import OutboxEvent, new_event

GAME_STARTED = "game.started"
GAME_FINISHED = "game.finished"
GAME_ABORTED = "game.aborted"
SEAT_TIMED_OUT = "seat.timed_out"
GAME_EVENT_TYPES = (GAME_STARTED, GAME_FINISHED, GAME_ABORTED, SEAT_TIMED_OUT)
# Copied from a player record into events when present (set by the tournament and rating domain).
PLAYER_EXTRA_FIELDS = ("external_id",)


class _Entry(Protocol):
    """What the commit events need of a log entry (``services.games.records.Commit``)."""

    @property
    def seat(self) -> int: ...

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


def game_aborted(meta: Any, version: int, ts_ms: int) -> OutboxEvent:
    """The game ``meta`` (a ``GameMeta``) was stopped without a result (operator, host or clock)."""
    data = _game_data(meta.game_id, meta.game_type, version, meta.players)
    return new_event(GAME_ABORTED, data, event_id(meta.game_id, GAME_ABORTED, version), ts_ms)


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
        if item.kind == "timeout":
            events.append(_timed_out(meta, item.seat, version, lifecycle, ts_ms))
    if status == "finished" and result is not None:
        data = {
            **_game_data(meta.game_id, meta.game_type, version, meta.players),
            "result": result_data(result),
            "resigned": sorted(int(seat) for seat in lifecycle.get("resigned", [])),
        }
        events.append(new_event(GAME_FINISHED, data, event_id(meta.game_id, GAME_FINISHED, version), ts_ms))
    elif status == "aborted":
        events.append(game_aborted(meta, version, ts_ms))
    return events


def _timed_out(meta: Any, seat: int, version: int, lifecycle: dict[str, Any], ts_ms: int) -> OutboxEvent:
    data = {
        **_game_data(meta.game_id, meta.game_type, version, meta.players),
        "seat": seat,
        "policy": str(lifecycle.get("on_timeout", "bot")),
    }
    return new_event(SEAT_TIMED_OUT, data, event_id(meta.game_id, SEAT_TIMED_OUT, version, seat), ts_ms)
