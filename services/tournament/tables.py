"""The director's calls to the rules services: create a table's game, resign a withdrawn seat.

The director is a client of the rules services like the gateway (one channel per game type,
``CHAIWALA_SERVICE_<GAME>``), authenticated with the first operator key of
``CHAIWALA_API_KEYS`` (none in local development), because tournament games take an operator
seed, an operator-chosen seat credential (``token_sha256``: the entrant's token) and a
tournament reference.
"""

from __future__ import annotations

from typing import ClassVar

import grpc

from chaiwala.v1 import rules_pb2
from services.common import errors, protojson
from services.rules import clients
from services.tournament import seeds
from services.tournament.model import Table, Tournament

RPC_TIMEOUT_SECONDS = 30.0
# Refusals of a resignation that mean "nothing left to resign".
_ALREADY_DONE = ("already_resigned", "game_not_active", "seat_resigned")


def table_ref(tournament_id: str, round_number: int, table_index: int) -> str:
    """The ``tournament`` field of a table's game: ``<id>:<round>:<table>``, both counted from 1 as the
    tournament API counts them (``table_index`` is the table's place in its round, from 0)."""
    return f"{tournament_id}:{round_number}:{table_index + 1}"


def parse_ref(ref: str) -> tuple[str, int, int] | None:
    """Tournament id, round and table (both from 1) of a game's ``tournament`` field (``None`` if malformed)."""
    parts = ref.split(":")
    if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
        return None
    return parts[0], int(parts[1]), int(parts[2])


def create_request(
    tournament: Tournament, round_number: int, table_number: int, table: Table
) -> rules_pb2.CreateGameRequest:
    """The CreateGame request of one table: its seats in order, each holding its entrant's token."""
    players = []
    for external_id in table.players:
        entrant = tournament.entrant(external_id)
        assert entrant is not None
        players.append(
            rules_pb2.PlayerSpec(
                name=entrant.name, bot=entrant.bot, external_id=external_id, token_sha256=entrant.token_hash
            )
        )
    request = rules_pb2.CreateGameRequest(
        players=players,
        # The full derived seed (hex: CreateGame's integer seed has 32 bits).
        seed_hex=format(seeds.game_seed(tournament.seed, round_number, table_number, tournament.seed_bits), "064x"),
        on_timeout=tournament.on_timeout,
        timeouts_to_resign=tournament.timeouts_to_resign,
        rated=True,
        tournament=table_ref(tournament.tournament_id, round_number, table_number),
    )
    if tournament.options:
        request.options.CopyFrom(protojson.pack(tournament.game_type, "Options", tournament.options))
    if tournament.clock:
        request.clock.CopyFrom(rules_pb2.ClockSpec(**tournament.clock))
    return request


class RulesClients(clients.RulesClients):
    """The rules services as the director uses them: it creates each table's game and resigns withdrawn seats."""

    timeout_seconds: ClassVar[float] = RPC_TIMEOUT_SECONDS

    async def create_table(self, tournament: Tournament, round_number: int, table_number: int, table: Table) -> str:
        """Create the table's game; its id."""
        return await self.create(tournament.game_type, create_request(tournament, round_number, table_number, table))

    async def resign(self, game_type: str, game_id: str, token: str) -> None:
        """Resign the seat ``token`` holds (nothing happens when it cannot resign any more)."""
        try:
            await self.stub(game_type).ResignGame(
                rules_pb2.ResignGameRequest(game_id=game_id),
                metadata=(("authorization", f"Bearer {token}"),),
                timeout=RPC_TIMEOUT_SECONDS,
                wait_for_ready=True,
            )
        except grpc.aio.AioRpcError as error:
            detail = errors.error_detail_from_metadata(error.trailing_metadata())
            if detail is None or detail.code not in _ALREADY_DONE:
                raise
