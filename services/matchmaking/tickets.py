"""Tickets: make one (every field checked), read, cancel, list — the operations behind the
MatchmakingService's RPCs (no gRPC here: :mod:`services.matchmaking.rpcs` maps the answers).

Refusals: ``ticket_exists`` (409, one searching ticket per player per pool), ``too_many_tickets``
(429, :attr:`MatchmakingSettings.matchmaking_max_tickets` in all pools), ``identity_not_rated``
(403, a rated pool and an identity that may not be rated), ``ticket_not_found`` (404, unknown or
another player's), ``ticket_not_searching`` (409, cancelling a ticket already matched).
"""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format

from chaiwala.v1 import matchmaking_pb2
from services.bots.roster import bots_for
from services.clock import clock as clocks
from services.common import errors, protojson
from services.common.engine import BadConfig
from services.common.registry import UnknownGameType, engine_for
from services.identity.player import Player
from services.matchmaking.model import CANCELLED, SEARCHING, PoolSpec, Ticket, new_ticket_id
from services.matchmaking.settings import MatchmakingSettings
from services.matchmaking.store import TicketStore
from services.rating.eligibility import may_be_rated
from services.rating.ledger import Ledger

MAX_COUNTS = 8
MAX_BOTS_AFTER_S = 3600
DEFAULT_MU = 25.0  # the rating model's starting mu (services.rating.model.initial)


def _engine(game_type: str) -> Any:
    try:
        return engine_for(game_type)
    except UnknownGameType:
        raise errors.invalid("unknown_game_type", f"unknown game_type {game_type!r}") from None


def _counts(request: matchmaking_pb2.CreateTicketRequest, engine: Any) -> list[int]:
    counts = sorted(set(request.player_counts))
    if not counts or len(counts) > MAX_COUNTS:
        raise errors.invalid("bad_player_counts", "player_counts lists the table sizes accepted, e.g. [3, 4]")
    if counts[0] < engine.min_players or counts[-1] > engine.max_players:
        raise errors.invalid(
            "bad_player_counts", f"{engine.game_type} seats {engine.min_players} to {engine.max_players} players"
        )
    return counts


def _options(request: matchmaking_pb2.CreateTicketRequest, engine: Any, counts: list[int]) -> dict[str, Any]:
    if not request.HasField("options"):
        return {}
    raw = json_format.MessageToDict(request.options)
    try:
        options = protojson.unpack(engine.game_type, "Options", protojson.pack(engine.game_type, "Options", raw),
                                   only_set=True)  # fmt: skip
    except protojson.BadMessage as error:
        raise errors.invalid("bad_options", str(error)) from None
    for count in counts:
        try:
            engine.validate_options(count, options)
        except BadConfig as error:
            raise errors.invalid(error.code, error.message) from None
    return options


def _clock(request: matchmaking_pb2.CreateTicketRequest, counts: list[int]) -> dict[str, int] | None:
    if not request.HasField("time_control"):
        return None
    spec = request.time_control
    try:
        clocks.new_clock(spec.per_turn_s, spec.bank_s, spec.increment_s, counts[-1])
    except clocks.BadClock as error:
        raise errors.invalid("bad_clock", str(error)) from None
    return {"per_turn_s": spec.per_turn_s, "bank_s": spec.bank_s, "increment_s": spec.increment_s}


def _bots(request: matchmaking_pb2.CreateTicketRequest, engine: Any) -> tuple[int | None, str]:
    names = sorted(bots_for(engine))
    bot = request.bot or ("heuristic" if "heuristic" in names else names[0])
    if bot not in names:
        raise errors.invalid("unknown_bot", f"no bot named {bot!r}; choose from {names}")
    if not request.HasField("bots_after_seconds"):
        return None, bot
    if request.bots_after_seconds > MAX_BOTS_AFTER_S:
        raise errors.invalid("bad_bots_after", f"bots_after_seconds is at most {MAX_BOTS_AFTER_S}")
    return request.bots_after_seconds, bot


async def create_ticket(
    store: TicketStore, settings: MatchmakingSettings, player: Player, request: matchmaking_pb2.CreateTicketRequest
) -> Ticket:
    """Check the request, read the player's rating, and store a searching ticket."""
    engine = _engine(request.game_type)
    counts = _counts(request, engine)
    pool = PoolSpec(request.game_type, _clock(request, counts), request.rated, _options(request, engine, counts))
    bots_after, bot = _bots(request, engine)
    if pool.rated and not may_be_rated(player.player_id):  # the platform's one rule (services.rating.eligibility)
        raise errors.forbidden(
            "identity_not_rated", "rated pools take identities that may be rated; guests play casual"
        )
    rating = await Ledger(store.redis).rating(request.game_type, player.player_id)
    now = clocks.now_ms()
    ticket = Ticket(
        ticket_id=new_ticket_id(), player_id=player.player_id, player_name=player.name, pool=pool,
        player_counts=counts, bots_after_s=bots_after, bot=bot,
        rating=rating.mu if rating is not None else DEFAULT_MU, created_ms=now,
        expires_ms=now + int(settings.matchmaking_ticket_ttl_s * 1000),
    )  # fmt: skip
    outcome, held = await store.create(ticket, settings.matchmaking_max_tickets)
    if outcome == "ticket_exists":
        message = f"this player already has a searching ticket in this pool: {held}"
        raise errors.ServiceError(grpc.StatusCode.ALREADY_EXISTS, "ticket_exists", message)
    if outcome == "too_many_tickets":
        message = f"a player may have at most {settings.matchmaking_max_tickets} searching tickets"
        raise errors.ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "too_many_tickets", message)
    return ticket


async def own_ticket(store: TicketStore, player: Player, ticket_id: str) -> Ticket:
    """One of the player's tickets (another player's is as unknown as a missing one)."""
    ticket = await store.get(ticket_id) if ticket_id.isprintable() and len(ticket_id) <= 64 else None
    if ticket is None or ticket.player_id != player.player_id:
        raise errors.ServiceError(grpc.StatusCode.NOT_FOUND, "ticket_not_found", f"no ticket {ticket_id[:64]!r}")
    return ticket


async def cancel_ticket(store: TicketStore, player: Player, ticket_id: str) -> Ticket:
    """Stop searching; a ticket already cancelled or expired is answered as it is."""
    ticket = await own_ticket(store, player, ticket_id)
    status = await store.end(ticket, CANCELLED, clocks.now_ms())
    if status not in (CANCELLED, "expired"):
        raise errors.ServiceError(
            grpc.StatusCode.ALREADY_EXISTS if status == "matched" else grpc.StatusCode.ABORTED,
            "ticket_not_searching", f"the ticket is {'matched' if status == 'matched' else 'being matched'} already"
        )  # fmt: skip
    return await own_ticket(store, player, ticket_id)


def shown_status(ticket: Ticket) -> str:
    """The status a client sees: a ticket inside a matchmaker (``forming``) is still searching."""
    return SEARCHING if ticket.status == "forming" else ticket.status
