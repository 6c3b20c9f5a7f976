"""A game's deliveries to one subscription wait in a lane (services.webhook.store), on a real Redis of
their own (the session's dispatcher would claim deliveries from a shared one): only the head is due;
delivered or dead, it lets the next go; a redelivery leaves the dead letters; forgetting a delivery
never strands its lane.  And the pure parts: how a game ended, and where an event stands in its game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from redis import asyncio as aioredis

from services.common.embedded_redis import start_redis
from services.outbox import events as outbox_events
from services.outbox import new_event
from services.webhook import store as webhook_store
from services.webhook.dispatcher import new_delivery
from services.webhook.store import Delivery, Subscription, WebhookStore

NOW = 1_000_000


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = start_redis(Path(tmp_path_factory.mktemp("lanes-redis")), appendonly=False)
    try:
        yield server.url
    finally:
        server.stop()


def _subscription(webhook_id: str) -> Subscription:
    types = list(outbox_events.GAME_EVENT_TYPES)
    return Subscription(webhook_id, "http://example.com/hook", types, "whsec_x", created_ms=0)


def _game_events(game_id: str) -> list[Delivery]:
    """started (v0), a timeout at v3 and the end at v3: three deliveries of one game, in order."""
    data = {"game_id": game_id, "game_type": "darjeeling", "players": []}
    events = [
        new_event("game.started", {**data, "version": 0}, f"{game_id}-s", NOW),
        new_event("seat.timed_out", {**data, "version": 3, "seat": 0}, f"{game_id}-t", NOW),
        new_event("game.finished", {**data, "version": 3}, f"{game_id}-f", NOW),
    ]
    return [new_delivery(_subscription("wh_1"), event, NOW) for event in events]


async def _due_ids(store: WebhookStore) -> list[str]:
    claimed = await store.claim(NOW + 10_000, 0, 100)  # no lease: due again at the next look
    return sorted(item.delivery_id for item in claimed)


@dataclass
class Lanes:
    store: WebhookStore
    redis: aioredis.Redis


def _run(redis_url: str, check: object) -> None:
    async def go() -> None:
        redis = aioredis.from_url(redis_url)
        await redis.flushall()
        try:
            await check(Lanes(WebhookStore(redis), redis))  # type: ignore[operator]
        finally:
            await redis.aclose()

    asyncio.run(go())


def test_only_the_head_of_a_lane_is_due_and_done_or_dead_lets_the_next_go(redis_url: str) -> None:
    async def check(lanes: Lanes) -> None:
        store = lanes.store
        started, timed_out, finished = _game_events("g1")
        other = _game_events("g2")[0]
        assert [d.event["sequence"] for d in (started, timed_out, finished)] == [0, 6, 7]
        added = await store.enqueue("wh_1", [started, timed_out, finished, other], NOW)
        assert len(added) == 4
        assert await _due_ids(store) == sorted([started.delivery_id, other.delivery_id])
        await store.save(started, None, NOW)  # delivered
        assert await _due_ids(store) == sorted([timed_out.delivery_id, other.delivery_id])
        timed_out.status = "dead"
        await store.save(timed_out, None, NOW, dead=True)  # dead-lettered: the next goes too
        assert await _due_ids(store) == sorted([finished.delivery_id, other.delivery_id])
        assert await store.counts() == (2, 1)
        await store.redeliver(timed_out, NOW)  # off the dead letters, due again (late, by nature)
        assert await store.counts() == (3, 0)
        for item in (finished, other, timed_out):
            await store.save(item, None, NOW)
        assert await store.counts() == (0, 0)
        assert await lanes.redis.keys(f"{webhook_store.PREFIX}lane*") == []  # empty lanes are gone

    _run(redis_url, check)


def test_a_waiting_delivery_redelivered_keeps_its_place(redis_url: str) -> None:
    async def check(lanes: Lanes) -> None:
        store = lanes.store
        started, timed_out, finished = _game_events("g3")
        await store.enqueue("wh_1", [started, timed_out, finished], NOW)
        await store.redeliver(finished, NOW)
        assert await _due_ids(store) == [started.delivery_id]

    _run(redis_url, check)


def test_deleting_a_subscription_or_forgetting_old_deliveries_strands_no_lane(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def check(lanes: Lanes) -> None:
        store = lanes.store
        await store.add_subscription(_subscription("wh_1"))
        first = _game_events("g4")
        await store.enqueue("wh_1", first, NOW)
        assert await store.delete_subscription("wh_1")
        assert await lanes.redis.keys(f"{webhook_store.PREFIX}lane*") == []
        assert await store.counts() == (0, 0)

    _run(redis_url, check)

    async def trimmed(lanes: Lanes) -> None:
        # A log of two: the third delivery forgets the oldest (the lane's head), and the next is due.
        store = lanes.store
        started, timed_out, finished = _game_events("g5")
        for offset, item in enumerate((started, timed_out, finished)):
            await store.enqueue("wh_1", [item], NOW + offset)
        assert await store.delivery(started.delivery_id) is None
        assert await _due_ids(store) == [timed_out.delivery_id]

    monkeypatch.setattr(webhook_store, "LOG_LIMIT", 2)
    _run(redis_url, trimmed)


@dataclass(frozen=True)
class Entry:
    seat: int
    kind: str


def test_the_end_reason_follows_the_resignations_and_the_ending_commit() -> None:
    reason = outbox_events.end_reason
    assert reason(3, {"resigned": [1]}, [Entry(0, "")]) == "normal"  # two still play: the rules ended it
    assert reason(2, {"resigned": []}, [Entry(0, "")]) == "normal"
    assert reason(2, {"resigned": [0]}, [Entry(0, "resign")]) == "resign"
    assert reason(2, {"resigned": [0]}, [Entry(0, "timeout"), Entry(0, "resign")]) == "timeout"
    assert reason(3, {"resigned": [0, 2]}, [Entry(2, "resign")]) == "resign"


def test_a_games_events_are_sequenced_and_other_events_are_not() -> None:
    sequence = outbox_events.sequence_of
    assert sequence("game.started", {"game_id": "g", "version": 0}) == 0
    assert sequence("seat.timed_out", {"game_id": "g", "version": 4}) == 8
    assert sequence("game.finished", {"game_id": "g", "version": 4}) == 9
    assert sequence("game.aborted", {"game_id": "g", "version": 4}) == 9
    assert sequence("tournament.finished", {"tournament_id": "t"}) is None
