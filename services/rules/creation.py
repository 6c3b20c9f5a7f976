"""Creating a game: seats, seed, options, clock, and the first snapshot when every seat is filled."""

from __future__ import annotations

from typing import Any

from chaiwala.v1 import rules_pb2
from services.bots.roster import bots_for
from services.clock import clock as clocks
from services.common import errors, metrics, protojson
from services.common.attention import new_game_id
from services.common.engine import BadConfig
from services.common.logs import get_logger
from services.common.runner import Match
from services.common.store import hash_token, new_token
from services.games.lifecycle import attention_due, clocked_seats
from services.games.records import NewGame
from services.lobby import seats as lobby_seats
from services.lobby.claims import Claimant
from services.lobby.creation import lifecycle_from, rating_fields, seat_credentials, waiting_snapshot
from services.lobby.mine import PlayerGames, PlayerLimits
from services.outbox import seating
from services.rules import seeds
from services.rules.access import Access
from services.rules.gameplay import GamePlay

log = get_logger("service")


def options_from(game_type: str, request: rules_pb2.CreateGameRequest) -> dict[str, Any]:
    """The options the request sets (only those: the engine merges the defaults)."""
    if not request.HasField("options"):
        return {}
    try:
        return protojson.unpack(game_type, "Options", request.options, only_set=True)
    except protojson.BadMessage as error:
        raise errors.invalid("bad_options", str(error)) from None


async def create_game(
    play: GamePlay, access: Access, request: rules_pb2.CreateGameRequest
) -> rules_pb2.CreateGameResponse:
    """Store a game: active at once when every seat is filled, else waiting for players.

    Bots never move here: a conductor plays them, so the answer is at version 0.
    """
    claimant = access.claimant()
    if not claimant.operator and not claimant.player_id:
        access.require_operator("creating a game without a player token")
    if not claimant.player_id:
        return await _create(play, access, request, claimant)
    # The quota is read per creation (rare), so an operator's change applies without a restart; the
    # creation holds a reservation until its game is filed, so concurrent ones count each other.
    async with PlayerGames(play.store.redis).reserved(claimant.player_id, PlayerLimits().player_open_games):
        return await _create(play, access, request, claimant)


async def _create(
    play: GamePlay, access: Access, request: rules_pb2.CreateGameRequest, claimant: Claimant
) -> rules_pb2.CreateGameResponse:
    engine, game_type = play.engine, play.game_type
    visibility = lobby_seats.visibility_of(request.visibility)
    players = lobby_seats.players_from(request.players, sorted(bots_for(engine)), visibility, claimant)
    game_id = new_game_id(game_type)
    fairness, seed = seeds.seed_for(request, game_id, access)
    now = clocks.now_ms()  # one instant for the creation: created_at, the start, the first clock
    lifecycle = lifecycle_from(request, len(players), now)
    waiting = any(lobby_seats.is_open(p) for p in players)
    try:
        options = engine.validate_options(len(players), options_from(game_type, request))
        match = None if waiting else Match.start(engine, len(players), seed, options, canonical=play.canonical)
    except BadConfig as error:
        raise errors.invalid(error.code, error.message) from None
    tokens, token_hashes = seat_credentials(request.players, players)
    rated, tournament = rating_fields(request, players, claimant)
    host_token = new_token()
    attention = None
    if match is not None:
        lifecycle.to_act = match.to_act()
        clocks.advance(lifecycle.clock, (), match.to_act(), clocked_seats(players, lifecycle), now)
        attention = attention_due(players, lifecycle, match.to_act(), now)
    snapshot = waiting_snapshot() if match is None else match.snapshot.to_json()
    genesis = None if match is None else seeds.genesis(game_type, game_id, fairness, options, players, snapshot)
    host = claimant.player_name if claimant.player_id else ""
    invited = seating.invitations(game_id, game_type, players, host, claimant.player_id, now) if waiting else []
    game = NewGame(game_id=game_id, seed=seed, options=options, players=players, token_hashes=token_hashes,
                   host_hash=hash_token(host_token), status="waiting" if waiting else "active", snapshot=snapshot,
                   lifecycle=lifecycle.to_dict(), visibility=visibility, created_ms=now, attention_ms=attention,
                   fairness=fairness, genesis=genesis, rated=rated, tournament=tournament, outbox=invited)  # fmt: skip
    game_id = await play.store.create(game)
    await PlayerGames(play.store.redis).record(game_id, players, now)
    if match is None:
        await play.follow.invited(game_id, players, host, claimant.player_id)
    else:
        await play.follow.started(game_id, players, match.to_act(), lifecycle.clock, attention, now)
    metrics.GAMES_CREATED.labels(game_type).inc()
    # Never the seed or the secret: while the game runs they would reveal every draw.
    log.info("game_created", game_type=game_type, game_id=game_id, players=len(players),
             seed_source=fairness.seed_source)  # fmt: skip
    seats = lobby_seats.seat_messages(players, [])
    for seat, token in zip(seats, tokens, strict=True):
        seat.token = token
    return rules_pb2.CreateGameResponse(game_id=game_id, game_type=game_type, status=game.status, version=0,
                                        seats=seats, host_token=host_token)  # fmt: skip
