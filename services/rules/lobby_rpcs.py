"""The lobby's RPCs, mixed into the ``RulesService``: join, leave, kick, start, list.

A waiting game starts when its last open seat is taken (in the same atomic step
as that join) or when its host starts it early, where the engine accepts the
number of filled seats; seats still open are then removed and the remaining
seats renumbered in their order before setup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

import grpc
from grpc import aio

from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import errors, metrics
from services.common.engine import BadConfig, Engine
from services.common.offsets import requested_page_size
from services.common.runner import Match
from services.common.store import GameNotFound, hash_token, new_token
from services.filing.store import STATUSES, Cursor, GameIndex
from services.games.lifecycle import Lifecycle, attention_due, clocked_seats
from services.games.records import GameMeta
from services.games.store import GameStore
from services.lobby import listing
from services.lobby import seats as lobby_seats
from services.lobby.claims import Claimant, already_seated, check_claim, check_rated_seat
from services.lobby.mine import PlayerGames
from services.lobby.store import LobbyConflict, LobbyStore, NotWaiting, Start
from services.rating.identity import check_external_id
from services.rules import answers, seeds
from services.rules.access import Access
from services.rules.gameplay import GamePlay

LOBBY_RETRIES = 8
DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100
T = TypeVar("T")


class LobbyRpcs:
    """Join, leave, kick, start and list; needs the attributes and helpers of the RulesServicer."""

    engine: Engine
    store: GameStore
    index: GameIndex
    game_type: str
    play: GamePlay
    access: Access

    @property
    def lobby(self) -> LobbyStore:
        """Compare-and-set access to waiting games."""
        return LobbyStore(self.store.redis)

    async def _with_retries(self, game_id: str, change: Callable[[GameMeta], Awaitable[T]]) -> T:
        """Run ``change`` on fresh metadata until no concurrent lobby change got in between."""
        for _ in range(LOBBY_RETRIES):
            meta = await self.play.meta(game_id)
            if meta.status != "waiting":
                raise errors.illegal("game_not_waiting", f"the game is {meta.status}, not waiting for players")
            try:
                return await change(meta)
            except LobbyConflict:
                continue
            except NotWaiting as error:
                raise errors.illegal("game_not_waiting", f"the game is {error.status}") from None
        raise errors.ServiceError(grpc.StatusCode.ABORTED, "lobby_busy", "the seats keep changing; try again")

    def _start_plan(self, meta: GameMeta) -> tuple[dict[str, Any], Start]:
        """Seats, options, clock and first snapshot of the game ``meta`` once started."""
        filled = [seat for seat, player in enumerate(meta.players) if not lobby_seats.is_open(player)]
        if len(filled) < self.engine.min_players:
            raise errors.illegal(
                "too_few_players", f"{self.engine.name} needs {self.engine.min_players} players, {len(filled)} joined"
            )
        players = [lobby_seats.started_player(meta.players[s]) for s in filled]
        lifecycle = Lifecycle.from_dict(meta.lifecycle)
        lifecycle.timeouts = [0] * len(players)
        clocks.renumber(lifecycle.clock, len(players))
        try:
            options = self.engine.validate_options(len(players), meta.options)
            match = Match.start(self.engine, len(players), meta.seed, options, canonical=self.play.canonical)
        except BadConfig as error:
            raise errors.illegal(error.code, error.message) from None
        now = clocks.now_ms()
        lifecycle.started_ms = now
        lifecycle.to_act = match.to_act()
        clocks.advance(lifecycle.clock, (), match.to_act(), clocked_seats(players, lifecycle), now)
        fields = {
            "players": players,
            "token_hashes": [meta.token_hashes[s] for s in filled],
            "options": options,
            "lifecycle": lifecycle.to_dict(),
        }
        snapshot = match.snapshot.to_json()
        genesis = seeds.genesis(self.game_type, meta.game_id, meta.fairness, options, players, snapshot)
        return fields, Start(snapshot, attention_due(players, lifecycle, match.to_act(), now), genesis)

    async def _started(self, meta: GameMeta, start: Start, fields: dict[str, Any]) -> None:
        lifecycle = Lifecycle.from_dict(fields["lifecycle"])
        await self.play.follow.started(meta.game_id, fields["players"], lifecycle.to_act, lifecycle.clock,
                                       start.attention_ms, clocks.now_ms())  # fmt: skip

    async def _game(self, game_id: str) -> rules_pb2.Game:
        meta, snapshot = await self.store.load(game_id)
        return self.play.narrator.game_message(meta, self.play.match_of(meta, snapshot), None)

    async def JoinGame(
        self, request: rules_pb2.JoinGameRequest, context: aio.ServicerContext
    ) -> rules_pb2.JoinGameResponse:
        """Take an open seat; the last one starts the game in the same step.

        With a player token the seat carries the player's id and name (their identity); a rated
        game's seat needs one (or an operator's assignment), once per game (:mod:`services.lobby.claims`).
        """
        claimant = self.access.claimant()
        name, external_id = _joiner(request, claimant)
        wanted = request.seat if request.HasField("seat") else None
        token = new_token()

        async def join(meta: GameMeta) -> rules_pb2.JoinGameResponse:
            if meta.rated:
                check_rated_seat(external_id)
            if meta.rated and any(p.get("external_id") == external_id for p in meta.players):
                raise already_seated()
            seat = lobby_seats.choose_seat(meta.players, request.invite, wanted)
            players = [dict(p) for p in meta.players]
            players[seat] = {"name": name, "bot": "", **({"external_id": external_id} if external_id else {})}
            if meta.players[seat].get("invite_hash"):
                players[seat]["invite_hash"] = meta.players[seat]["invite_hash"]
            hashes = list(meta.token_hashes)
            hashes[seat] = hash_token(token)
            joined = replace(meta, players=players, token_hashes=hashes)
            if any(lobby_seats.is_open(p) for p in players):
                await self.lobby.update(meta, {"players": players, "token_hashes": hashes})
                return rules_pb2.JoinGameResponse(seat=seat, token=token, status="waiting")
            fields, start = self._start_plan(joined)
            await self.lobby.update(meta, fields, start)
            await self._started(meta, start, fields)
            return rules_pb2.JoinGameResponse(seat=seat, token=token, status="active")

        joined = await self._with_retries(request.game_id, join)
        metrics.LOBBY_JOINS.labels(self.game_type).inc()  # once per seat taken, not per retry
        if external_id:
            await PlayerGames(self.store.redis).record(request.game_id, [{"external_id": external_id}], clocks.now_ms())
        return joined

    async def _free_seat(self, game_id: str, seat_of: Callable[[GameMeta], int]) -> rules_pb2.Game:
        async def free(meta: GameMeta) -> None:
            seat = seat_of(meta)
            players = [dict(p) for p in meta.players]
            players[seat] = lobby_seats.freed(meta.players[seat])
            hashes = list(meta.token_hashes)
            hashes[seat] = ""
            await self.lobby.update(meta, {"players": players, "token_hashes": hashes})

        await self._with_retries(game_id, free)
        return await self._game(game_id)

    async def LeaveGame(self, request: rules_pb2.LeaveGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Free the caller's seat of a waiting game."""

        def own_seat(meta: GameMeta) -> int:
            return self.access.own_seat(meta, "leaving")

        return await self._free_seat(request.game_id, own_seat)

    async def KickSeat(self, request: rules_pb2.KickSeatRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Host: free a filled seat before the start."""

        def kicked(meta: GameMeta) -> int:
            self.access.require_host(meta, "kicking a player")
            if request.seat >= len(meta.players):
                raise errors.invalid("bad_seat", f"this game has seats 0-{len(meta.players) - 1}")
            if lobby_seats.is_open(meta.players[request.seat]):
                raise errors.illegal("seat_open", f"seat {request.seat} is open already")
            return request.seat

        return await self._free_seat(request.game_id, kicked)

    async def StartGame(self, request: rules_pb2.StartGameRequest, context: aio.ServicerContext) -> rules_pb2.Game:
        """Host: start now with the seats filled so far."""

        async def start(meta: GameMeta) -> None:
            self.access.require_host(meta, "starting a game")
            fields, plan = self._start_plan(meta)
            await self.lobby.update(meta, fields, plan)
            await self._started(meta, plan, fields)

        await self._with_retries(request.game_id, start)
        return await self._game(request.game_id)

    async def ListGames(
        self, request: rules_pb2.ListGamesRequest, context: aio.ServicerContext
    ) -> rules_pb2.ListGamesResponse:
        """This type's games, newest first; private ones for operators only."""
        statuses, visibility, page_size, cursor = self._listing_query(request)
        games: list[rules_pb2.GameSummary] = []
        for _ in range(5):  # filtered pages may come back short: look a little further, boundedly
            items = await self.index.page(self.game_type, visibility, statuses, page_size, cursor)
            for created, game_id in items:
                cursor = (created, game_id)
                summary = await self._summary(game_id, request.open_seats)
                if summary is not None:
                    games.append(summary)
                if len(games) == page_size:
                    return rules_pb2.ListGamesResponse(games=games, next_page_token=listing.encode_cursor(*cursor))
            if len(items) < page_size:
                break
        token = listing.encode_cursor(*cursor) if cursor and len(games) == page_size else ""
        return rules_pb2.ListGamesResponse(games=games, next_page_token=token)

    def _listing_query(self, request: rules_pb2.ListGamesRequest) -> tuple[list[str], str, int, Cursor | None]:
        if request.status and request.status not in STATUSES:
            raise errors.invalid("bad_status", f"status is one of {', '.join(STATUSES)}")
        statuses = [request.status] if request.status else list(STATUSES)
        if request.open_seats:
            statuses = [s for s in statuses if s == "waiting"]
        visibility = lobby_seats.visibility_of(request.visibility)
        if visibility == "private" and not self.access.is_operator():
            raise errors.forbidden("api_key_required", "listing private games needs an operator API key")
        page_size = requested_page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        try:
            cursor = listing.decode_cursor(request.page_token)
        except listing.BadPageToken:
            raise errors.invalid("bad_page_token", "that page_token was not handed out by this listing") from None
        return statuses, visibility, page_size, cursor

    async def _summary(self, game_id: str, open_seats: bool) -> rules_pb2.GameSummary | None:
        try:
            meta = await self.store.meta(game_id)
        except GameNotFound:
            return None
        joinable = lobby_seats.is_open if meta.visibility == "private" else lobby_seats.open_to_anyone
        if open_seats and not any(joinable(p) for p in meta.players):
            return None
        summary = rules_pb2.GameSummary(
            game_id=game_id,
            game_type=meta.game_type,
            status=meta.status,
            created_at=clocks.rfc3339(meta.created_ms),
            visibility=meta.visibility,
            seats=[
                rules_pb2.GameSeatSummary(
                    seat=i, name=p.get("name", ""), open=lobby_seats.is_open(p), bot=p.get("bot", "")
                )
                for i, p in enumerate(meta.players)
            ],
        )
        clock = Lifecycle.from_dict(meta.lifecycle).clock
        if clock is not None:  # a lobby shows the time control before anyone joins (issue #42, item 7)
            summary.time_control.CopyFrom(answers.time_control_message(clock))
        return summary


def _joiner(request: rules_pb2.JoinGameRequest, claimant: Claimant) -> tuple[str, str]:
    """The name and identity a joiner takes: a player's own (their token), or an operator's
    assignment, or a plain name with none."""
    external_id = check_external_id(request.external_id)
    check_claim(claimant, external_id)
    if claimant.player_id:
        return claimant.player_name, claimant.player_id
    name = lobby_seats.player_name(request.name, "")
    if not name:
        raise errors.invalid("bad_player", "a name is required to join")
    return name, external_id
