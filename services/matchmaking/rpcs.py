"""The MatchmakingService: parse, authorise (a player token), call :mod:`services.matchmaking.tickets`,
map the answer to a ``Ticket`` message."""

from __future__ import annotations

from typing import Any

from google.protobuf import struct_pb2

from chaiwala.v1 import matchmaking_pb2, matchmaking_pb2_grpc, rules_pb2
from services.clock import clock as clocks
from services.common import errors
from services.common.interceptors import PLAYER
from services.identity.player import Player
from services.matchmaking import tickets
from services.matchmaking.matcher import cancelled_metric
from services.matchmaking.model import Ticket
from services.matchmaking.settings import MatchmakingSettings
from services.matchmaking.store import TicketStore


def _player() -> Player:
    player: Player | None = PLAYER.get()
    if player is None:
        raise errors.unauthenticated("matchmaking needs a player token (Authorization: Bearer <player token>)")
    return player


def ticket_message(ticket: Ticket, now_ms: int, searching: int | None = None) -> matchmaking_pb2.Ticket:
    """A ticket as the API shows it (never the player's rating)."""
    message = matchmaking_pb2.Ticket(
        ticket_id=ticket.ticket_id, status=tickets.shown_status(ticket), game_type=ticket.pool.game_type,
        player_counts=ticket.player_counts, rated=ticket.pool.rated, bot=ticket.bot, game_id=ticket.game_id,
        created_at=clocks.rfc3339(ticket.created_ms), expires_at=clocks.rfc3339(ticket.expires_ms),
        waited_ms=min(ticket.waited_ms(now_ms), 2**32 - 1), pool=ticket.pool_id,
    )  # fmt: skip
    if ticket.pool.clock:
        message.time_control.CopyFrom(rules_pb2.ClockSpec(**ticket.pool.clock))
    if ticket.pool.options:
        options = struct_pb2.Struct()
        options.update(ticket.pool.options)
        message.options.CopyFrom(options)
    if ticket.bots_after_s is not None:
        message.bots_after_seconds = ticket.bots_after_s
    if ticket.seat is not None:
        message.seat = ticket.seat
    if searching is not None:
        message.pool_searching = searching
    return message


class MatchmakingServicer(matchmaking_pb2_grpc.MatchmakingServiceServicer):
    """Tickets of the bearer player."""

    def __init__(self, store: TicketStore, settings: MatchmakingSettings) -> None:
        self.store = store
        self.settings = settings

    async def _answer(self, ticket: Ticket) -> matchmaking_pb2.Ticket:
        return ticket_message(ticket, clocks.now_ms(), await self.store.searching_count(ticket.pool_id))

    async def CreateTicket(self, request: matchmaking_pb2.CreateTicketRequest, context: Any) -> matchmaking_pb2.Ticket:
        """Start searching."""
        ticket = await tickets.create_ticket(self.store, self.settings, _player(), request)
        return await self._answer(ticket)

    async def GetTicket(self, request: matchmaking_pb2.GetTicketRequest, context: Any) -> matchmaking_pb2.Ticket:
        """One of the bearer's tickets."""
        return await self._answer(await tickets.own_ticket(self.store, _player(), request.ticket_id))

    async def CancelTicket(self, request: matchmaking_pb2.CancelTicketRequest, context: Any) -> matchmaking_pb2.Ticket:
        """Stop searching."""
        player = _player()
        before = await tickets.own_ticket(self.store, player, request.ticket_id)
        ticket = await tickets.cancel_ticket(self.store, player, request.ticket_id)
        if before.status == "searching":
            cancelled_metric()
        return await self._answer(ticket)

    async def ListMyTickets(
        self, request: matchmaking_pb2.ListMyTicketsRequest, context: Any
    ) -> matchmaking_pb2.ListMyTicketsResponse:
        """The bearer's tickets, newest first."""
        now = clocks.now_ms()
        mine = await self.store.mine(_player().player_id)
        return matchmaking_pb2.ListMyTicketsResponse(tickets=[ticket_message(t, now) for t in mine])
