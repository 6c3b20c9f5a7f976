"""Who a rated seat is: the platform's own ``external_id`` (no accounts in Chaiwala), or a bot.

External ids are the caller's identifiers, 1 to 128 characters from ``A-Z a-z 0-9 . _ : @ -``
(so they are safe in Redis keys and URLs).  The prefix ``bot:`` is reserved: a bot seat
without an external id is rated under ``bot:<bot name>`` (``bot:heuristic``), so a new human
can be placed against the bots by rating.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from services.common import errors

MAX_EXTERNAL_ID = 128
BOT_PREFIX = "bot:"
# The ids of the server's own guest issuer (``services.identity``; its alias is reserved there).
GUEST_PREFIX = "guest:"
_PATTERN = re.compile(r"[A-Za-z0-9._:@-]{1,128}")


def valid_external_id(raw: str) -> bool:
    """Whether ``raw`` is a well-formed external id (any prefix)."""
    return bool(_PATTERN.fullmatch(raw))


def check_external_id(raw: str, bot: str = "") -> str:
    """``raw`` checked (``""`` passes: no id); the ``bot:`` prefix only for bot seats."""
    if not raw:
        return ""
    if not valid_external_id(raw):
        raise errors.invalid(
            "bad_external_id", f"external_id is 1-{MAX_EXTERNAL_ID} characters from A-Z a-z 0-9 . _ : @ -"
        )
    if raw.startswith(BOT_PREFIX) and not bot:
        raise errors.invalid("bad_external_id", f"external ids starting with {BOT_PREFIX!r} are reserved for bots")
    if bot and not raw.startswith(BOT_PREFIX):
        message = f"a bot seat's external_id starts with {BOT_PREFIX!r}: bots never carry a player's id"
        raise errors.invalid("bad_external_id", message)
    return raw


def bot_id(bot: str) -> str:
    """The rating id of a bot that plays under no external id."""
    return f"{BOT_PREFIX}{bot}"


def rated_id(player: Mapping[str, Any]) -> str:
    """The id a seat is rated under: its external id, else ``bot:<bot>`` for a bot, else ``""``."""
    external_id = str(player.get("external_id") or "")
    if external_id:
        return external_id
    bot = str(player.get("bot") or "")
    return bot_id(bot) if bot else ""
