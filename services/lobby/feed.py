"""A player's feed: what concerns them across their games, behind ``GET /v1/me/events``.

``chaiwala:player:{<player id>}:feed`` is a Redis stream (trimmed to about :data:`FEED_MAXLEN`
entries) of ``game_started``, ``your_turn`` (with the seat's deadline when the game is clocked),
``game_finished`` and ``invited`` entries, each ``{"kind", "data"}``; the stream's own entry ids
are the SSE ids a client resumes from (``Last-Event-ID``).

``your_turn`` is written **once per turn**, when a seat becomes due (:func:`becoming_due`): it is
to act after a commit and was not at some point since the previous version (before the commit,
or after one of its entries).  A seat whose turn goes on over several entries (Tea & Rum's
warehouse tokens, Darjeeling's move, lay out and ship, India Rails' build steps, one seat of a
simultaneous decision acting while the other still decides) is not told again: the answer to its
move and every event say it is still to act (``to_act``, ``your_turn``).  So a seat that goes
straight from one turn into its next, with no other seat to act in between (a solo game; the
others passed), is told once; docs/guides/build-a-frontend.md, "Multi-move turns".

Written right after the step that causes it (a creation, a lobby start, a commit), by the process
that made the step: a best-effort notice, not the truth — a process killed between its commit and
its notice loses that notice, and ``GET /v1/me/games`` still tells the player where it is their
turn.  Only seats that carry a player's id (a verified identity or an operator's assignment) get
notices; bots never do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from services.clock import clock as clocks
from services.common.logs import get_logger
from services.common.store import bounded_block_ms
from services.outbox.seating import invitees
from services.outbox.turns import newly_due

FEED_MAXLEN = 1000
log = get_logger("feed")
# ASCII digits, at most 19 a half (so always below 2**64): exactly the OpenAPI pattern, so a
# cursor valid by the document is never refused for its size.  Redis hands out far shorter ids
# (13-digit milliseconds, small sequences).
_CURSOR = re.compile(r"([0-9]{1,19})-([0-9]{1,19})")
MAX_ID_PART = 2**64 - 1  # each half of a Redis stream id is an unsigned 64-bit number


def feed_key(player_id: str) -> str:
    """A player's feed (the same hash tag as their game index, :mod:`services.lobby.mine`)."""
    return f"chaiwala:player:{{{player_id}}}:feed"


@dataclass(frozen=True)
class Notice:
    """One entry of a player's feed."""

    id: str
    kind: str
    data: dict[str, Any]


def is_cursor(text: str) -> bool:
    """Whether ``text`` can be a feed entry's id (``<ms>-<seq>``): a resume point Redis accepts."""
    found = _CURSOR.fullmatch(text)
    return found is not None and all(int(part) <= MAX_ID_PART for part in found.groups())


def _seats(players: Sequence[dict[str, Any]]) -> Iterable[tuple[int, str]]:
    """(seat, player id) of every human seat that carries an identity."""
    for seat, player in enumerate(players):
        external_id = str(player.get("external_id") or "")
        if external_id and not player.get("bot"):
            yield seat, external_id


def becoming_due(before: Sequence[int] | None, steps: Sequence[Sequence[int]], after: Sequence[int]) -> list[int]:
    """The seats a commit makes due, to be told ``your_turn``: those to act ``after`` it that were not
    to act ``before`` it or after one of its entries (``steps``, each entry's seats to act). The
    rule is the outbox's (:func:`services.outbox.turns.newly_due`), so the player stream, Web Push
    and ``turn.started`` webhooks tell the same turns.

    ``before`` is ``None`` when unknown (a game stored before the lifecycle kept its seats to act):
    then every seat to act is told, as before this rule.
    """
    if before is None:
        return list(after)
    return newly_due(before, [_Steps(seats) for seats in steps], after)


@dataclass(frozen=True)
class _Steps:
    """An entry's seats to act, as :func:`~services.outbox.turns.newly_due` reads entries."""

    to_act: Sequence[int] | None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class Feed:
    """Writes and reads the players' feeds."""

    def __init__(self, client: Any) -> None:
        self.redis = client

    async def _notify(self, player_id: str, kind: str, data: dict[str, Any]) -> None:
        fields = {"kind": kind, "data": orjson.dumps(data)}
        await self.redis.xadd(feed_key(player_id), fields, maxlen=FEED_MAXLEN, approximate=True)

    async def notify(self, player_id: str, kind: str, data: dict[str, Any]) -> None:
        """Append a notice; a failure is logged, never raised (the step it follows is committed)."""
        try:
            await self._notify(player_id, kind, data)
        except Exception:
            log.warning("feed_notice_lost", kind=kind, game_id=data.get("game_id", ""))

    async def started(self, game_id: str, game_type: str, players: Sequence[dict[str, Any]],
                      to_act: Sequence[int], version: int, clock: clocks.Clock | None) -> None:  # fmt: skip
        """Every seated player's ``game_started``, then ``your_turn`` for those to act."""
        for seat, player_id in _seats(players):
            await self.notify(player_id, "game_started", {"game_id": game_id, "game_type": game_type, "seat": seat})
        await self.turns(game_id, game_type, players, to_act, version, clock)

    async def turns(self, game_id: str, game_type: str, players: Sequence[dict[str, Any]],
                    to_act: Sequence[int], version: int, clock: clocks.Clock | None) -> None:  # fmt: skip
        """``your_turn`` for every seated player of ``to_act``: the seats to tell, i.e. every seat to act
        at a game's start and, after a commit, the seats it made due (:func:`becoming_due`)."""
        deadlines = clocks.deadlines(clock)
        for seat, player_id in _seats(players):
            if seat not in to_act:
                continue
            data: dict[str, Any] = {"game_id": game_id, "game_type": game_type, "seat": seat, "version": version}
            if seat in deadlines:
                data["deadline"] = clocks.rfc3339(deadlines[seat])
            await self.notify(player_id, "your_turn", data)

    async def finished(self, game_id: str, game_type: str, players: Sequence[dict[str, Any]], status: str,
                       result: dict[str, Any] | None) -> None:  # fmt: skip
        """Every seated player's ``game_finished``."""
        for seat, player_id in _seats(players):
            data: dict[str, Any] = {"game_id": game_id, "game_type": game_type, "seat": seat, "status": status}
            if result is not None:
                data["result"] = result
            await self.notify(player_id, "game_finished", data)

    async def invited(self, game_id: str, game_type: str, players: Sequence[dict[str, Any]], host: str,
                      creator: str) -> None:  # fmt: skip
        """``invited`` for every player seated in a waiting game by someone else (not the creator): the
        seats of the outbox's ``seat.invited`` (:func:`services.outbox.seating.invitees`)."""
        for seat, player_id in invitees(players, creator):
            data = {"game_id": game_id, "game_type": game_type, "seat": seat, "host": host}
            await self.notify(player_id, "invited", data)

    async def read(
        self, client: Any, player_id: str, after: str, block_seconds: float | None, count: int = 100
    ) -> list[Notice]:
        """Notices after entry id ``after`` ("" or "0": from the start), waiting up to ``block_seconds``
        for the first (``None``: not at all); ``client`` may be a blocking reader's own.  The wait is
        bounded by the client's reply timeout (:func:`services.common.store.bounded_block_ms`), so
        a quiet feed answers ``[]`` rather than a timeout on any client."""
        block = None if block_seconds is None else bounded_block_ms(client, block_seconds)
        answer: Any = await client.xread({feed_key(player_id): after or "0"}, count=count, block=block)
        return [notice(entry_id, fields) for _stream, entries in answer or [] for entry_id, fields in entries]


def notice(entry_id: bytes | str, fields: dict[bytes, bytes]) -> Notice:
    """A feed entry (its id and fields, as Redis hands them) as a notice."""
    return Notice(_text(entry_id), _text(fields[b"kind"]), orjson.loads(fields[b"data"]))
