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

from services.common import errors
from services.common.interceptors import BEARER, PLAYER
from services.common.operators import OperatorKeys
from services.games.records import GameMeta
from services.identity.player import Player
from services.lobby.claims import Claimant
from services.rating.settings import RatingSettings
from services.rules.tickets import StreamTickets


class Access:
    """The access checks of one rules service."""

    def __init__(self, api_keys: frozenset[str], tickets: StreamTickets) -> None:
        self.operators = OperatorKeys(api_keys)
        self.tickets = tickets
        self.is_api_key = self.operators.is_api_key
        self.is_operator = self.operators.is_operator
        self.require_operator = self.operators.require

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

    def check_readable(self, meta: GameMeta, viewer: int | None) -> None:
        """A private game exists only for its seats (a seat token, a stream ticket, or a player named
        on a seat: its invitees), its host and operators; anyone else gets the very 404 of a game id
        nobody created, so a private game's id, players and moves are not learnt by guessing or
        leaking its id."""
        if meta.visibility != "private" or viewer is not None:
            return
        token = BEARER.get()
        if self.is_operator() or (token and meta.is_host(token)):
            return
        raise errors.not_found(f"no game {meta.game_id}")

    def reader(self, meta: GameMeta) -> int | None:
        """:meth:`viewer`, for a caller allowed to read the game at all (:meth:`check_readable`)."""
        viewer = self.viewer(meta)
        self.check_readable(meta, viewer)
        return viewer

    def shows_player_ids(self, meta: GameMeta, viewer: int | None) -> bool:
        """Whether this caller may see the game's player ids (external ids): always its seats, its
        host and operators; anyone else only while ratings are public (``CHAIWALA_PUBLIC_RATINGS``,
        read per call), since ids are what ties games to players' rating pages."""
        if viewer is not None or self.is_operator():
            return True
        token = BEARER.get()
        return bool(token and meta.is_host(token)) or RatingSettings().public_ratings

    def seat(self, meta: GameMeta) -> int:
        """The caller's seat; refused for anyone who is not a player of this game."""
        seat = self.viewer(meta)
        if seat is None:
            self._refuse_unseated(meta)
            raise errors.unauthenticated("this call needs the seat token of a player of this game")
        return seat

    def _refuse_unseated(self, meta: GameMeta) -> None:
        """A good credential of another kind (a verified player without a seat here, an operator
        key, the game's host token) is refused 403 ``not_seated``, not 401: the credential itself is
        good (a 401 would tell a client to drop it, and the gateway counts 401s as failed
        authentications)."""
        if self.player() is not None:
            raise errors.forbidden("not_seated", "this player holds no seat of this game")
        token = BEARER.get()
        if token and (self.is_api_key(token) or meta.is_host(token)):
            raise errors.forbidden("not_seated", "this call acts for a seat: send that seat's token")

    async def event_viewer(self, meta: GameMeta, ticket: str) -> int | None:
        """The viewer of an event call: a stream ticket's seat when one is sent, else as :meth:`viewer`."""
        if not ticket:
            return self.reader(meta)
        viewer = await self.tickets.viewer(meta.game_id, ticket, has_bearer=bool(BEARER.get()))
        self.check_readable(meta, viewer)
        return viewer

    def own_seat(self, meta: GameMeta, what: str) -> int:
        """The seat whose token the caller holds (a waiting game's player leaving)."""
        token = BEARER.get()
        seat = meta.seat_of_token(token) if token else None
        player = self.player()
        if seat is None and player is not None:
            seat = meta.seat_of_player(player.player_id)
        if seat is None:
            self._refuse_unseated(meta)
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
