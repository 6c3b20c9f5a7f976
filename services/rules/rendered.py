"""The ``RenderedRules`` service: the gateway's SubmitMoves, with the answer's state and events as JSON bytes.

A move's answer carries the whole state as the seat sees it, and the move's events with their
sentences.  Packed, they were built from the engine's dicts in the rules service, then parsed and
walked again in the gateway to print JSON: over a millisecond per move between them.  Here both
are printed once, straight from the engine's dicts (:mod:`services.common.dictrender`), and the
gateway splices the bytes into its answer unparsed (``gateway.routes``).  Everything else is
``RulesService.SubmitMoves`` itself, for the same caller: same checks, same redaction, same commit.

``WatchEventBatches`` is ``RulesService.WatchEvents`` with the events of one log entry (a move's)
in one message, so the gateway's fan-out knows when a move's events are complete and writes them
to its clients at once (``gateway.fanout``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from grpc import aio

from chaiwala.v1 import rendered_pb2, rendered_pb2_grpc, rules_pb2
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
        retried key's answer, which comes whole)."""
        printed = answers.printed_for(context)
        answer = await self.rules.play.submit(request, self.rules.access.seat, answers.language(context), printed)
        return rendered_pb2.RenderedSubmit(answer=answer, state_json=printed.state, events_json=printed.events)

    async def WatchEventBatches(
        self, request: rules_pb2.WatchEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[rendered_pb2.GameEventBatch]:
        """``RulesService.WatchEvents``, the events of each log entry in one message."""
        async for messages in self.rules.watch_entries(request, context):
            yield rendered_pb2.GameEventBatch(events=messages)
