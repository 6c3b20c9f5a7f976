"""The durable outbox (services.outbox) through the real stack: Redis, rules services, gateway, conductor.

Every status change writes its domain event in the same atomic step as the commit: a game's
end exists in the outbox exactly when the commit that ended it does.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import orjson
import pytest
from redis import asyncio as aioredis
from redis.crc import key_slot

from services.common.attention import new_game_id
from services.common.store import VersionConflict
from services.filing.keys import game_keys
from services.games.records import Commit, Step
from services.games.store import GameStore
from services.outbox import ack, emit, outbox_key_for, outbox_keys, read_outbox
from services.outbox import events as outbox_events
from services.outbox.reader import OutboxReader
from tests.support.client import assert_problem, auth, wait_for_game, wait_over
from tests.support.seeds import seed_hex
from tests.support.stack import Services

GAME = "darjeeling"


def _all_events(services: Services) -> list[dict[str, Any]]:
    """Every entry of every outbox shard, parsed."""

    async def read() -> list[dict[str, Any]]:
        redis = aioredis.Redis.from_url(services.redis_url)
        try:
            out = []
            for key in outbox_keys():
                for _entry_id, fields in await redis.xrange(key):
                    item = {k.decode(): v.decode() for k, v in fields.items()}
                    out.append({**item, "data": orjson.loads(item["data"]), "key": key})
            return out
        finally:
            await redis.aclose()

    return services.loops.run(read())


def _events_of(services: Services, game_id: str) -> list[dict[str, Any]]:
    """A game's events (its turns' facts, turn.*, are tests/notify's)."""
    return [e for e in _all_events(services) if e["data"].get("game_id") == game_id
            and not e["type"].startswith("turn.")]  # fmt: skip


def _create(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/v1/games", json={"game_type": GAME, **body})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


def test_a_bot_game_announces_its_start_and_its_result_once(client: httpx.Client, services: Services) -> None:
    players = [{"name": "Asha", "bot": "random"}, {"name": "Bilal", "bot": "random"}, {"name": "Chen", "bot": "random"}]
    game_id = _create(client, {"players": players, "seed_hex": seed_hex(11)})["game_id"]
    final = wait_over(client, game_id)
    events = _events_of(services, game_id)
    assert [e["type"] for e in events] == ["game.started", "game.finished"]
    started, finished = (e["data"] for e in events)
    seats = [{"seat": i, "name": p["name"], "bot": "random"} for i, p in enumerate(players)]
    assert started == {"game_id": game_id, "game_type": GAME, "version": 0, "players": seats}
    assert finished["result"] == final["result"] and finished["version"] == final["version"]
    assert finished["players"] == seats and finished["resigned"] == []
    # Each game's events live in the outbox shard of the game's own slot (one Redis Cluster slot).
    assert {e["key"] for e in events} == {outbox_key_for(game_id)}
    assert key_slot(outbox_key_for(game_id).encode()) == key_slot(game_keys(game_id)[0].encode())
    assert len({e["id"] for e in events}) == 2 and all(e["id"].startswith("evt_") for e in events)


def test_the_lobby_start_abort_and_resign_paths_write_their_events(client: httpx.Client, services: Services) -> None:
    waiting = _create(client, {"players": [{"name": "Asha"}, {"open": True}]})
    game_id = waiting["game_id"]
    assert _events_of(services, game_id) == []  # waiting is no event
    joined = client.post(f"/v1/games/{game_id}/join", json={"name": "Bilal"})
    assert joined.status_code == 200 and joined.json()["status"] == "active"
    (started,) = _events_of(services, game_id)
    assert started["type"] == "game.started"
    assert [p["name"] for p in started["data"]["players"]] == ["Asha", "Bilal"]
    # A 2-seat resignation ends the game: the finish carries the resigned seat.
    resigned = client.post(f"/v1/games/{game_id}/resign", headers=auth(waiting["seats"][0]["token"]))
    assert resigned.status_code == 200, resigned.text
    events = _events_of(services, game_id)
    assert [e["type"] for e in events] == ["game.started", "game.finished"]
    assert events[1]["data"]["resigned"] == [0] and events[1]["data"]["result"]["winners"] == [1]

    other = _create(client, {"players": [{"name": "Asha"}, {"name": "Bilal"}]})["game_id"]
    aborted = client.post(f"/v1/games/{other}/abort", json={"reason": "test"})
    assert aborted.status_code == 200, aborted.text
    assert_problem(client.post(f"/v1/games/{other}/abort", json={}), 409)
    assert [e["type"] for e in _events_of(services, other)] == ["game.started", "game.aborted"]


def test_a_clock_timeout_writes_seat_timed_out_then_the_abort(client: httpx.Client, services: Services) -> None:
    body = {"players": [{"name": "Asha"}, {"name": "Bilal"}], "clock": {"per_turn_s": 1}, "on_timeout": "abort"}
    game_id = _create(client, body)["game_id"]
    wait_for_game(client, game_id, lambda g: g["status"] == "aborted")
    events = _events_of(services, game_id)
    assert [e["type"] for e in events] == ["game.started", "seat.timed_out", "game.aborted"]
    timed_out = events[1]["data"]
    assert timed_out["policy"] == "abort" and timed_out["seat"] in (0, 1) and timed_out["version"] == 1


def test_a_commit_writes_its_event_exactly_when_it_commits(client: httpx.Client, services: Services) -> None:
    """The store's commit script: a refused commit (stale version) writes no event, an accepted one does."""
    created = _create(client, {"players": [{"name": "Asha"}, {"name": "Bilal"}]})
    game_id = created["game_id"]

    async def commit_twice() -> None:
        store = GameStore.from_url(services.redis_url)
        try:
            meta, snapshot = await store.load(game_id)
            entry = Commit(seat=0, bot="", move=None, events=[], kind="timeout")
            timeout = outbox_events.for_commit(meta, "active", None, [entry], meta.lifecycle, 1)
            with pytest.raises(VersionConflict):  # stale version: nothing is written, the event neither
                await store.commit(Step(game_id, meta.version + 5, snapshot, "active", None, [entry], outbox=timeout))
            written = [e["type"] for e in _raw_events(await _outbox(store, game_id), game_id)]
            assert [kind for kind in written if not kind.startswith("turn.")] == ["game.started"]
            step = Step(game_id, meta.version, snapshot, "active", None, [entry], outbox=timeout,
                        previous_head=meta.log_head)  # fmt: skip
            await store.commit(step)
        finally:
            await store.close()

    services.loops.run(commit_twice())
    assert [e["type"] for e in _events_of(services, game_id)] == ["game.started", "seat.timed_out"]


async def _outbox(store: GameStore, game_id: str) -> list[Any]:
    raw: list[Any] = await store.redis.xrange(outbox_key_for(game_id))
    return raw


def _raw_events(raw: list[Any], game_id: str) -> list[dict[str, Any]]:
    items = [{k.decode(): v.decode() for k, v in fields.items()} for _id, fields in raw]
    return [i for i in items if orjson.loads(i["data"]).get("game_id") == game_id]


def test_every_ended_game_in_redis_has_exactly_its_end_event(client: httpx.Client, services: Services) -> None:
    """The invariant behind "a crash between commit and enqueue cannot lose an event": over every
    game this session's Redis holds (this module's and any other test's), each finished or aborted
    game has exactly one end event, of its final version and result."""
    for seed in (1, 2, 3):
        bots = [{"name": f"bot{i}", "bot": "random"} for i in range(3)]
        wait_over(client, _create(client, {"players": bots, "seed_hex": seed_hex(seed)})["game_id"])
    ends: dict[str, list[dict[str, Any]]] = {}
    for event in _all_events(services):
        if event["type"] in ("game.finished", "game.aborted"):
            ends.setdefault(event["data"]["game_id"], []).append(event)

    async def ended_games() -> dict[str, dict[str, str]]:
        store = GameStore.from_url(services.redis_url)
        try:
            found = {}
            async for key in store.redis.scan_iter(match="game:{*}:meta", count=1000):
                meta = await store.redis.hgetall(key)
                status = meta.get(b"status", b"").decode()
                if status in ("finished", "aborted"):
                    found[key.decode()[6:-6]] = {"status": status, "version": meta[b"version"].decode()}
            return found
        finally:
            await store.close()

    games = services.loops.run(ended_games())
    assert len(games) >= 3
    for game_id, meta in games.items():
        assert len(ends.get(game_id, [])) == 1, (game_id, meta, ends.get(game_id))
        (end,) = ends[game_id]
        assert end["type"] == f"game.{meta['status']}" and end["data"]["version"] == int(meta["version"])


def test_consumer_groups_ack_recover_and_claim(services: Services) -> None:
    """read_outbox over every shard: new entries once, unacknowledged ones to their consumer on
    recovery and to another consumer once stale; acknowledged ones never again."""

    async def scenario() -> None:
        redis = aioredis.Redis.from_url(services.redis_url)
        try:
            group = f"test-{new_game_id('g')}"
            # The group starts at the retained history: take it all (and acknowledge it) first.
            await ack(redis, group, await read_outbox(redis, group, "a", count=10_000))
            keys = [new_game_id(GAME) for _ in range(3)]
            ids = sorted([await emit(redis, "test.happened", {"n": n}, key) for n, key in enumerate(keys)])

            def ours(events: list[Any]) -> list[str]:
                return sorted(e.id for e in events if e.id in ids)  # bot games of other tests may add events

            first = await read_outbox(redis, group, "a")
            assert ours(first) == ids and {e.shard for e in first if e.id in ids} == {
                outbox_keys().index(outbox_key_for(key)) for key in keys
            }
            assert ours(await read_outbox(redis, group, "a")) == []  # delivered, unacknowledged: not again
            assert ours(await read_outbox(redis, group, "a", recover=True)) == ids  # "a" restarted
            claimed = await read_outbox(redis, group, "b", claim_idle_ms=0)  # "a" died: "b" takes over
            assert ours(claimed) == ids
            await ack(redis, group, claimed)
            assert ours(await read_outbox(redis, group, "c", claim_idle_ms=0, recover=True)) == []
        finally:
            await redis.aclose()

    services.loops.run(scenario())


def test_a_reader_hands_over_only_its_types_and_acknowledges_the_rest_with_them(services: Services) -> None:
    """OutboxReader: the types it was not asked for are never handed over but acknowledged with the
    batch; entries another consumer left unacknowledged are taken over by its first (full) read."""

    async def scenario() -> None:
        redis = aioredis.Redis.from_url(services.redis_url)
        stop = asyncio.Event()
        try:
            group = f"test-{new_game_id('g')}"
            while history := await read_outbox(redis, group, "a", count=10_000):  # start after the history
                await ack(redis, group, history)
            keys = [new_game_id(GAME) for _ in range(4)]
            wanted = sorted([await emit(redis, "test.wanted", {"n": n}, key) for n, key in enumerate(keys[:2])])
            others = sorted([await emit(redis, "test.other", {"n": n}, key) for n, key in enumerate(keys[2:])])
            ours = set(wanted + others)
            left = await read_outbox(redis, group, "a")  # "a" reads them all, then dies unacknowledged
            assert ours <= {e.id for e in left}

            reader = OutboxReader(redis, group, "b", types={"test.wanted"}, claim_idle_ms=0)
            batch = await reader.read(stop)
            assert sorted(e.id for e in batch if e.id in ours) == wanted and {e.type for e in batch} == {"test.wanted"}
            await reader.ack(batch)
            # Nothing of ours is pending any more, the skipped types included: no consumer gets them again.
            again = await read_outbox(redis, group, "c", claim_idle_ms=0, recover=True)
            assert not ours & {e.id for e in again}
        finally:
            await redis.aclose()

    services.loops.run(scenario())


def test_emit_inside_a_transaction_commits_with_it(services: Services) -> None:
    async def scenario() -> None:
        redis = aioredis.Redis.from_url(services.redis_url)
        try:
            key = new_game_id("tournament")
            async with redis.pipeline(transaction=True) as pipe:
                pipe.set(f"test:{{{key}}}:fact", "1")
                kept = await emit(pipe, "tournament.test", {"key": key}, key, event_id=f"evt_{key}")
                await pipe.execute()
            async with redis.pipeline(transaction=True) as pipe:
                dropped = await emit(pipe, "tournament.test", {"key": key}, key)
                await pipe.reset()  # the transaction never runs: neither does its event
            entries = await redis.xrange(outbox_key_for(key))
            ids = [fields[b"id"].decode() for _id, fields in entries]
            assert kept == f"evt_{key}" and kept in ids and dropped not in ids
        finally:
            await redis.aclose()

    services.loops.run(scenario())
