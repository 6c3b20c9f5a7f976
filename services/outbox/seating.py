"""Seating facts for the outbox: ``seat.invited`` when someone else seats a player in a game that
waits for players, ``match.found`` when quick play seats players in a new game (pure: no I/O).

They exist for the notification sender (Web Push ``invited`` and ``match_found``); they are not
webhook event types.  Only an operator may seat another player's identity
(:mod:`services.lobby.claims`), so every invitation is the platform's own doing and telling it
back would say nothing new; a quick-play game's start is ``game.started`` already, with every
seat's ``external_id``.  The webhook dispatcher reads these facts and matches no subscription.

* ``seat.invited`` — one per invited seat, written by :meth:`services.games.store.GameStore.create`
  in the same transaction as the waiting game.  Data: ``game_id``, ``game_type``, ``version`` 0,
  ``seat``, ``external_id``, ``host`` (the host's name, "" for an operator) and ``players`` (as
  every game event shows them; open seats have no name).
* ``match.found`` — one per game, written by the matchmaker once the game exists and before its
  tickets are marked matched, with an id derived from the game: a matchmaker that dies in between
  leaves the group to be taken over, and the taker writes the same fact again (consumers dedupe
  on the id).  Data: ``game_id``, ``game_type``, ``version`` 0, ``pool_id`` and ``players``.

Nothing here is hidden information: who sits where is on every seat's view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from services.outbox.events import MATCH_FOUND, SEAT_INVITED, event_id, player_data
from services.outbox.stream import OutboxEvent, new_event


def invitees(players: Sequence[dict[str, Any]], creator: str) -> Iterable[tuple[int, str]]:
    """(seat, player id) of every person seated by someone other than ``creator`` (the creating
    player's id, "" for an operator): filled human seats that carry an identity."""
    for seat, player in enumerate(players):
        external_id = str(player.get("external_id") or "")
        if external_id and not player.get("bot") and not player.get("open") and external_id != creator:
            yield seat, external_id


def _players(players: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [player_data(seat, record) for seat, record in enumerate(players)]


def invitations(game_id: str, game_type: str, players: Sequence[dict[str, Any]], host: str, creator: str,
                ts_ms: int) -> list[OutboxEvent]:  # fmt: skip
    """``seat.invited`` for every seat of a waiting game that ``creator`` seated someone else in."""
    common = {"game_id": game_id, "game_type": game_type, "version": 0, "host": host, "players": _players(players)}
    return [
        new_event(
            SEAT_INVITED,
            {**common, "seat": seat, "external_id": player_id},
            event_id(game_id, SEAT_INVITED, 0, seat),
            ts_ms,
        )
        for seat, player_id in invitees(players, creator)
    ]


def match_found(game_id: str, game_type: str, pool_id: str, players: Sequence[dict[str, Any]],
                ts_ms: int) -> OutboxEvent:  # fmt: skip
    """``match.found`` of a quick-play game (its id follows from the game: written twice, one fact)."""
    data = {"game_id": game_id, "game_type": game_type, "version": 0, "pool_id": pool_id, "players": _players(players)}
    return new_event(MATCH_FOUND, data, event_id(game_id, MATCH_FOUND, 0), ts_ms)
