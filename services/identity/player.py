"""A verified player, the refusal of a bad player token, and the rules for ids and names."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from services.common import errors
from services.identity.settings import GUEST_ALIAS
from services.lobby.names import MAX_PLAYER_NAME
from services.lobby.seats import player_name
from services.rating.identity import valid_external_id

INVALID_PLAYER_TOKEN = "invalid_player_token"
# Three base64url segments: what a JWT looks like (seat tokens and operator keys have no dots).
_JWT_SHAPE = re.compile(r"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


@dataclass(frozen=True)
class Player:
    """Who a verified player token says its bearer is."""

    player_id: str  # "<issuer alias>:<sub>", usable as a rating id (external id)
    name: str
    issuer_alias: str
    subject: str
    expires_at: int  # the token's `exp`, seconds since the epoch


def invalid_player_token(reason: str) -> errors.ServiceError:
    """A JWT that failed verification (401 ``invalid_player_token``); ``reason`` never quotes the token."""
    return errors.ServiceError(grpc.StatusCode.UNAUTHENTICATED, INVALID_PLAYER_TOKEN, f"invalid player token: {reason}")


def looks_like_jwt(token: str) -> bool:
    """Whether ``token`` has a JWT's shape (three dot-separated base64url parts)."""
    return bool(_JWT_SHAPE.fullmatch(token))


def player_id(alias: str, subject: str) -> str:
    """``<alias>:<subject>``, refused when it is not a usable external id (alphabet, length)."""
    identity = f"{alias}:{subject}"
    if not subject or not valid_external_id(identity):
        raise invalid_player_token("the `sub` claim is not usable as a player id (A-Z a-z 0-9 . _ : @ -, short)")
    return identity


def shown_name(alias: str, claims: Mapping[str, Any], subject: str) -> str:
    """The name a verified player is seated and listed under: the token's (:func:`display_name`),
    and for a guest with a visible mark, `` (guest 3f9a)``: four hex digits of the SHA-256 of its
    random subject (hex, so the mark never reads as a code name), so a guest never passes for a
    platform's player nor two guests for each other (but for one chance in 65,536).  A guest's
    default name (``Guest 3kq_``) is already a guest's."""
    name = display_name(claims, subject)
    if alias != GUEST_ALIAS or name == default_guest_name(subject):
        return name
    mark = f" (guest {guest_mark(subject)})"
    if name.endswith(mark):
        return name  # a refreshed token carries the marked name already
    return name[: MAX_PLAYER_NAME - len(mark)].rstrip() + mark


def guest_mark(subject: str) -> str:
    """The four hex digits that tell one guest's name from another's."""
    return hashlib.sha256(subject.encode()).hexdigest()[:4]


def default_guest_name(subject: str) -> str:
    """What a guest who chose no name is called."""
    return f"Guest {subject[:4]}"


def display_name(claims: Mapping[str, Any], fallback: str) -> str:
    """The player's name from ``name``, else ``preferred_username``, else ``fallback`` (the subject).

    A platform's claim is tidied rather than refused: characters a player name may not hold are
    dropped and the rest cut to the length the lobby allows, then checked by the lobby's own rule.
    """
    for claim in ("name", "preferred_username"):
        value = claims.get(claim)
        if isinstance(value, str):
            tidy = "".join(char for char in value if char.isprintable()).strip(" ")[:MAX_PLAYER_NAME]
            if tidy:
                try:
                    return player_name(tidy, fallback[:MAX_PLAYER_NAME])
                except errors.ServiceError:
                    continue  # a claim the lobby refuses (no visible character, a pronoun): the next one
    return fallback[:MAX_PLAYER_NAME]
