"""Which identities ratings may count, what issuer a rated id shows, and when a rating is provisional.

The one place that answers "may this identity be rated?": rated seats (creation and joining),
rated tournaments and (later) rated matchmaking call :func:`may_be_rated` or
:func:`check_may_be_rated`.  Trusted platform issuers' players and operator-assigned ids may;
bots may (``bot:<bot>``); the server's own guests (``guest:<sub>``, free to mint) may only when
the operator allows it (``CHAIWALA_RATED_GUESTS``), because a rating anyone can mint identities
for can be farmed.
"""

from __future__ import annotations

from collections.abc import Collection

from services.common import errors
from services.rating.identity import BOT_PREFIX, GUEST_PREFIX
from services.rating.model import Rating
from services.rating.settings import RatingSettings

IDENTITY_NOT_RATED = "identity_not_rated"
GUEST_ISSUER = "guest"
BOT_ISSUER = "bot"
# An id no configured issuer prefixes: an operator key seated it, so the platform vouches for it.
OPERATOR_ISSUER = "operator"


def is_guest(external_id: str) -> bool:
    """Whether ``external_id`` is one of the server's own guests."""
    return external_id.startswith(GUEST_PREFIX)


def may_be_rated(external_id: str, settings: RatingSettings | None = None) -> bool:
    """Whether a rated seat, tournament or queue may take ``external_id`` (a player id such as
    ``acme:42`` or ``guest:3kq…``, an operator-assigned id, or ``bot:<bot>``).

    ``settings`` default to the environment's, read now (an operator's change applies at once).
    An empty id is no identity at all: not this function's question (``identity_required``).
    """
    if not is_guest(external_id):
        return True
    return (settings or RatingSettings()).rated_guests


def identity_not_rated() -> errors.ServiceError:
    """A guest on a rated seat while guests are unrated (403 ``identity_not_rated``)."""
    message = "guests play casual games here; rated play needs a player token from a trusted platform issuer"
    return errors.forbidden(IDENTITY_NOT_RATED, message)


def check_may_be_rated(external_id: str, settings: RatingSettings | None = None) -> None:
    """Refuse ``external_id`` on a rated seat when :func:`may_be_rated` says no."""
    if external_id and not may_be_rated(external_id, settings):
        raise identity_not_rated()


def issuer_of(external_id: str, platform_aliases: Collection[str]) -> str:
    """Who vouches for ``external_id``, as leaderboards show it: ``guest``, ``bot``, the alias of
    the trusted platform issuer that prefixes it (``acme`` for ``acme:42``), else ``operator``."""
    if is_guest(external_id):
        return GUEST_ISSUER
    if external_id.startswith(BOT_PREFIX):
        return BOT_ISSUER
    prefix, colon, _ = external_id.partition(":")
    return prefix if colon and prefix in platform_aliases else OPERATOR_ISSUER


def is_provisional(rating: Rating, settings: RatingSettings | None = None) -> bool:
    """Whether ``rating`` is still provisional: too few rated games of its type, or sigma too wide."""
    chosen = settings or RatingSettings()
    return rating.games < chosen.provisional_games or rating.sigma > chosen.provisional_sigma
