"""The ``RenderedRules`` service: the gateway's SubmitMoves, with the answer's state and events as JSON bytes.

A move's answer carries the whole state as the seat sees it, and the move's events with their
sentences.  Packed, they were built from the engine's dicts in the rules service, then parsed and
walked again in the gateway to print JSON: over a millisecond per move between them.  Here both
are printed once, straight from the engine's dicts (:mod:`services.common.dictrender`), and, for a
gateway that asks (``callmeta.PRINT_ANSWER``), the whole REST answer around them too
(:mod:`services.common.answerjson`), which the gateway answers as it comes (``gateway.routes``); an
older gateway splices the state and events into the answer it prints itself.  Everything else is
``RulesService.SubmitMoves`` itself, for the same caller: same checks, same redaction, same commit.

``WatchEventBatches`` is ``RulesService.WatchEvents`` with the events of one log entry (a move's)
in one message, so the gateway's fan-out knows when a move's events are complete and writes them
to its clients at once (``gateway.fanout``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from grpc import aio

from chaiwala.v1 import rendered_pb2, rendered_pb2_grpc, rules_pb2
from services.common import answerjson
from services.rules import answers
from services.rules.service import RulesServicer

SERVICE_NAME = rendered_pb2.DESCRIPTOR.services_by_name["RenderedRules"].full_name


class RenderedRulesServicer(rendered_pb2_grpc.RenderedRulesServicer):
    """RenderedRules beside one game's :class:`RulesServicer`."""

    def __init__(self, rules: RulesServicer) -> None:
        self.rules = rules

    async def SubmitMoves(
        self, request: rules_pb2.SubmitMovesRequest, context: aio.ServicerContext
    ) -> rendered_pb2.RenderedSubmit:
        """Submit as ``RulesService.SubmitMoves``; the state and the events come as JSON (neither for a
        retried key's answer, which comes whole), or the whole answer does, for a caller that asks."""
        printed = answers.printed_for(context)
        answer = await self.rules.play.submit(request, self.rules.access.seat, answers.language(context), printed)
        if printed.whole:
            # The whole REST answer, printed once here; the gateway answers these bytes as they are
            # and reads only the version and the status (for ``?include=legal_moves``).
            body = answerjson.answer_json(answer, printed.state, printed.events)
            small = rules_pb2.SubmitMovesResponse(version=answer.version, status=answer.status)
            return rendered_pb2.RenderedSubmit(answer=small, answer_json=body)
        return rendered_pb2.RenderedSubmit(answer=answer, state_json=printed.state, events_json=printed.events)

    async def WatchEventBatches(
        self, request: rules_pb2.WatchEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[rendered_pb2.GameEventBatch]:
        """``RulesService.WatchEvents``, the events of each log entry in one message."""
        async for messages in self.rules.watch_entries(request, context):
            yield rendered_pb2.GameEventBatch(events=messages)
