"""Seeds and entrant tokens derived from a tournament's own secrets.

* The tournament seed is 256 bits: an operator's choice (``seed_source = "operator"``; the
  old 32-bit ``seed`` or ``seed_hex``) or drawn by the director (``"server"``).  Every game's
  seed is the whole of ``HMAC-SHA256(key = the seed's 32 bytes, "round/table")``, so the
  tournament seed alone reproduces every game, and with it (bots being deterministic from the
  game's seed and version) every pairing and result.  Like a game's, it is never shown while
  the tournament runs (it would reveal every draw) and is revealed, as 64 hex digits, once the
  tournament is over.  The games are created with it as an operator seed (``seed_hex``).
* Tournaments created before 256-bit seeds (``seed_bits`` 32 in their record) keep their old
  derivation, ``HMAC-SHA256(key = the seed's 8 bytes, "round/table")`` cut to 32 bits, so the
  games they already played still follow from their seed.
* Each entrant's token is ``HMAC-SHA256(tournament secret, external id)`` (URL-safe), so the
  director can act for an entrant (resign a withdrawn entrant's seat) without storing any token;
  only the tokens' SHA-256 are stored, and the secret never leaves the director's Redis.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from services.common.rng import SEED_BITS

# The seed width of tournaments created before 256-bit seeds (their records have no seed_bits).
LEGACY_SEED_BITS = 32
_GAME_TAG = b"chaiwala/tournament-game/v1\x00"
_TOKEN_TAG = b"chaiwala/entrant-token/v1\x00"


def draw_seed() -> int:
    """A tournament seed (256 bits) for a tournament created without one."""
    return secrets.randbits(SEED_BITS)


def draw_secret() -> str:
    """A tournament's secret (hex), the key of its entrant tokens."""
    return secrets.token_hex(32)


def game_seed(tournament_seed: int, round_number: int, table_number: int, seed_bits: int = SEED_BITS) -> int:
    """The seed of one table's game: 256 bits, or 32 for a tournament from before (``seed_bits`` 32)."""
    legacy = seed_bits == LEGACY_SEED_BITS
    key = tournament_seed.to_bytes(8 if legacy else SEED_BITS // 8, "big")
    digest = hmac.new(key, _GAME_TAG + f"{round_number}/{table_number}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:4] if legacy else digest, "big")


def entrant_token(secret_hex: str, external_id: str) -> str:
    """The entrant's bearer token."""
    digest = hmac.new(bytes.fromhex(secret_hex), _TOKEN_TAG + external_id.encode(), hashlib.sha256).digest()
    return "ent_" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def token_hash(token: str) -> str:
    """What is stored of a token (as seat tokens are)."""
    return hashlib.sha256(token.encode()).hexdigest()
