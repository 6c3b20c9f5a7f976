"""What a new game's request decides beyond its seats: time control and timeout policy."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import errors
from services.common.store import hash_token, new_token
from services.games.lifecycle import DEFAULT_TIMEOUTS_TO_RESIGN, ON_TIMEOUT, Lifecycle
from services.lobby.claims import Claimant, check_rated_seats

MAX_TIMEOUTS_TO_RESIGN = 100
MAX_TOURNAMENT_REF = 128
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def lifecycle_from(request: rules_pb2.CreateGameRequest, seats: int, now: int) -> Lifecycle:
    """The initial platform state of a game started at ``now``: its clock (if any) and what a timeout leads to."""
    on_timeout = request.on_timeout or "bot"
    if on_timeout not in ON_TIMEOUT:
        raise errors.invalid("bad_on_timeout", f"on_timeout is one of {', '.join(ON_TIMEOUT)}")
    if request.timeouts_to_resign > MAX_TIMEOUTS_TO_RESIGN:
        raise errors.invalid("bad_on_timeout", f"timeouts_to_resign is at most {MAX_TIMEOUTS_TO_RESIGN}")
    clock = None
    if request.HasField("clock"):
        spec = request.clock
        try:
            clock = clocks.new_clock(spec.per_turn_s, spec.bank_s, spec.increment_s, seats)
        except clocks.BadClock as error:
            raise errors.invalid("bad_clock", str(error)) from None
    return Lifecycle(
        timeouts=[0] * seats,
        clock=clock,
        on_timeout=on_timeout,
        timeouts_to_resign=request.timeouts_to_resign or DEFAULT_TIMEOUTS_TO_RESIGN,
        # The start of a game created full, the creation's own instant (so it is never before its
        # created_at); a lobby's start sets it again (lobby_rpcs._start_plan).
        started_ms=now,
    )


def waiting_snapshot() -> bytes:
    """The snapshot stored while a game waits for players: nothing is set up yet."""
    return b"{}"


def seat_credentials(
    specs: Sequence[rules_pb2.PlayerSpec], players: Sequence[dict[str, Any]]
) -> tuple[list[str], list[str]]:
    """Each filled seat's token (returned once) and stored hash; open seats and bots have neither
    (bots are the conductor's: no answer may carry a credential for one).

    A seat whose spec names a ``token_sha256`` (the tournament director's entrant tokens) keeps
    that hash and returns no token: the entrant's own token is its credential.
    """
    tokens, hashes = [], []
    for spec, player in zip(specs, players, strict=True):
        if player.get("open") or player.get("bot"):
            tokens.append("")
            hashes.append("")
        elif spec.token_sha256:
            if not _SHA256_HEX.fullmatch(spec.token_sha256):
                raise errors.invalid("bad_player", "token_sha256 is 64 lowercase hex digits")
            tokens.append("")
            hashes.append(spec.token_sha256)
        else:
            token = new_token()
            tokens.append(token)
            hashes.append(hash_token(token))
    return tokens, hashes


def rating_fields(
    request: rules_pb2.CreateGameRequest, players: Sequence[dict[str, Any]], claimant: Claimant
) -> tuple[bool, str]:
    """Whether the game is rated, and the tournament table it is ("" for none), checked.

    A rated game needs a verified or operator-assigned identity on every filled human seat, each
    at most once (bots without one are rated as ``bot:<bot>``); its open seats get theirs when a
    player joins (:mod:`services.lobby.claims`).
    """
    ref = request.tournament
    if len(ref) > MAX_TOURNAMENT_REF or not ref.isprintable():
        raise errors.invalid("bad_tournament", f"tournament is at most {MAX_TOURNAMENT_REF} printable characters")
    rated = request.rated or bool(ref)
    if ref and not claimant.operator:
        raise errors.forbidden("api_key_required", "a tournament table needs an operator API key")
    if rated:
        check_rated_seats(claimant, players)
    return rated, ref
