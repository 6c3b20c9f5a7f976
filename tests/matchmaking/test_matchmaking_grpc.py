"""The MatchmakingService over gRPC refuses with REST's codes (the gateway only forwards)."""

from __future__ import annotations

from typing import Any

import grpc
import httpx

from chaiwala.v1 import matchmaking_pb2, matchmaking_pb2_grpc
from services.common import errors
from tests.support.client import guest


def _refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        call()
    except grpc.RpcError as error:
        detail = errors.error_detail_from_metadata(error.trailing_metadata())
        return error.code(), detail.code if detail is not None else ""
    raise AssertionError("not refused")


def test_grpc_refusals_carry_the_rest_codes(
    client: httpx.Client, clock: dict[str, int], mm_stack: dict[str, Any]
) -> None:
    _, token = guest(client, "Caller")
    metadata = (("authorization", f"Bearer {token}"),)
    with grpc.insecure_channel(mm_stack["matchmaker"].address) as channel:
        stub = matchmaking_pb2_grpc.MatchmakingServiceStub(channel)
        request = matchmaking_pb2.CreateTicketRequest(game_type="darjeeling", player_counts=[4])
        request.time_control.per_turn_s = clock["per_turn_s"]
        ticket = stub.CreateTicket(request, metadata=metadata, timeout=30)
        assert ticket.status == "searching" and ticket.pool_searching == 1
        again = _refusal(lambda: stub.CreateTicket(request, metadata=metadata, timeout=30))
        assert again == (grpc.StatusCode.ALREADY_EXISTS, "ticket_exists")  # REST: 409
        rated = matchmaking_pb2.CreateTicketRequest(game_type="darjeeling", player_counts=[2], rated=True)
        refused = _refusal(lambda: stub.CreateTicket(rated, metadata=metadata, timeout=30))
        assert refused == (grpc.StatusCode.PERMISSION_DENIED, "identity_not_rated")  # REST: 403
        anonymous = _refusal(lambda: stub.ListMyTickets(matchmaking_pb2.ListMyTicketsRequest(), timeout=30))
        assert anonymous[0] == grpc.StatusCode.UNAUTHENTICATED
        cancel = matchmaking_pb2.CancelTicketRequest(ticket_id=ticket.ticket_id)
        assert stub.CancelTicket(cancel, metadata=metadata, timeout=30).status == "cancelled"
        mine = stub.ListMyTickets(matchmaking_pb2.ListMyTicketsRequest(), metadata=metadata, timeout=30)
        assert [t.ticket_id for t in mine.tickets] == [ticket.ticket_id]
