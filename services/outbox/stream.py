"""Outbox streams: keys, the producers' append (a script part and :func:`emit`), the consumers' reader.

See :mod:`services.outbox` for the design and the trim policy.
"""

from __future__ import annotations

import inspect
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from redis import exceptions as redis_errors
from redis.crc import key_slot

from services.common.attention import SHARD_COUNT, SHARD_TAGS, shard_of
from services.common.luaparts import Part

OUTBOX_MAXLEN = 100_000
# An entry delivered to a consumer and not acknowledged for this long is taken over by the next
# reader of the group (its consumer died mid-work).
DEFAULT_CLAIM_IDLE_MS = 60_000
DEFAULT_BATCH = 100
# How far group_lag counts undelivered entries of one shard before it stops counting.
LAG_COUNT_LIMIT = 10_000


@dataclass(frozen=True)
class OutboxEvent:
    """One domain event: its stable ``id`` (consumers dedupe on it), type, time and data.

    ``shard`` and ``entry_id`` locate a read event in its stream (for :func:`ack`); they are
    unset on an event still to be written.
    """

    id: str
    type: str
    ts_ms: int
    data: dict[str, Any]
    shard: int = -1
    entry_id: str = ""

    def stream_fields(self) -> dict[str, str | bytes]:
        """The stream entry's fields."""
        return {"id": self.id, "type": self.type, "ts": str(self.ts_ms), "data": orjson.dumps(self.data)}


def new_event(event_type: str, data: dict[str, Any], event_id: str = "", ts_ms: int | None = None) -> OutboxEvent:
    """An event to write: a random id unless the producer derives a stable one."""
    return OutboxEvent(
        id=event_id or f"evt_{secrets.token_hex(12)}",
        type=event_type,
        ts_ms=int(time.time() * 1000) if ts_ms is None else ts_ms,
        data=data,
    )


def outbox_key(shard: int) -> str:
    """The stream of one shard (same hash tag as attention-queue shard ``shard``)."""
    return f"chaiwala:outbox:{{{SHARD_TAGS[shard]}}}"


def outbox_keys() -> list[str]:
    """Every shard's stream, shard 0 first."""
    return [outbox_key(shard) for shard in range(SHARD_COUNT)]


def shard_for(key: str) -> int:
    """The outbox shard of ``key``: the one of the same Redis Cluster slot when there is one.

    Game ids (and any id drawn with :func:`services.common.attention.new_game_id`, or a key
    hash-tagged with a shard tag) share a shard's slot; other keys get a stable shard by
    their slot, which is fine on a single Redis but not inside a cluster transaction.
    """
    shard = shard_of(key)
    slot = key_slot(key.encode())
    if slot == key_slot(SHARD_TAGS[shard].encode()):
        return shard
    return slot % SHARD_COUNT


def outbox_key_for(key: str) -> str:
    """The stream that events caused by ``key``'s commits go to."""
    return outbox_key(shard_for(key))


# The script part that appends a step's events (its arguments: :func:`lua_args`).  Locals first:
# Lua leaves the order in which a call's arguments are evaluated open, and take() has an effect.
PART = Part(
    "outbox",
    ("outbox",),
    """
local outbox_count = tonumber(take() or '0')
local outbox_maxlen = take()
for _ = 1, outbox_count do
  local id = take()
  local kind = take()
  local ts = take()
  local data = take()
  redis.call('XADD', K.outbox, 'MAXLEN', '~', outbox_maxlen, '*', 'id', id, 'type', kind, 'ts', ts, 'data', data)
end
""",
)


def lua_args(events: Sequence[OutboxEvent]) -> list[Any]:
    """The arguments :data:`PART` takes: count, trim bound, then id, type, ts, data per event."""
    args: list[Any] = [len(events), OUTBOX_MAXLEN]
    for event in events:
        fields = event.stream_fields()
        args += [fields["id"], fields["type"], fields["ts"], fields["data"]]
    return args


async def emit(
    target: Any,
    event_type: str,
    data: dict[str, Any],
    shard_key: str,
    event_id: str = "",
    ts_ms: int | None = None,
) -> str:
    """Append one event for producers outside Lua; return its id.

    ``target`` is a client or a pipeline: inside a ``MULTI`` pipeline the event is queued and
    commits (or not) with the rest of the transaction.  ``shard_key`` picks the shard (see
    :func:`shard_for`; use a key of the transaction's slot on Redis Cluster).  Pass a stable
    ``event_id`` when the same fact could be emitted twice, so consumers can deduplicate.
    """
    event = new_event(event_type, data, event_id, ts_ms)
    queued = append(target, event, shard_key)
    if inspect.isawaitable(queued):
        await queued
    return event.id


def append(target: Any, event: OutboxEvent, shard_key: str) -> Any:
    """Queue ``event`` on a pipeline (returns it) or send it with a client (returns the awaitable)."""
    return target.xadd(outbox_key_for(shard_key), event.stream_fields(), maxlen=OUTBOX_MAXLEN, approximate=True)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def parse_entry(shard: int, entry_id: Any, raw: Any) -> OutboxEvent | None:
    """An outbox stream entry of ``shard`` as an event (``None`` for an entry trimmed away while
    pending): every reader of the outbox (this module's reads, :mod:`services.outbox.wait`'s
    blocking read) parses entries here."""
    if not raw:
        return None
    fields = {_text(k): _text(v) for k, v in raw.items()}
    return OutboxEvent(
        id=fields.get("id", ""),
        type=fields.get("type", ""),
        ts_ms=int(fields.get("ts") or 0),
        data=orjson.loads(fields.get("data") or "{}"),
        shard=shard,
        entry_id=_text(entry_id),
    )


_GROUPS_READY: set[tuple[int, str]] = set()


async def ensure_group(redis: Any, group: str, start: str = "0") -> None:
    """Create ``group`` on every shard (from ``start``: "0" = the retained history, "$" = new only)."""
    for key in outbox_keys():
        try:
            await redis.xgroup_create(key, group, id=start, mkstream=True)
        except redis_errors.ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise
    _GROUPS_READY.add((id(redis), group))


async def _read_shard(
    redis: Any, group: str, consumer: str, shard: int, count: int, claim_idle_ms: int | None, recover: bool
) -> list[OutboxEvent]:
    key = outbox_key(shard)
    found: list[tuple[Any, Any]] = []
    if recover:  # this consumer's own entries left unacknowledged by its previous life
        for _stream, items in await redis.xreadgroup(group, consumer, {key: "0"}, count=count) or []:
            found += items
    if claim_idle_ms is not None:
        claimed = await redis.xautoclaim(key, group, consumer, claim_idle_ms, start_id="0-0", count=count)
        found += claimed[1] if claimed and len(claimed) > 1 else []
    for _stream, items in await redis.xreadgroup(group, consumer, {key: ">"}, count=count) or []:
        found += items
    events: list[OutboxEvent] = []
    gone: list[Any] = []
    seen: set[str] = set()
    for entry_id, raw in found:
        event = parse_entry(shard, entry_id, raw)
        if event is None:
            gone.append(entry_id)
        elif event.entry_id not in seen:
            seen.add(event.entry_id)
            events.append(event)
    if gone:  # trimmed while pending: nothing left to process
        await redis.xack(key, group, *gone)
    return events


async def read_outbox(
    redis: Any,
    group: str,
    consumer: str,
    count: int = DEFAULT_BATCH,
    claim_idle_ms: int | None = DEFAULT_CLAIM_IDLE_MS,
    recover: bool = False,
) -> list[OutboxEvent]:
    """The next events for ``consumer`` of ``group``, over every shard, oldest first per shard.

    Each shard contributes up to ``count`` entries: new ones, entries another consumer left
    unacknowledged for ``claim_idle_ms`` (claimed for this one; ``None`` skips that look, which a
    busy poller need not take on every call), and — with ``recover``, which a
    consumer passes on its first read after starting — its own unacknowledged ones.  Never
    blocks (one call per shard, so it works on Redis Cluster); an empty answer means "poll
    again later".  Acknowledge processed events with :func:`ack`.
    """
    if (id(redis), group) not in _GROUPS_READY:
        await ensure_group(redis, group)
    events: list[OutboxEvent] = []
    for shard in range(SHARD_COUNT):
        try:
            events += await _read_shard(redis, group, consumer, shard, count, claim_idle_ms, recover)
        except redis_errors.ResponseError as error:
            if "NOGROUP" not in str(error):
                raise
            await ensure_group(redis, group)  # the stream was deleted (e.g. flushed): recreate
    return events


async def ack(redis: Any, group: str, events: Iterable[OutboxEvent]) -> None:
    """Acknowledge processed events (per shard, so it works on Redis Cluster)."""
    by_shard: dict[int, list[str]] = {}
    for event in events:
        by_shard.setdefault(event.shard, []).append(event.entry_id)
    if len(by_shard) == 1:
        [(shard, entry_ids)] = by_shard.items()
        await redis.xack(outbox_key(shard), group, *entry_ids)
    elif by_shard:  # one round trip for the batch (a cluster pipeline sends each shard's to its node)
        pipe = redis.pipeline(transaction=False)
        for shard, entry_ids in by_shard.items():
            pipe.xack(outbox_key(shard), group, *entry_ids)
        await pipe.execute()


def _ms_of(entry_id: str) -> int:
    return int(entry_id.split("-")[0])


async def _shard_lag(redis: Any, key: str, group: str, now_ms: int) -> tuple[int, int]:
    try:
        groups = await redis.xinfo_groups(key)
    except redis_errors.ResponseError:
        return 0, 0  # no stream yet
    info = next((g for g in groups if _text(g.get("name", "")) == group), None)
    if info is None:
        return 0, 0
    last = _text(info.get("last-delivered-id", "0-0"))
    undelivered = await redis.xrange(key, min=f"({last}", max="+", count=LAG_COUNT_LIMIT)
    pending = int(info.get("pending", 0))
    oldest = [_ms_of(_text(undelivered[0][0]))] if undelivered else []
    if pending:
        summary = await redis.xpending(key, group)
        if summary and summary.get("min"):
            oldest.append(_ms_of(_text(summary["min"])))
    age = max(0, now_ms - min(oldest)) if oldest else 0
    return len(undelivered) + pending, age


async def group_lag(redis: Any, group: str, now_ms: int | None = None) -> tuple[int, int]:
    """How far ``group`` is behind: events not yet processed (undelivered + pending, counting
    at most :data:`LAG_COUNT_LIMIT` undelivered per shard) and the age (ms) of the oldest."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    total, age = 0, 0
    for key in outbox_keys():
        count, oldest = await _shard_lag(redis, key, group, now)
        total += count
        age = max(age, oldest)
    return total, age
