"""Whose seat is whose: the identities seats carry, and who may put them there.

A seat's ``external_id`` is the id it is rated under.  Only two callers may put one on a human
seat: an operator (a platform assigning its own players, or the tournament director), and the
verified player themselves (``{"me": true}`` at creation, or joining with their player token,
which seats their player id).  Anyone else claiming an id is refused (403
``external_id_not_yours``), a rated seat without an identity is refused (403
``identity_required``), an identity ratings may not count (a guest, unless the operator allows
rated guests) is refused a rated seat (403 ``identity_not_rated``,
:func:`services.rating.eligibility.may_be_rated`), and one identity holds at most one seat of a
rated game (409 ``identity_already_seated``).  Bots never carry a player's id (400 ``bad_external_id``,
:func:`services.rating.identity.check_external_id`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from services.common import errors
from services.rating.eligibility import check_may_be_rated


@dataclass(frozen=True)
class Claimant:
    """Who is seating players: an operator, a verified player (id and name), or neither."""

    operator: bool
    player_id: str = ""
    player_name: str = ""


def not_yours() -> errors.ServiceError:
    """A client naming an identity that is not its own."""
    return errors.forbidden("external_id_not_yours", "only an operator or that player may seat an external_id")


def identity_required(what: str) -> errors.ServiceError:
    """A rated seat (or entrant) without a verified identity."""
    return errors.forbidden("identity_required", f"{what} needs a verified player token (or an operator)")


def already_seated() -> errors.ServiceError:
    """One identity in two seats of a rated game."""
    message = "this player already holds a seat of this game"
    return errors.ServiceError(grpc.StatusCode.ALREADY_EXISTS, "identity_already_seated", message)


def check_claim(claimant: Claimant, external_id: str) -> None:
    """Refuse an ``external_id`` the claimant may not seat."""
    if external_id and not claimant.operator and external_id != claimant.player_id:
        raise not_yours()


def check_rated_seat(external_id: str) -> None:
    """One seat of a rated game: it needs an identity, and one that ratings may count."""
    if not external_id:
        raise identity_required("a seat of a rated game")
    check_may_be_rated(external_id)


def check_rated_seats(claimant: Claimant, players: Sequence[dict[str, Any]]) -> None:
    """A rated game's filled human seats carry identities that are verified or operator-assigned
    and that ratings may count, each at most once (open seats get theirs from the player who joins)."""
    seated: set[str] = set()
    for player in players:
        if player.get("open") or player.get("bot"):
            continue
        external_id = str(player.get("external_id") or "")
        if not external_id:
            raise identity_required("every human seat of a rated game")
        if external_id in seated:
            raise already_seated()
        seated.add(external_id)
        check_claim(claimant, external_id)
        check_may_be_rated(external_id)
