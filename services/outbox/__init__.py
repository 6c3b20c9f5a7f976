"""The platform's durable outbox: a stream of domain events in Redis, written with their cause.

Every commit that changes what an integrator cares about writes its domain event in the
same atomic step (the commit script of :mod:`services.games.store`, the lobby's start
script, the abort script, the creation transaction), so a crash between "commit" and
"tell the world" cannot lose an event: the event exists whenever the commit does.

* **Keys.**  ``SHARD_COUNT`` streams ``chaiwala:outbox:{<shard tag>}``; each shares the
  hash tag — and so the Redis Cluster slot — of one attention-queue shard
  (:mod:`services.common.attention`), so a game's commit touches its own keys, its queue
  shard and its outbox shard, all in one slot.  :func:`outbox_key_for` maps any key
  (a game id, or an id drawn with :func:`services.common.attention.new_game_id`) to
  the shard of the same slot.
* **Entries.**  Fields ``id`` (a stable event id, the consumers' dedup key), ``type``
  (``game.started``, ``game.finished``, ``game.aborted``, ``seat.timed_out``, the turn facts of
  :mod:`services.outbox.turns`, the seating facts of :mod:`services.outbox.seating`, and what other
  domains emit with :func:`emit`), ``ts`` (Unix ms) and ``data`` (JSON).
* **Consumers.**  Redis consumer groups, one per consuming domain (the webhook dispatcher,
  ratings): :func:`read_outbox` reads new entries of every shard, recovers the caller's
  own unacknowledged ones after a restart and claims entries another consumer left pending
  for too long; :func:`ack` acknowledges.  Delivery is at least once: consumers dedupe on
  the event ``id``.  A process that follows the outbox reads through
  :class:`services.outbox.reader.OutboxReader` (one command per batch, the claim now and then,
  the types it does not handle acknowledged unread).
* **Trim policy.**  Each ``XADD`` trims its shard approximately to ``MAXLEN``
  (:data:`OUTBOX_MAXLEN` = 100 000 entries per shard, 1.6 million in all: days of events at
  the platform's rate).  The bound is deliberately generous rather than tied to
  consumer-group progress, so a consumer group created later (a new domain) still finds the
  recent history, and a consumer down for hours loses nothing; only a consumer more than
  100 000 events behind on one shard would miss the oldest ones
  (``chaiwala_outbox_lag_events`` shows how far behind each group is).
"""

from services.outbox.stream import (
    OUTBOX_MAXLEN,
    OutboxEvent,
    ack,
    emit,
    ensure_group,
    group_lag,
    new_event,
    outbox_key,
    outbox_key_for,
    outbox_keys,
    read_outbox,
    shard_for,
)

__all__ = [
    "OUTBOX_MAXLEN",
    "OutboxEvent",
    "ack",
    "emit",
    "ensure_group",
    "group_lag",
    "new_event",
    "outbox_key",
    "outbox_key_for",
    "outbox_keys",
    "read_outbox",
    "shard_for",
]
