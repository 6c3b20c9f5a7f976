"""Seeds that neither the host nor the server can steer alone, and nobody can read early.

At creation the service draws a 32-byte server secret and publishes only its
commitment, ``SHA-256("chaiwala/seed-commitment/v1" || secret)``.  The effective
seed is the whole of ``HMAC-SHA256(secret, game id || contributions)`` (256 bits), where
the contributions are the public strings each seat may add (``client_seed``).  A seat's
contribution is fixed before the seed is used, and the secret was committed before any
contribution was known, so neither side can choose the outcome; while the game is active
nobody but the server knows the secret, and the seed keys a cryptographic generator
(:class:`services.common.rng.KeyedRng`), so nobody can compute the draws, not even from
the draws they see.  The replay of a finished game reveals the secret and the seed, and
anyone can recompute both the commitment and the seed.

Games created before 256-bit seeds cut the HMAC to its first 64 bits and drew from PCG32;
they keep both (their stored seed says ``generator = "pcg32"``), and :func:`derive_seed`
still derives their seed for verification.

A seed given by an operator (tournaments that need reproducible events) is used as is
and marked ``seed_source = "operator"``; the commitment is published all the same.  It is
``seed_hex``, 128 to 256 bits as 32-64 hex digits (:func:`operator_seed`).  Shorter seeds are
refused (400 ``weak_seed``), the old 32-bit integer ``seed`` too: a seat that sees its own
hidden view can search every 32-bit seed in seconds and then read every other seat's hand.
Games made with a short seed before keep it and keep verifying (verification never asks how
long a seed may be).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Sequence

import orjson

from chaiwala.v1 import rules_pb2
from services.common import errors
from services.common.rng import KIND_KEYED, KIND_PCG32, SEED_HEX_DIGITS, Seed
from services.games.records import Fairness

SECRET_BYTES = 32
# The fewest hex digits an operator's seed may have: 128 bits, out of any search's reach.
MIN_SEED_HEX_DIGITS = 32
WEAK_SEED = "weak_seed"
MAX_CONTRIBUTION = 64
SOURCE_SERVER = "server"
SOURCE_OPERATOR = "operator"
# An operator's seed_hex: 1-64 hex digits (the empty string means "not given").
SEED_HEX_PATTERN = f"^[0-9a-fA-F]{{1,{SEED_HEX_DIGITS}}}$"
_SEED_HEX = re.compile(SEED_HEX_PATTERN)
_COMMITMENT_TAG = b"chaiwala/seed-commitment/v1\x00"
_SEED_TAG = b"chaiwala/seed/v1\x00"
_LEGACY_SEED_BYTES = 8  # the width of PCG32's state, which seeds were cut to before

RequireOperator = Callable[[str], None]


def draw_server_secret() -> bytes:
    """A fresh secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def seed_commitment(secret: bytes) -> str:
    """The public commitment to ``secret`` (hex)."""
    return hashlib.sha256(_COMMITMENT_TAG + secret).hexdigest()


def derive_seed(secret: bytes, game_id: str, contributions: Sequence[str] = (), generator: str = KIND_KEYED) -> Seed:
    """The effective seed: HMAC-SHA256 over the game id and the seats' contributions.

    All 256 bits for the keyed generator; the first 64 for a ``pcg32`` game (made before).
    """
    message = _SEED_TAG + orjson.dumps({"game_id": game_id, "contributions": list(contributions)})
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    if generator == KIND_PCG32:
        return Seed(int.from_bytes(digest[:_LEGACY_SEED_BYTES], "big"), KIND_PCG32)
    return Seed(int.from_bytes(digest, "big"), generator)


def contributions(client_seed: str) -> list[str]:
    """The public contributions mixed into the seed: the creator's ``client_seed``, if any."""
    return [client_seed] if client_seed else []


def parse_seed_hex(text: str) -> int:
    """The value of 1-64 hex digits; anything else is refused with ``bad_seed``."""
    if not _SEED_HEX.fullmatch(text):  # fullmatch: "$" alone would let a final newline through
        raise errors.invalid("bad_seed", f"seed_hex is 1 to {SEED_HEX_DIGITS} hex digits (at most 256 bits)")
    return int(text, 16)


def weak_seed(what: str) -> errors.ServiceError:
    """A guessable operator seed (400 ``weak_seed``); the detail says what to send instead."""
    digits = f"{MIN_SEED_HEX_DIGITS} to {SEED_HEX_DIGITS} hex digits (128 to 256 bits)"
    message = f"{what} can be found by search from one seat's view; give seed_hex with {digits}, kept secret"
    return errors.invalid(WEAK_SEED, message)


def operator_seed(has_seed: bool, seed: int, seed_hex: str) -> int | None:
    """The seed an operator gave as ``seed_hex`` (32-64 hex digits), or ``None`` for none.

    The integer ``seed`` and a ``seed_hex`` under 32 digits are ``weak_seed``; both at once, or
    digits that are not hex, ``bad_seed``.
    """
    if has_seed and seed_hex:
        raise errors.invalid("bad_seed", "give seed or seed_hex, not both")
    if has_seed:
        raise weak_seed("the integer seed (32 bits)")
    if not seed_hex:
        return None
    value = parse_seed_hex(seed_hex)
    if len(seed_hex) < MIN_SEED_HEX_DIGITS:
        raise weak_seed(f"a seed_hex of {len(seed_hex)} hex digits")
    return value


def seed_for(
    request: rules_pb2.CreateGameRequest, game_id: str, require_operator: RequireOperator
) -> tuple[Fairness, Seed]:
    """Draw and commit the server secret; the seed is derived from it unless an operator gives one.

    Every new game draws from the keyed generator; ``require_operator`` refuses a caller
    who chooses the seed without an operator key.
    """
    client_seed = request.client_seed
    if len(client_seed) > MAX_CONTRIBUTION or not client_seed.isprintable():
        raise errors.invalid("bad_client_seed", f"client_seed is at most {MAX_CONTRIBUTION} printable characters")
    if request.HasField("seed") or request.seed_hex:
        require_operator("choosing the seed")  # who may choose first: a player learns nothing of seeds
    chosen = operator_seed(request.HasField("seed"), request.seed, request.seed_hex)
    secret = draw_server_secret()
    commitment = seed_commitment(secret)
    if chosen is not None:
        return Fairness(secret.hex(), commitment, SOURCE_OPERATOR, client_seed), Seed(chosen, KIND_KEYED)
    seed = derive_seed(secret, game_id, contributions(client_seed))
    return Fairness(secret.hex(), commitment, SOURCE_SERVER, client_seed), seed


def reveal_seed(replay: rules_pb2.Replay, seed: Seed, over: bool) -> None:
    """Set a replay's seed fields: the generator always, the seed only once the game is over.

    ``seed`` (uint64) carries it only when it fits in 64 bits; ``seed_hex`` always does.
    """
    replay.generator = seed.generator
    if over:
        replay.seed_hex = seed.hex
        if seed.value < 1 << 64:
            replay.seed = seed.value
