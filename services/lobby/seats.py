"""Seats offered at creation: filled (human or bot), open, or reserved for an invitee.

A seat is stored in the game's ``players`` list as ``{"name", "bot"}`` once filled,
or ``{"open": true, "name": "", "bot": ""}`` while open; a reserved seat also keeps
``invite_hash`` (SHA-256 of its invite code, never the code) after it is filled, so
that a seat freed by leave or kick is reserved again.

Decisions: a *private* game is unlisted and invite-only, so every open seat of a
private game must carry an invite code (the host may give several seats the same
code, like a shared link); a public game lists its open seats and may reserve some.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from chaiwala.v1 import rules_pb2
from services.common import errors
from services.common.store import hash_token
from services.filing.store import VISIBILITIES
from services.lobby.claims import Claimant, check_claim, identity_required
from services.lobby.names import display_name
from services.rating.identity import check_external_id

MAX_INVITE = 128

Player = dict[str, Any]


def player_name(raw: str, fallback: str) -> str:
    """A seat's display name, checked (:mod:`services.lobby.names` says what a name may be)."""
    return display_name(raw, fallback)


def _invite_hash(code: str) -> str:
    if len(code) > MAX_INVITE or not code.isprintable():
        raise errors.invalid("bad_invite", f"invite codes are printable and at most {MAX_INVITE} characters")
    return hash_token(code)


def visibility_of(raw: str) -> str:
    """``public`` (the default) or ``private``."""
    visibility = raw or "public"
    if visibility not in VISIBILITIES:
        raise errors.invalid("bad_visibility", "visibility is 'public' or 'private'")
    return visibility


def _open_seat(spec: rules_pb2.PlayerSpec, visibility: str) -> Player:
    if spec.name or spec.bot or spec.external_id or spec.token_sha256 or spec.me:
        raise errors.invalid("bad_player", "an open seat has no name, bot, external_id, token_sha256 or me")
    if visibility == "private" and not spec.invite:
        raise errors.invalid("invite_required", "every open seat of a private game needs an invite code")
    seat: Player = {"name": "", "bot": "", "open": True}
    if spec.invite:
        seat["invite_hash"] = _invite_hash(spec.invite)
    return seat


def players_from(
    specs: Sequence[rules_pb2.PlayerSpec], bots: Sequence[str], visibility: str, claimant: Claimant
) -> list[Player]:
    """The seats of a new game, checked; identities only as ``claimant`` may seat them."""
    players = []
    for index, spec in enumerate(specs):
        if spec.open:
            players.append(_open_seat(spec, visibility))
            continue
        if spec.invite:
            raise errors.invalid("bad_player", "only open seats take an invite code")
        if spec.me:
            players.append(_own_seat(spec, claimant))
            continue
        if spec.token_sha256 and not claimant.operator:
            raise errors.forbidden("api_key_required", "seating a credential hash needs an operator API key")
        if spec.bot and spec.bot not in bots:
            raise errors.invalid("unknown_bot", f"no bot named {spec.bot!r}; choose from {sorted(bots)}")
        player: Player = {"name": player_name(spec.name, f"Player {index + 1}"), "bot": spec.bot}
        if spec.external_id:
            player["external_id"] = check_external_id(spec.external_id, spec.bot)
            check_claim(claimant, player["external_id"])
        players.append(player)
    return players


def _own_seat(spec: rules_pb2.PlayerSpec, claimant: Claimant) -> Player:
    """``{"me": true}``: the caller's verified identity, its name from the identity."""
    if spec.name or spec.bot or spec.external_id or spec.token_sha256:
        raise errors.invalid("bad_player", "a 'me' seat has no name, bot, external_id or token_sha256")
    if not claimant.player_id:
        raise identity_required("a 'me' seat")
    return {"name": claimant.player_name, "bot": "", "external_id": claimant.player_id}


def started_player(player: Player) -> Player:
    """A filled seat as a started game keeps it: name, bot and external id (no lobby fields)."""
    kept: Player = {"name": player["name"], "bot": player.get("bot", "")}
    if player.get("external_id"):
        kept["external_id"] = player["external_id"]
    return kept


def is_open(player: Player) -> bool:
    """Whether the seat is still to be filled."""
    return bool(player.get("open"))


def open_to_anyone(player: Player) -> bool:
    """An open seat anyone may take (not reserved)."""
    return is_open(player) and not player.get("invite_hash")


def invite_matches(player: Player, code: str) -> bool:
    """Whether ``code`` is the invite code of this reserved seat."""
    stored = player.get("invite_hash", "")
    return bool(stored) and bool(code) and secrets.compare_digest(stored, hash_token(code))


def may_take(player: Player, code: str) -> bool:
    """Whether a joiner with invite ``code`` may take this seat now."""
    return is_open(player) and (not player.get("invite_hash") or invite_matches(player, code))


def choose_seat(players: Sequence[Player], code: str, wanted: int | None) -> int:
    """The seat a joiner takes: the one asked for, else a reserved one matching the code, else any free one."""
    if wanted is not None:
        return _check_wanted(players, code, wanted)
    for seat, player in enumerate(players):
        if is_open(player) and invite_matches(player, code):
            return seat
    for seat, player in enumerate(players):
        if open_to_anyone(player):
            return seat
    if not any(is_open(p) for p in players):
        raise errors.illegal("game_full", "every seat of this game is taken")
    if not code:
        raise errors.forbidden("invite_required", "the open seats of this game need an invite code")
    raise errors.forbidden("bad_invite", "that invite code opens no seat of this game")


def _check_wanted(players: Sequence[Player], code: str, wanted: int) -> int:
    if wanted >= len(players):
        raise errors.invalid("bad_seat", f"this game has seats 0-{len(players) - 1}")
    if not is_open(players[wanted]):
        raise errors.illegal("seat_taken", f"seat {wanted} is taken")
    if not may_take(players[wanted], code):
        code_name = "bad_invite" if code else "invite_required"
        raise errors.forbidden(code_name, f"seat {wanted} is reserved for an invitee")
    return wanted


def freed(player: Player) -> Player:
    """The seat after its player leaves or is kicked (a reservation stays)."""
    seat: Player = {"name": "", "bot": "", "open": True}
    if player.get("invite_hash"):
        seat["invite_hash"] = player["invite_hash"]
    return seat


def seat_messages(players: Sequence[Player], resigned: Sequence[int]) -> list[rules_pb2.Seat]:
    """The public description of every seat (never an invite or token)."""
    return [
        rules_pb2.Seat(
            seat=i,
            name=p.get("name", ""),
            bot=p.get("bot", ""),
            open=is_open(p),
            reserved=is_open(p) and bool(p.get("invite_hash")),
            resigned=i in resigned,
            external_id=p.get("external_id", ""),
        )
        for i, p in enumerate(players)
    ]


def replay_player(player: Player) -> rules_pb2.PlayerSpec:
    """A seat as a replay lists it: name, bot, external id, and ``open`` for a seat nobody took (a game
    aborted while it waited); never an invite or token."""
    external_id = player.get("external_id", "")
    return rules_pb2.PlayerSpec(
        name=player["name"], bot=player.get("bot", ""), external_id=external_id, open=is_open(player)
    )
