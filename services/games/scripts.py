"""The store's Lua scripts: the atomic commit, the status change and the one-command load."""

from __future__ import annotations

from services.legalmoves import fingerprint as legal_fingerprint
from services.lobby.listing import STATUSES
from services.outbox import stream as outbox_stream


# The game's end, when the status written is not 'active' (listing, active set, retention), all in
# the game's slot: KEYS[first] = the active set, the next four = the listing's sets of the game's
# type and visibility in services.lobby.listing.STATUSES order, then the shard's retention index.
def finish_block(first: int, status: str, game_id: str) -> str:
    """The Lua that files a game that ended (``status`` and ``game_id`` are Lua expressions)."""
    keys = ", ".join(f"KEYS[{first + 1 + i}]" for i in range(len(STATUSES)))
    names = ", ".join(f"'{name}'" for name in STATUSES)
    return f"""
-- ---- the game's end: out of the active set, into its status's listing, retention clock started ----
local end_status, end_game = {status}, {game_id}
if end_status ~= 'active' and end_status ~= 'waiting' then
  redis.call('SREM', KEYS[{first}], end_game)
  local created = redis.call('HGET', KEYS[1], 'created_ms') or '0'
  local listing_keys, listing_names = {{{keys}}}, {{{names}}}
  for i = 1, #listing_keys do
    if listing_names[i] == end_status then redis.call('ZADD', listing_keys[i], created, end_game)
    else redis.call('ZREM', listing_keys[i], end_game) end
  end
  local now = redis.call('TIME')
  redis.call('ZADD', KEYS[{first + 1 + len(STATUSES)}], 'NX', now[1] * 1000 + math.floor(now[2] / 1000), end_game)
end
-- ---- end of the game's end ----
"""


FINISH_KEY_COUNT = 2 + len(STATUSES)


# KEYS: meta, state, events, idem (always a key of the game's slot, so Redis Cluster accepts it),
#       attention queue and claims of the game's shard (same slot, see services.common.attention)
# ARGV: expected version, snapshot, status, result json, idem answer, idem ttl, entry count,
#       use idem ('1'/'0'), lifecycle json, attention score ('' = none), game id,
#       previous log head, new log head,
#       then per entry: seat, bot, move json, events json, kind, chain hash, state digest
# Outbox block (services.outbox): KEYS[7] = the game's outbox shard; after the entries, the outbox
#       events (services.outbox.stream.lua_args), written only when the commit is.
# Format-2 entries (services.eventlog.codec): after the outbox events, their count, then per entry
#       the binary chain hash, the binary state digest and the compressed body (fields h, d, z).
#       The commit writes its entries there, with the entry count of ARGV[7] (format 1) = 0.
COMMIT = (
    """
local use_idem = ARGV[8] == '1'
if use_idem then
  local earlier = redis.call('GET', KEYS[4])
  if earlier then return {'idempotent', earlier} end
end
local meta = redis.call('HMGET', KEYS[1], 'version', 'status')
if not meta[1] then return {'missing', ''} end
if meta[2] ~= 'active' then return {'not_active', meta[2]} end
local version = tonumber(meta[1])
if version ~= tonumber(ARGV[1]) then return {'conflict', meta[1]} end
-- The chain must continue from the head stored with this version (a second guard beside it).
if (redis.call('HGET', KEYS[1], 'log_head') or '') ~= ARGV[12] then return {'conflict', meta[1]} end
local count = tonumber(ARGV[7])
for i = 0, count - 1 do
  local base = 14 + i * 7
  version = version + 1
  redis.call('XADD', KEYS[3], version .. '-1', 'seat', ARGV[base], 'bot', ARGV[base + 1],
             'move', ARGV[base + 2], 'events', ARGV[base + 3], 'kind', ARGV[base + 4],
             'hash', ARGV[base + 5], 'digest', ARGV[base + 6])
end
-- ---- format-2 entries (services.eventlog.codec): after the outbox events ----
local compact_at = 14 + count * 7
compact_at = compact_at + 2 + tonumber(ARGV[compact_at] or '0') * 4
local compact_count = tonumber(ARGV[compact_at] or '0')
for i = 0, compact_count - 1 do
  local base = compact_at + 1 + i * 3
  version = version + 1
  redis.call('XADD', KEYS[3], version .. '-1', 'h', ARGV[base], 'd', ARGV[base + 1], 'z', ARGV[base + 2])
end
-- ---- end format-2 entries ----
redis.call('SET', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[1], 'version', version, 'status', ARGV[3], 'result', ARGV[4], 'lifecycle', ARGV[9],
           'log_head', ARGV[13])
if use_idem then redis.call('SET', KEYS[4], ARGV[5], 'EX', tonumber(ARGV[6])) end
redis.call('HDEL', KEYS[6], ARGV[11])
if ARGV[10] == '' then redis.call('ZREM', KEYS[5], ARGV[11]) else redis.call('ZADD', KEYS[5], ARGV[10], ARGV[11]) end
"""
    + outbox_stream.lua_block("KEYS[7]", "14 + count * 7")
    + legal_fingerprint.LUA_FUNCTIONS
    + """
-- ---- legal-moves answers (services.legalmoves): KEYS[8] = the game's legal hash; after the
-- format-2 entries, the identity the answers were made from, then their count, then per answer
-- its field and bytes.  Written with the metadata just committed, only if the players and token
-- hashes are still those the answers were made from; the old answers go in any case.
local legal_at = compact_at + 1 + compact_count * 3
local legal_count = tonumber(ARGV[legal_at + 1] or '0')
if KEYS[8] then redis.call('DEL', KEYS[8]) end
if legal_count > 0 and legal_identity(KEYS[1]) == ARGV[legal_at] then
  local fingerprint = legal_fingerprint(KEYS[1])
  if fingerprint then
    local fields = {'fp', fingerprint}
    for i = 0, legal_count - 1 do
      fields[#fields + 1] = ARGV[legal_at + 2 + i * 2]
      fields[#fields + 1] = ARGV[legal_at + 3 + i * 2]
    end
    redis.call('HSET', KEYS[8], unpack(fields))
    redis.call('EXPIRE', KEYS[8], """
    + str(legal_fingerprint.TTL_SECONDS)
    + """)
  end
end
-- ---- end legal-moves answers ----
"""
    + finish_block(9, "ARGV[3]", "ARGV[11]")
    + """
return {'ok', tostring(version)}
"""
)

# KEYS: meta, attention queue, outbox shard, then the game's end keys (finish_block).  ARGV: new
# status, game id, then the outbox events (services.outbox.stream.lua_args).  Waiting or active
# games only.
SET_STATUS = (
    """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing', ''} end
if status ~= 'active' and status ~= 'waiting' then return {'not_active', status} end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
"""
    + outbox_stream.lua_block("KEYS[3]", "3")
    + finish_block(4, "ARGV[1]", "ARGV[2]")
    + """
return {'ok', status}
"""
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
