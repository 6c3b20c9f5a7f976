"""A new tournament from its request: every field checked, nothing stored yet.

Checks what can be checked without a game: the format, the table size against the game's
player counts, the options against the engine (the same check a game's creation makes),
the entrants (unique, well-formed external ids, known bots), the clock and timeout policy.
"""

from __future__ import annotations

from typing import Any

from chaiwala.tournament.v1 import tournament_pb2
from services.bots.roster import bots_for
from services.clock import clock as clocks
from services.common import errors, protojson
from services.common.engine import BadConfig
from services.common.registry import UnknownGameType, engine_for
from services.fairness.seeding import SOURCE_OPERATOR, SOURCE_SERVER, operator_seed
from services.games.lifecycle import ON_TIMEOUT
from services.lobby.seats import player_name
from services.rating.eligibility import check_may_be_rated
from services.rating.identity import check_external_id
from services.tournament import pairing, seeds
from services.tournament.model import FORMATS, Entrant, Tournament

MAX_ENTRANTS = 512
MAX_ROUNDS = 64
DEFAULT_SWISS_ROUNDS = 3


def _engine(game_type: str) -> Any:
    try:
        return engine_for(game_type)
    except UnknownGameType:
        raise errors.invalid("unknown_game_type", f"unknown game_type {game_type!r}") from None


def _entrants(request: tournament_pb2.CreateTournamentRequest, bots: set[str]) -> list[Entrant]:
    if not 2 <= len(request.entrants) <= MAX_ENTRANTS:
        raise errors.invalid("bad_entrants", f"a tournament has 2 to {MAX_ENTRANTS} entrants")
    entrants: list[Entrant] = []
    seen: set[str] = set()
    for index, spec in enumerate(request.entrants):
        if not spec.external_id:
            raise errors.invalid("bad_external_id", "every entrant needs an external_id")
        external_id = check_external_id(spec.external_id, spec.bot)
        check_may_be_rated(external_id)  # every table of a tournament is rated
        if external_id in seen:
            raise errors.invalid("duplicate_entrant", f"entrant {external_id!r} is listed twice")
        if spec.bot and spec.bot not in bots:
            raise errors.invalid("unknown_bot", f"no bot named {spec.bot!r}; choose from {sorted(bots)}")
        seen.add(external_id)
        entrants.append(Entrant(external_id, player_name(spec.name, f"Entrant {index + 1}"), spec.bot))
    return entrants


def _options(request: tournament_pb2.CreateTournamentRequest, engine: Any) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if request.HasField("options"):
        try:
            options = protojson.unpack(request.game_type, "Options", request.options, only_set=True)
        except protojson.BadMessage as error:
            raise errors.invalid("bad_options", str(error)) from None
    try:
        engine.validate_options(request.table_size, options)
    except BadConfig as error:
        raise errors.invalid(error.code, error.message) from None
    return options


def _clock(request: tournament_pb2.CreateTournamentRequest) -> dict[str, int] | None:
    if not request.HasField("clock"):
        return None
    spec = request.clock
    try:
        clocks.new_clock(spec.per_turn_s, spec.bank_s, spec.increment_s, request.table_size)
    except clocks.BadClock as error:
        raise errors.invalid("bad_clock", str(error)) from None
    return {"per_turn_s": spec.per_turn_s, "bank_s": spec.bank_s, "increment_s": spec.increment_s}


def _rounds(request: tournament_pb2.CreateTournamentRequest, groups: list[list[str]]) -> int:
    asked = request.rounds if request.HasField("rounds") else 0
    if asked > MAX_ROUNDS or (request.HasField("rounds") and asked == 0):
        raise errors.invalid("bad_rounds", f"rounds is 1 to {MAX_ROUNDS}")
    if request.format == "round_robin":
        needed = pairing.round_robin_schedule_length(groups, request.table_size)
        return min(needed, asked) if asked else needed
    if request.format == "swiss":
        return asked or DEFAULT_SWISS_ROUNDS
    return 0


def _check_shape(request: tournament_pb2.CreateTournamentRequest, engine: Any, count: int) -> None:
    if request.format not in FORMATS:
        raise errors.invalid("bad_format", f"format is one of {', '.join(FORMATS)}")
    size = request.table_size
    if not engine.min_players <= size <= engine.max_players:
        raise errors.invalid(
            "bad_table_size", f"{request.game_type} seats {engine.min_players} to {engine.max_players} players"
        )
    if count < size:
        raise errors.invalid("bad_entrants", f"{count} entrants cannot fill a table of {size}")
    if request.format == "knockout" and not 1 <= (request.advance or 1) < size:
        raise errors.invalid("bad_advance", f"advance is 1 to {size - 1} at tables of {size}")
    if request.format == "knockout" and engine.min_players > 2:
        raise errors.invalid("bad_format", "knockout needs a game that 2 players can finish")
    if request.on_timeout and request.on_timeout not in ON_TIMEOUT:
        raise errors.invalid("bad_on_timeout", f"on_timeout is one of {', '.join(ON_TIMEOUT)}")
    if request.format == "round_robin" and request.group_size and request.group_size < size:
        raise errors.invalid("bad_group_size", f"a group needs at least {size} entrants")


def new_tournament(
    request: tournament_pb2.CreateTournamentRequest, tournament_id: str, now_ms: int
) -> tuple[Tournament, list[str]]:
    """The tournament (status ``running``, no round yet) and each entrant's token, in entrant order."""
    engine = _engine(request.game_type)
    entrants = _entrants(request, set(bots_for(engine)))
    _check_shape(request, engine, len(entrants))
    chosen = operator_seed(request.HasField("seed"), request.seed, request.seed_hex)
    tournament = Tournament(
        tournament_id=tournament_id,
        game_type=request.game_type,
        format=request.format,
        table_size=request.table_size,
        entrants=entrants,
        seed=chosen if chosen is not None else seeds.draw_seed(),
        seed_source=SOURCE_SERVER if chosen is None else SOURCE_OPERATOR,
        secret=seeds.draw_secret(),
        advance=request.advance or 1,
        group_size=request.group_size,
        options=_options(request, engine),
        clock=_clock(request),
        on_timeout=request.on_timeout or "resign",
        timeouts_to_resign=request.timeouts_to_resign,
        created_ms=now_ms,
    )
    tournament.rounds_planned = _rounds(request, tournament.groups())
    tokens = [seeds.entrant_token(tournament.secret, e.external_id) for e in entrants]
    for entrant, token in zip(entrants, tokens, strict=True):
        entrant.token_hash = seeds.token_hash(token)
    return tournament, tokens
