"""gRPC services of the director: ``TournamentService`` and ``RatingService``.

Authentication as for the rules services: ``authorization: Bearer <operator key | entrant
token>`` (read by :class:`~services.common.interceptors.AuthInterceptor`).  Creating a
tournament needs an operator key when keys are configured; reading is public (no secret is
ever in an answer: entrant tokens only in the creation's answer, the seed only once the
tournament is over); an entrant token names its entrant for ``GetMyTable`` and
``WithdrawEntrant``, and an operator key may withdraw anyone.
"""

from __future__ import annotations

import secrets
from typing import Any

from grpc import aio

from chaiwala.rating.v1 import rating_pb2, rating_pb2_grpc
from chaiwala.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from services.common import errors
from services.common.interceptors import BEARER, PLAYER
from services.common.operators import OperatorKeys
from services.common.registry import game_types, is_registered
from services.filing.keys import game_keys
from services.identity.settings import IdentitySettings
from services.rating.eligibility import is_provisional, issuer_of
from services.rating.identity import valid_external_id
from services.rating.ledger import DEFAULT_PAGE_SIZE, rating_dict
from services.rating.model import Rating
from services.tournament import messages
from services.tournament.director import Director
from services.tournament.model import Entrant, Tournament
from services.tournament.seeds import token_hash
from services.tournament.store import TournamentNotFound

RECENT_PER_PLAYER = 10


class _Auth:
    """Operator keys and entrant tokens."""

    def __init__(self, api_keys: frozenset[str]) -> None:
        self.operators = OperatorKeys(api_keys)
        self.is_operator = self.operators.is_operator
        self.require_operator = self.operators.require

    @staticmethod
    def player_id() -> str:
        """The verified player the caller's token names ("" for none)."""
        player = PLAYER.get()
        return str(player.player_id) if player is not None else ""

    @staticmethod
    def entrant(tournament: Tournament) -> Entrant:
        """The entrant whose token the caller presents."""
        token = BEARER.get()
        if not token:
            raise errors.unauthenticated("this call needs an entrant token of this tournament")
        digest = token_hash(token)
        for entrant in tournament.entrants:
            if secrets.compare_digest(entrant.token_hash, digest):
                return entrant
        raise errors.unauthenticated("unknown entrant token for this tournament")


class TournamentServicer(tournament_pb2_grpc.TournamentServiceServicer):
    """Tournaments: create, read, withdraw."""

    def __init__(self, director: Director, api_keys: frozenset[str]) -> None:
        self.director = director
        self.auth = _Auth(api_keys)

    async def _load(self, tournament_id: str) -> Tournament:
        try:
            return await self.director.tournaments.load(tournament_id)
        except TournamentNotFound:
            raise errors.ServiceError(
                errors.grpc.StatusCode.NOT_FOUND, "tournament_not_found", f"no tournament {tournament_id!r}"
            ) from None

    async def CreateTournament(
        self, request: tournament_pb2.CreateTournamentRequest, context: aio.ServicerContext
    ) -> tournament_pb2.CreateTournamentResponse:
        """Create a tournament; the answer carries every human entrant's token, once.

        A bot entrant's token stays with the director (it resigns a withdrawn bot's games with
        it): bots are the conductor's, so no answer hands out a credential for one."""
        self.auth.require_operator("creating a tournament")
        tournament, tokens = await self.director.create(request)
        return tournament_pb2.CreateTournamentResponse(
            tournament_id=tournament.tournament_id,
            status=tournament.status,
            entrants=[
                tournament_pb2.EntrantToken(external_id=e.external_id, token="" if e.bot else token)
                for e, token in zip(tournament.entrants, tokens, strict=True)
            ],
        )

    async def ListTournaments(
        self, request: tournament_pb2.ListTournamentsRequest, context: aio.ServicerContext
    ) -> tournament_pb2.ListTournamentsResponse:
        """Tournaments newest first (``status`` filters one page's entries)."""
        if request.status not in ("", "running", "finished"):
            raise errors.invalid("bad_status", "status is running or finished")
        found, token = await self.director.tournaments.page(request.page_size or DEFAULT_PAGE_SIZE, request.page_token)
        chosen = [t for t in found if not request.status or t.status == request.status]
        return tournament_pb2.ListTournamentsResponse(
            tournaments=[messages.tournament_message(t) for t in chosen], next_page_token=token
        )

    async def GetTournament(
        self, request: tournament_pb2.GetTournamentRequest, context: aio.ServicerContext
    ) -> tournament_pb2.Tournament:
        """One tournament."""
        return messages.tournament_message(await self._load(request.tournament_id))

    async def ListRounds(
        self, request: tournament_pb2.ListRoundsRequest, context: aio.ServicerContext
    ) -> tournament_pb2.ListRoundsResponse:
        """Every round so far."""
        tournament = await self._load(request.tournament_id)
        return tournament_pb2.ListRoundsResponse(
            tournament_id=tournament.tournament_id, rounds=messages.round_messages(tournament)
        )

    async def GetStandings(
        self, request: tournament_pb2.GetStandingsRequest, context: aio.ServicerContext
    ) -> tournament_pb2.Standings:
        """Standings after the finished rounds."""
        return messages.standings_message(await self._load(request.tournament_id))

    async def GetMyTable(
        self, request: tournament_pb2.GetMyTableRequest, context: aio.ServicerContext
    ) -> tournament_pb2.MyTable:
        """The caller's table in the current round."""
        tournament = await self._load(request.tournament_id)
        entrant = self.auth.entrant(tournament)
        return messages.my_table(tournament, entrant)

    async def WithdrawEntrant(
        self, request: tournament_pb2.WithdrawEntrantRequest, context: aio.ServicerContext
    ) -> tournament_pb2.Tournament:
        """Withdraw the caller (entrant token) or, for an operator, the entrant named."""
        tournament = await self._load(request.tournament_id)
        if request.external_id and self.auth.is_operator():
            entrant = tournament.entrant(request.external_id)
            if entrant is None:
                raise errors.invalid("unknown_entrant", f"no entrant {request.external_id!r} in this tournament")
        else:
            entrant = self.auth.entrant(tournament)
        if tournament.status != "running":
            raise errors.illegal("tournament_finished", "the tournament is over")
        if entrant.withdrawn:
            raise errors.illegal("already_withdrawn", "this entrant withdrew already")
        return messages.tournament_message(await self.director.withdraw(tournament.tournament_id, entrant.external_id))


def _rating_message(rating: Rating, aliases: frozenset[str], game_type: str = "") -> rating_pb2.Rating:
    """A rating as the API shows it, with its issuer and whether it is provisional (settings read now)."""
    issuer = issuer_of(rating.external_id, aliases)
    return rating_pb2.Rating(**rating_dict(rating), game_type=game_type, issuer=issuer,
                             provisional=is_provisional(rating))  # fmt: skip


class RatingServicer(rating_pb2_grpc.RatingServiceServicer):
    """Leaderboards and players: public reads unless the operator made them private
    (``CHAIWALA_PUBLIC_RATINGS=false``: an operator key or a player token needed, a player page
    its own player's).  A player page lists a private game only to operators and that player."""

    def __init__(self, director: Director, api_keys: frozenset[str] = frozenset(), public: bool = True) -> None:
        self.ledger = director.ledger
        self.redis = director.redis
        self.auth = _Auth(api_keys)
        self.public = public
        # The trusted platform issuers' aliases, which the issuer of a rated id is named after.
        self.aliases = frozenset(issuer.alias for issuer in IdentitySettings().issuers())

    def _may_read(self, page_of: str = "") -> None:
        """Refuse a read the setting keeps for operators and players (a page: its own player's)."""
        if self.public or self.auth.is_operator():
            return
        caller = self.auth.player_id()
        if not caller:
            raise errors.unauthenticated("ratings here need an operator API key or a player token")
        if page_of and caller != page_of:
            raise errors.forbidden("not_your_page", "a player page here is its own player's")

    async def _shown(self, external_id: str, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The recent games the caller may see: a private one only by operators and that player."""
        if self.auth.is_operator() or self.auth.player_id() == external_id:
            return games
        shown = []
        for game in games:
            visibility = await self.redis.hget(game_keys(game["game_id"])[0], "visibility")
            if visibility not in (b"private", "private"):
                shown.append(game)
        return shown

    async def ListRatings(
        self, request: rating_pb2.ListRatingsRequest, context: aio.ServicerContext
    ) -> rating_pb2.ListRatingsResponse:
        """One page of a game type's leaderboard."""
        self._may_read()
        if not is_registered(request.game_type):
            raise errors.invalid("unknown_game_type", f"unknown game_type {request.game_type!r}")
        ratings, token = await self.ledger.leaderboard(
            request.game_type, request.page_size or DEFAULT_PAGE_SIZE, request.page_token
        )
        shown = [_rating_message(r, self.aliases) for r in ratings]
        return rating_pb2.ListRatingsResponse(ratings=shown, next_page_token=token)

    async def GetPlayer(self, request: rating_pb2.GetPlayerRequest, context: aio.ServicerContext) -> rating_pb2.Player:
        """A player's ratings and recent rated games (404 before their first rated game)."""
        if not valid_external_id(request.external_id):
            raise errors.invalid("bad_external_id", "external_id is 1-128 characters from A-Z a-z 0-9 . _ : @ -")
        self._may_read(request.external_id)
        ratings = []
        recent = []
        for game_type in game_types():
            rating = await self.ledger.rating(game_type, request.external_id)
            if rating is None:
                continue
            ratings.append(_rating_message(rating, self.aliases, game_type))
            recent += await self.ledger.recent(game_type, request.external_id, RECENT_PER_PLAYER)
        if not ratings:
            raise errors.ServiceError(
                errors.grpc.StatusCode.NOT_FOUND, "player_not_found", f"no rated games for {request.external_id!r}"
            )
        recent = await self._shown(request.external_id, recent)
        recent.sort(key=lambda game: game.get("finished_ms", 0), reverse=True)
        return rating_pb2.Player(
            external_id=request.external_id,
            issuer=issuer_of(request.external_id, self.aliases),
            ratings=ratings,
            recent_games=[messages.recent_game(g) for g in recent[:RECENT_PER_PLAYER]],
        )
