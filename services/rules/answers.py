"""What the rules service's answers are made of besides the engine's own messages.

Results as stored and as sent, the clock as every viewer sees it (and the time control it was
made from), and the words of a call (players' names and the caller's language).  Kept apart
from :mod:`services.rules.service` so the servicer stays about RPCs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson
from grpc import aio

from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import dictrender, protojson
from services.common.callmeta import call_language, wants_printed_answer, wants_printed_events
from services.common.engine import Result
from services.games.records import GameMeta
from services.lobby.seats import is_open


def result_dict(result: Result | None) -> dict[str, Any] | None:
    """A result as stored in the game's metadata."""
    if result is None:
        return None
    return {"scores": result.scores, "ranking": result.ranking, "winners": result.winners}


def result_message(result: dict[str, Any] | None) -> rules_pb2.GameResult | None:
    """A stored result as its proto message."""
    if result is None:
        return None
    return rules_pb2.GameResult(scores=result["scores"], ranking=result["ranking"], winners=result["winners"])


def clock_message(clock: clocks.Clock, status: str) -> rules_pb2.Clock:
    """The clock as every viewer sees it: remaining time per seat and the deadlines of seats to act."""
    now = clocks.now_ms()
    message = rules_pb2.Clock()
    for seat, left in clocks.remaining_s(clock, now).items():
        message.remaining_s[seat] = left
    if status != "active":
        return message
    running = clocks.deadlines(clock)
    for clocked, deadline in running.items():
        message.deadlines[str(clocked)] = clocks.rfc3339(deadline)
    if running:
        message.deadline = clocks.rfc3339(min(running.values()))
    return message


def time_control_message(clock: clocks.Clock) -> rules_pb2.ClockSpec:
    """The time control a game was created with, read back from its clock (milliseconds kept as seconds)."""
    if "per_turn_ms" in clock:
        return rules_pb2.ClockSpec(per_turn_s=int(clock["per_turn_ms"]) // 1000)
    return rules_pb2.ClockSpec(bank_s=int(clock["bank_ms"]) // 1000, increment_s=int(clock["increment_ms"]) // 1000)


def language(context: aio.ServicerContext) -> str:
    """The call's language, from its ``accept-language`` metadata (English when absent)."""
    return call_language(context.invocation_metadata() or ())


@dataclass
class PrintedAnswer:
    """The parts of a move's answer printed as REST prints them (``RenderedSubmit``): JSON bytes, or
    empty when the answer carries them packed instead (a retried key's first answer).
    ``with_events``: whether the caller reads printed events (else they come packed); ``whole``:
    whether it reads the whole answer printed (``RenderedSubmit.answer_json``; events printed too)."""

    state: bytes = b""
    events: bytes = b""
    with_events: bool = True
    whole: bool = False


def printed_for(context: aio.ServicerContext) -> PrintedAnswer:
    """What the gateway calling ``RenderedRules.SubmitMoves`` reads printed: the state always, the
    events when its metadata asks (``callmeta.PRINT_EVENTS``), the whole answer when it asks for
    that (``callmeta.PRINT_ANSWER``), so gateways and rules services upgrade in either order."""
    metadata = context.invocation_metadata() or ()
    whole = wants_printed_answer(metadata)
    return PrintedAnswer(with_events=whole or wants_printed_events(metadata), whole=whole)


def fill_state(
    response: rules_pb2.SubmitMovesResponse,
    game_type: str,
    view: dict[str, Any],
    printed: PrintedAnswer | None,
    kept: bool,
) -> None:
    """Put the submitting seat's view in its answer: packed, or printed as JSON into ``printed``.

    The JSON is printed from the engine's dict (:mod:`services.common.dictrender`: exactly what
    rendering the packed state prints) and ``state`` stays present but empty, unless the answer
    is ``kept`` for an idempotent retry, which may come over plain gRPC and needs it whole.
    """
    if printed is None or kept:
        response.state.CopyFrom(protojson.pack_engine(game_type, "State", view))
    if printed is not None:
        response.state.SetInParent()
        printed.state = orjson.dumps(dictrender.payload(game_type, "State", view))


def words(meta: GameMeta, context: aio.ServicerContext) -> tuple[list[str], str]:
    """What sentences need besides the event: the players' names and the call's language."""
    return meta.names(), language(context)


class SeatNames:
    """The words a watch renders with, read again while a seat is open.

    A watch opened on a waiting game knew an open seat by no name; whoever takes the seat is named
    in every event after that (issue #42: the host's live log said "plays next" with no name until
    a reload).  The metadata is read again only for entries newer than the last read and only while
    some seat was open then, so a full table costs nothing more.
    """

    def __init__(
        self, meta: GameMeta, context: aio.ServicerContext, read: Callable[[str], Awaitable[GameMeta]]
    ) -> None:
        self._read, self._context, self._game_id = read, context, meta.game_id
        self._take(meta)

    def _take(self, meta: GameMeta) -> None:
        self._words = words(meta, self._context)
        self._version = meta.version
        self._open = any(is_open(player) for player in meta.players)

    async def at(self, version: int) -> tuple[list[str], str]:
        """The words for an entry of ``version``."""
        if self._open and version > self._version:
            self._take(await self._read(self._game_id))
        return self._words
