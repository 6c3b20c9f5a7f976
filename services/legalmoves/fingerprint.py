"""Names and fingerprints of the legal-moves answers kept beside a game (see :mod:`services.legalmoves`).

The fingerprint is computed in Lua, the same snippet in the commit script and in the gateway's
read, over the metadata fields an answer depends on; the identity (players and token hashes,
which a commit does not write) is computed by the rules service from the raw fields it loaded.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

from services.common.luaparts import Part

# How long the answers of a game's last commit stay (refreshed by every commit): an idle
# game's next GET only takes the rules-service call again.
TTL_SECONDS = 3600
# Metadata fields an answer depends on, in fingerprint order (the game type, too: one script
# serves every game type).
FIELDS = ("status", "version", "log_head", "lifecycle", "players", "token_hashes", "game_type")
# Fields a commit does not write itself: they must be the ones the answers were computed from.
IDENTITY_FIELDS = ("players", "token_hashes")


@dataclass(frozen=True)
class LegalEntries:
    """The answers a commit stores: made from metadata of this ``identity``, by field."""

    identity: str
    answers: list[tuple[str, bytes]]


def legal_key(game_id: str) -> str:
    """The hash of a game's stored answers (the game's slot, beside its meta)."""
    return f"game:{{{game_id}}}:legal"


def entry_field(token_hash: str, language: str) -> str:
    """The field of one seat's answer in one language."""
    return f"{token_hash}:{language}"


def _framed(values: list[bytes]) -> bytes:
    # Length-prefixed, so no two different tuples of values give the same text.
    return b"|".join(str(len(value)).encode() + b":" + value for value in values)


@functools.lru_cache(maxsize=4096)  # read with every load of a game, and the same until a seat changes
def identity(players: str, token_hashes: str) -> str:
    """SHA-1 of the raw players and token hashes, as Lua's ``legal_identity`` (:data:`LUA_FUNCTIONS`) does."""
    return hashlib.sha1(_framed([players.encode(), token_hashes.encode()])).hexdigest()  # a digest, not a secret


def _lua_fields(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{name}'" for name in names)


# Lua: `fingerprint(meta_key)` is false unless the game is active; `identity(meta_key)` as above.
LUA_FUNCTIONS = f"""
local function legal_framed(values, count)
  local parts = {{}}
  for i = 1, count do
    local value = values[i] or ''
    parts[i] = #value .. ':' .. value
  end
  return table.concat(parts, '|')
end
local function legal_fingerprint(meta_key)
  local values = redis.call('HMGET', meta_key, {_lua_fields(FIELDS)})
  if values[1] ~= 'active' then return false end
  return redis.sha1hex(legal_framed(values, {len(FIELDS)}))
end
local function legal_identity(meta_key)
  local values = redis.call('HMGET', meta_key, {_lua_fields(IDENTITY_FIELDS)})
  return redis.sha1hex(legal_framed(values, {len(IDENTITY_FIELDS)}))
end
"""


# The commit script's part (services.games.scripts) that stores the answers made for the version
# just committed, only if the players and token hashes are still those they were made from; the
# old answers go in any case.  It reads the metadata written by the parts before it.
COMMIT_PART = Part(
    "legal",
    ("legal", "meta"),
    LUA_FUNCTIONS
    + f"""
local legal_made_for = take()
local legal_count = tonumber(take() or '0')
local legal_fields = {{'fp', ''}}
for _ = 1, legal_count do
  local field = take()
  local body = take()
  legal_fields[#legal_fields + 1] = field
  legal_fields[#legal_fields + 1] = body
end
redis.call('DEL', K.legal)
if legal_count > 0 and legal_identity(K.meta) == legal_made_for then
  local fingerprint = legal_fingerprint(K.meta)
  if fingerprint then
    legal_fields[2] = fingerprint
    redis.call('HSET', K.legal, unpack(legal_fields))
    redis.call('EXPIRE', K.legal, {TTL_SECONDS})
  end
end
""",
)


def commit_args(legal: LegalEntries | None) -> list[str | bytes | int]:
    """The arguments :data:`COMMIT_PART` takes: identity, count, then field and bytes per answer."""
    if legal is None:
        return ["", 0]
    return [legal.identity, len(legal.answers), *(part for answer in legal.answers for part in answer)]
