"""``chaiwala.identity.v1.IdentityService``: guest sessions, ``me`` and the guest issuer's JWKS.

Served by every rules service process (:mod:`services.rules.server`), so the gateway may ask
any of them.  The caller's player token is the call's bearer (published by the RPC
interceptor in :data:`services.common.interceptors.BEARER`).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from google.protobuf.timestamp_pb2 import Timestamp
from grpc import aio

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from chaiwala.rating.v1 import rating_pb2
from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import errors
from services.common.interceptors import BEARER
from services.common.logs import get_logger
from services.common.offsets import requested_page_size
from services.common.registry import game_types
from services.identity.feed_rpcs import PlayerStream
from services.identity.guest import GuestIssuer, IssuedToken
from services.identity.player import Player
from services.identity.quota import SessionQuota, peer_address
from services.identity.verifier import Verifier
from services.lobby import mine
from services.rating.ledger import Ledger, rating_dict
from services.streaming.keyed import KeyedStreams
from services.streaming.mux import StreamMux

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100

log = get_logger("identity")
JWK_FIELDS = ("kty", "kid", "use", "alg", "crv", "x", "y", "n", "e")
# The stored result's fields (services.games.records: {"scores", "ranking", "winners"}), as GameResult has them.
RESULT_FIELDS = ("scores", "ranking", "winners")


def _session(issued: IssuedToken) -> identity_pb2.Session:
    expires = Timestamp(seconds=issued.player.expires_at)
    return identity_pb2.Session(player_id=issued.player.player_id, token=issued.token, expires_at=expires)


class IdentityServicer(identity_pb2_grpc.IdentityServiceServicer):
    """IdentityService over one verifier (and the ratings in the same Redis)."""

    def __init__(self, verifier: Verifier, ledger: Ledger, mux: StreamMux) -> None:
        self.verifier = verifier
        self.ledger = ledger
        settings = verifier.settings
        self.quota = SessionQuota(ledger.redis, settings.session_limit, settings.trusted_gateways)
        # The players' live feeds are read by the process's stream mux (a few blocking reads for
        # every connected player), never by a connection per watch.
        self.feeds = KeyedStreams(mux, ledger.redis)
        self.stream = PlayerStream(ledger.redis, self.feeds, self._player, settings.stream_ticket_seconds)

    async def WatchMyEvents(
        self, request: identity_pb2.WatchMyEventsRequest, context: aio.ServicerContext
    ) -> AsyncIterator[identity_pb2.PlayerEvent]:
        """The bearer player's feed after a cursor, then live until the token expires."""
        async for event in self.stream.watch(request):
            yield event

    async def CreateMyStreamTicket(
        self, request: identity_pb2.CreateMyStreamTicketRequest, context: aio.ServicerContext
    ) -> identity_pb2.MyStreamTicket:
        """A short-lived ticket for the bearer player's feed (an EventSource cannot send a header)."""
        return await self.stream.ticket()

    def _guest(self) -> GuestIssuer:
        if self.verifier.guest is None:
            raise errors.forbidden(
                "guest_sessions_disabled", "guest sessions are turned off here: sign in with your platform's token"
            )
        return self.verifier.guest

    async def CreateSession(
        self, request: identity_pb2.CreateSessionRequest, context: aio.ServicerContext
    ) -> identity_pb2.Session:
        """A new guest player and its token; counted against the caller's address unless a trusted
        gateway relayed it (the gateway counted it: :mod:`services.identity.quota`)."""
        guest = self._guest()
        if not self.quota.counted_by_gateway(context.peer(), context.invocation_metadata() or ()):
            await self.quota.charge(peer_address(context.peer()) or "unknown")
        issued = await guest.mint(request.name)
        log.info("guest_session", player_id=issued.player.player_id)
        return _session(issued)

    async def RefreshSession(
        self, request: identity_pb2.RefreshSessionRequest, context: aio.ServicerContext
    ) -> identity_pb2.Session:
        """A fresh token for the bearer's guest player (same id and name)."""
        guest = self._guest()
        player = await self.verifier.guest_player(BEARER.get())
        return _session(await guest.mint(player.name, player.subject))

    async def GetMe(self, request: identity_pb2.GetMeRequest, context: aio.ServicerContext) -> identity_pb2.Me:
        """Who the bearer's player token says the caller is, with their ratings."""
        player = await self._player()
        me = identity_pb2.Me(player_id=player.player_id, name=player.name, issuer_alias=player.issuer_alias)
        for game_type in game_types():
            rating = await self.ledger.rating(game_type, player.player_id)
            if rating is not None:
                me.ratings.append(rating_pb2.Rating(**rating_dict(rating), game_type=game_type))
        return me

    async def GetJwks(self, request: identity_pb2.GetJwksRequest, context: aio.ServicerContext) -> identity_pb2.Jwks:
        """The guest issuer's public keys (none when guest sessions are off)."""
        jwks = identity_pb2.Jwks()
        if self.verifier.guest is not None:
            for key in await self.verifier.guest.keys.published(time.time()):
                jwks.keys.append(identity_pb2.Jwk(**{name: key[name] for name in JWK_FIELDS if name in key}))
        return jwks

    async def ListMyGames(
        self, request: identity_pb2.ListMyGamesRequest, context: aio.ServicerContext
    ) -> identity_pb2.MyGames:
        """The bearer player's games, their turn first (:mod:`services.lobby.mine`)."""
        player = await self._player()
        size = requested_page_size(request.page_size, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        try:
            start = mine.decode_offset(request.page_token)
        except mine.BadPageToken:
            raise errors.invalid("bad_page_token", "that page_token was not handed out by this listing") from None
        games = await mine.PlayerGames(self.ledger.redis).games(player.player_id)
        page = games[start : start + size]
        answer = identity_pb2.MyGames(games=[_my_game(game) for game in page])
        if start + size < len(games):
            answer.next_page_token = mine.encode_offset(start + size)
        return answer

    async def _player(self) -> Player:
        player = await self.verifier.player(BEARER.get())
        if player is None:
            raise errors.unauthenticated("send a player token as 'Authorization: Bearer <token>'")
        return player


def _my_game(game: mine.MyGame) -> identity_pb2.MyGame:
    entry = identity_pb2.MyGame(game_id=game.game_id, game_type=game.game_type, status=game.status,
                                version=game.version, seat=game.seat, your_turn=game.your_turn,
                                to_act=game.to_act if game.status == "active" else [],
                                created_at=clocks.rfc3339(game.created_ms), visibility=game.visibility,
                                names=[str(p.get("name") or "") for p in game.players],
                                last_activity_at=clocks.rfc3339(game.last_activity_ms))  # fmt: skip
    if game.deadline_ms is not None:
        entry.deadline = clocks.rfc3339(game.deadline_ms)
    if game.result is not None:
        entry.result.CopyFrom(rules_pb2.GameResult(**{k: game.result.get(k, []) for k in RESULT_FIELDS}))
    return entry
