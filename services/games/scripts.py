"""The store's Lua scripts: the atomic commit, the status change and the one-command load.

The commit and the status change are assembled from parts (:mod:`services.common.luaparts`),
each owned by its concern and naming its keys and arguments: the guard and the log here, the
attention queue's in :mod:`services.common.attention`, the outbox's in :mod:`services.outbox.stream`,
the legal-moves answers' in :mod:`services.legalmoves.fingerprint`, and
:data:`services.filing.store.FILING`, which owns a game's status: when it changes, the status
field, the listing, the active set and the retention index change with it, in the same atomic step.
"""

from __future__ import annotations

from services.common.attention import ATTENTION_PART
from services.common.luaparts import Part, Script
from services.filing.store import FILING
from services.legalmoves.fingerprint import COMMIT_PART as LEGAL_PART
from services.outbox.stream import PART as OUTBOX_PART

# Arguments: '1' to use the idempotency key (else '0'), the expected version, the log head stored
# with it, and the seats' identity the move was authorised by ('' = not checked: the caller loaded
# the game just now).  Leaves `version` (the expected one) and `use_idem` to the parts after it.
# A move played on a position the rules process kept (services.rules.positions) was authorised
# by metadata it did not load: the seats' identity (players and token hashes, the digest of
# services.legalmoves.fingerprint.identity) is checked here with the version, head and status.
_GUARD = Part(
    "guard",
    ("meta", "idem"),
    """
local use_idem = take() == '1'
local expected = take()
local previous_head = take()
local seats_identity = take()
if use_idem then
  local earlier = redis.call('GET', K.idem)
  if earlier then return {'idempotent', earlier} end
end
local meta = redis.call('HMGET', K.meta, 'version', 'status', 'log_head')
if not meta[1] then return {'missing', ''} end
if meta[2] ~= 'active' then return {'not_active', meta[2]} end
local version = tonumber(meta[1])
if version ~= tonumber(expected) then return {'conflict', meta[1]} end
-- The chain must continue from the head stored with this version (a second guard beside it).
if (meta[3] or '') ~= previous_head then return {'conflict', meta[1]} end
if seats_identity ~= '' then
  local seats = redis.call('HMGET', K.meta, 'players', 'token_hashes')
  local players, hashes = seats[1] or '', seats[2] or ''
  local digest = redis.sha1hex(#players .. ':' .. players .. '|' .. #hashes .. ':' .. hashes)
  if digest ~= seats_identity then return {'conflict', meta[1]} end
end
""",
)

# The log (services.eventlog.codec's format 2).  Arguments: the entry count, then per entry the
# binary chain hash, the binary state digest and the compressed body (fields h, d, z).
_ENTRIES = Part(
    "entries",
    ("events",),
    """
local entry_count = tonumber(take())
for _ = 1, entry_count do
  local chain_hash = take()
  local digest = take()
  local body = take()
  version = version + 1
  redis.call('XADD', K.events, version .. '-1', 'h', chain_hash, 'd', digest, 'z', body)
end
""",
)

# The snapshot, the metadata that follows every move and the first answer for the idempotency
# key.  Arguments: snapshot, result json, lifecycle json, the new log head, the answer, its TTL.
_RECORD = Part(
    "record",
    ("state", "meta", "idem"),
    """
local snapshot = take()
local result = take()
local lifecycle = take()
local log_head = take()
local answer = take()
local answer_ttl = take()
redis.call('SET', K.state, snapshot)
redis.call('HSET', K.meta, 'version', version, 'result', result, 'lifecycle', lifecycle, 'log_head', log_head)
if use_idem then redis.call('SET', K.idem, answer, 'EX', tonumber(answer_ttl)) end
""",
)

# The bots' memory of a game (services.games.records.bot_memory_key): written with the moves that
# changed it, gone once the game is no longer active.  Argument: the memory ('' = unchanged).
# After FILING, whose `filing_status` is the game's status once this script is done.
BOT_MEMORY = Part(
    "bot_memory",
    ("bot_memory",),
    """
local remembered = take()
if filing_status ~= 'active' then redis.call('DEL', K.bot_memory)
elseif remembered ~= '' then redis.call('SET', K.bot_memory, remembered) end
""",
)

COMMIT = Script(
    [
        _GUARD,
        _ENTRIES,
        _RECORD,
        ATTENTION_PART,
        OUTBOX_PART,
        FILING,
        BOT_MEMORY,
        LEGAL_PART,  # after FILING: the answers' fingerprint reads the status just written
        Part("answer", (), "return {'ok', tostring(version)}"),
    ]
)

# Waiting or active games only; answers the status they had.  No arguments.
_STATUS_GUARD = Part(
    "guard",
    ("meta",),
    """
local before = redis.call('HGET', K.meta, 'status')
if not before then return {'missing', ''} end
if before ~= 'active' and before ~= 'waiting' then return {'not_active', before} end
""",
)

SET_STATUS = Script(
    [
        _STATUS_GUARD,
        ATTENTION_PART,  # with no due time: a game that stops needs no more attention
        OUTBOX_PART,
        FILING,
        BOT_MEMORY,
        Part("answer", (), "return {'ok', before}"),
    ]
)


# ---- one-command load (lean-path: services.games.store.GameStore.load_with) ----
# KEYS: meta, snapshot, then keys of the same game (e.g. idempotency answers).  One atomic read
# in one command: a MULTI of HGETALL + GETs cost redis-py four replies to parse per request.
LOAD = """
local out = {redis.call('HGETALL', KEYS[1]), redis.call('GET', KEYS[2]) or false}
for index = 3, #KEYS do out[#out + 1] = redis.call('GET', KEYS[index]) or false end
return out
"""
# ---- end of the one-command load ----
