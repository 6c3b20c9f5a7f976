"""Opaque page tokens that carry an offset into a sorted set (leaderboards, tournament lists), and
the page size a listing call asks for.

An offset cursor may skip or repeat an entry when the set changes between two pages, as any
live listing may; the tokens are versioned by a prefix so their format can change later.
"""

from __future__ import annotations

import base64
import binascii

from services.common import errors

_MAX_DIGITS = 9


def encode_offset(prefix: str, offset: int) -> str:
    """The token of the page that starts at ``offset``."""
    return base64.urlsafe_b64encode(f"{prefix}:{offset}".encode()).decode().rstrip("=")


def decode_offset(prefix: str, token: str) -> int:
    """The offset ``token`` names (0 for no token); a token this server did not issue is ``bad_page_token``."""
    if not token:
        return 0
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise errors.invalid("bad_page_token", "page_token is not one this server issued") from None
    found, _, digits = text.partition(":")
    if found != prefix or not digits.isascii() or not digits.isdigit() or len(digits) > _MAX_DIGITS:
        raise errors.invalid("bad_page_token", "page_token is not one this server issued")
    return int(digits)


def check_page_size(page_size: int, largest: int) -> None:
    """Refuse a page size outside 1..``largest``."""
    if not 1 <= page_size <= largest:
        raise errors.invalid("bad_page_size", f"page_size is a number from 1 to {largest}")


def requested_page_size(requested: int, default: int, largest: int) -> int:
    """The page size a gRPC listing call asks for: ``requested``, ``default`` when it is 0 (unset);
    above ``largest``, ``bad_page_size``."""
    size = requested or default
    if size > largest:
        raise errors.invalid("bad_page_size", f"page_size is 1-{largest}")
    return size
