"""``chaiwala.identity.v1.IdentityService``: guest sessions, ``me`` and the guest issuer's JWKS.

Served by every rules service process (:mod:`services.rules.server`), so the gateway may ask
any of them.  The caller's player token is the call's bearer (published by the RPC
interceptor in :data:`services.common.interceptors.BEARER`).
"""

from __future__ import annotations

import time

from google.protobuf.timestamp_pb2 import Timestamp
from grpc import aio

from chaiwala.identity.v1 import identity_pb2, identity_pb2_grpc
from chaiwala.rating.v1 import rating_pb2
from services.common import errors
from services.common.interceptors import BEARER
from services.common.logs import get_logger
from services.common.registry import ENGINES
from services.identity.guest import GuestIssuer, IssuedToken
from services.identity.player import Player
from services.identity.verifier import Verifier
from services.rating.ledger import Ledger, rating_dict

log = get_logger("identity")
JWK_FIELDS = ("kty", "kid", "use", "alg", "crv", "x", "y", "n", "e")


def _session(issued: IssuedToken) -> identity_pb2.Session:
    expires = Timestamp(seconds=issued.player.expires_at)
    return identity_pb2.Session(player_id=issued.player.player_id, token=issued.token, expires_at=expires)


class IdentityServicer(identity_pb2_grpc.IdentityServiceServicer):
    """IdentityService over one verifier (and the ratings in the same Redis)."""

    def __init__(self, verifier: Verifier, ledger: Ledger) -> None:
        self.verifier = verifier
        self.ledger = ledger

    def _guest(self) -> GuestIssuer:
        if self.verifier.guest is None:
            raise errors.forbidden(
                "guest_sessions_disabled", "guest sessions are turned off here: sign in with your platform's token"
            )
        return self.verifier.guest

    async def CreateSession(
        self, request: identity_pb2.CreateSessionRequest, context: aio.ServicerContext
    ) -> identity_pb2.Session:
        """A new guest player and its token."""
        issued = await self._guest().mint(request.name)
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
        for game_type in ENGINES:
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

    async def _player(self) -> Player:
        player = await self.verifier.player(BEARER.get())
        if player is None:
            raise errors.unauthenticated("send a player token as 'Authorization: Bearer <token>'")
        return player
