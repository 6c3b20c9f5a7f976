"""Who is calling: the bearer of the call (an operator key, a player token, a seat token, a host
token, a ticket).

Every rules-service operation asks this one object; it reads what the interceptor put in the
call's context: the bearer (:data:`services.common.interceptors.BEARER`) and, for a player
token, the verified player (:data:`~services.common.interceptors.PLAYER`).  A player acts on the
seats that carry their player id as external id.  An open service (no operator keys configured,
local development) treats every caller as an operator, except a caller who shows a player token:
they are that player.
"""

from __future__ import annotations

import secrets

from services.common import errors
from services.common.interceptors import BEARER, PLAYER
from services.games.records import GameMeta
from services.identity.player import Player
from services.lobby.claims import Claimant
from services.rules.tickets import StreamTickets


class Access:
    """The access checks of one rules service."""

    def __init__(self, api_keys: frozenset[str], tickets: StreamTickets) -> None:
        self.api_keys = api_keys
        self.tickets = tickets

    def is_api_key(self, token: str) -> bool:
        """Whether ``token`` is one of the operator keys (constant time per key)."""
        return any(secrets.compare_digest(token, key) for key in self.api_keys)

    def is_operator(self) -> bool:
        """Whether the caller holds an operator key (or the service is open and the caller is no player)."""
        if PLAYER.get() is not None:
            return False
        return not self.api_keys or self.is_api_key(BEARER.get())

    def claimant(self) -> Claimant:
        """Who is seating players in this call (:mod:`services.lobby.claims`)."""
        player = self.player()
        if player is None:
            return Claimant(operator=self.is_operator())
        return Claimant(operator=False, player_id=player.player_id, player_name=player.name)

    def player(self) -> Player | None:
        """The verified player the caller's token names, if it is a player token."""
        found: Player | None = PLAYER.get()
        return found

    def require_operator(self, what: str) -> None:
        """Refuse a caller without an operator key: 401 with no credential, 403 with another one."""
        if self.is_operator():
            return
        if not BEARER.get():
            raise errors.unauthenticated(f"{what} needs an operator API key")
        raise errors.forbidden("api_key_required", f"{what} needs an operator API key")

    def viewer(self, meta: GameMeta) -> int | None:
        """The caller's seat, or ``None`` for a spectator (no token, an operator key, the host)."""
        token = BEARER.get()
        if not token:
            return None
        seat = meta.seat_of_token(token)
        if seat is not None:
            return seat
        player = self.player()
        if player is not None:
            return meta.seat_of_player(player.player_id)  # a player not seated here watches
        if self.is_api_key(token) or meta.is_host(token):
            return None
        raise errors.unauthenticated("unknown bearer token for this game")

    def seat(self, meta: GameMeta) -> int:
        """The caller's seat; refused for anyone who is not a player of this game."""
        seat = self.viewer(meta)
        if seat is None:
            raise errors.unauthenticated("this call needs the seat token of a player of this game")
        return seat

    async def event_viewer(self, meta: GameMeta, ticket: str) -> int | None:
        """The viewer of an event call: a stream ticket's seat when one is sent, else as :meth:`viewer`."""
        if not ticket:
            return self.viewer(meta)
        return await self.tickets.viewer(meta.game_id, ticket, has_bearer=bool(BEARER.get()))

    def own_seat(self, meta: GameMeta, what: str) -> int:
        """The seat whose token the caller holds (a waiting game's player leaving)."""
        token = BEARER.get()
        seat = meta.seat_of_token(token) if token else None
        player = self.player()
        if seat is None and player is not None:
            seat = meta.seat_of_player(player.player_id)
        if seat is None:
            raise errors.unauthenticated(f"{what} needs the seat token of a player of this game")
        return seat

    def require_host(self, meta: GameMeta, what: str) -> None:
        """Refuse anyone but the game's host and operators (a seat's own token never counts as an operator)."""
        token = BEARER.get()
        if token and meta.is_host(token):
            return
        if self.is_operator() and (not token or meta.seat_of_token(token) is None):
            return  # operators keep their keys (and an open service has none)
        if not token:
            raise errors.unauthenticated(f"{what} needs the game's host token")
        raise errors.forbidden("host_required", f"{what} needs the game's host token")
