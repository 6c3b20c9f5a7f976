"""Operator seeds for tests: a small number as the 32-hex-digit ``seed_hex`` the API takes.

The integer ``seed`` is refused (400 ``weak_seed``); ``seed_hex(11)`` is ``"000…00b"``, whose value
is 11, so a test keeps exactly the game it had with ``"seed": 11``.  Fine for tests, never for a
real event: there a seed is 128 random bits, kept secret until the event is over.
"""

from __future__ import annotations

SEED_HEX_DIGITS = 32


def seed_hex(number: int) -> str:
    """``number`` (0 to 2**128 - 1) as 32 hex digits."""
    if not 0 <= number < 1 << (4 * SEED_HEX_DIGITS):
        raise ValueError("a test seed is 0 to 2**128 - 1")
    return f"{number:0{SEED_HEX_DIGITS}x}"
