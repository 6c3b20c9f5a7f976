"""Seeds that neither the host nor the server can steer alone, and nobody can read early.

At creation the service draws a 32-byte server secret and publishes only its
commitment, ``SHA-256("chaiwala/seed-commitment/v1" || secret)``.  The effective
seed is ``HMAC-SHA256(secret, game id || contributions)`` cut to 64 bits (the width
of the RNG's state), where the contributions are the public strings each seat may
add (``client_seed``).  A seat's contribution is fixed before the seed is used, and
the secret was committed before any contribution was known, so neither side can
choose the outcome; while the game is active nobody but the server knows the secret,
so nobody can compute the draws.  The replay of a finished game reveals the secret,
and anyone can recompute both the commitment and the seed.

A seed given by an operator (tournaments that need reproducible events) is used as is
and marked ``seed_source = "operator"``; the commitment is published all the same.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

import orjson

SECRET_BYTES = 32
MAX_CONTRIBUTION = 64
SOURCE_SERVER = "server"
SOURCE_OPERATOR = "operator"
_COMMITMENT_TAG = b"chaiwala/seed-commitment/v1\x00"
_SEED_TAG = b"chaiwala/seed/v1\x00"


def draw_server_secret() -> bytes:
    """A fresh secret from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


def seed_commitment(secret: bytes) -> str:
    """The public commitment to ``secret`` (hex)."""
    return hashlib.sha256(_COMMITMENT_TAG + secret).hexdigest()


def derive_seed(secret: bytes, game_id: str, contributions: Sequence[str] = ()) -> int:
    """The effective seed: HMAC-SHA256 over the game id and the seats' contributions, 64 bits."""
    message = _SEED_TAG + orjson.dumps({"game_id": game_id, "contributions": list(contributions)})
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def contributions(client_seed: str) -> list[str]:
    """The public contributions mixed into the seed: the creator's ``client_seed``, if any."""
    return [client_seed] if client_seed else []
