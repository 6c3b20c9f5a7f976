"""Retention through the real stack: ended games are compacted (or deleted), idle games aborted.

A private Redis, an in-process Darjeeling rules service, a real uvicorn gateway and a real
conductor subprocess with retention settings of a fraction of a second.  Waits poll; no test
sleeps a fixed time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from services.common.embedded_redis import start_redis
from services.fairness.verify import verify_replay
from services.filing.keys import game_keys
from services.filing.store import ended_key_for
from services.retention import archive
from tests.support.client import assert_problem, auth, create_game, wait_for_game, wait_over
from tests.support.stack import ConductorProcess, Gateway, RunningService, Services

GAME = "darjeeling"
WAIT_SECONDS = 120.0
# Long enough that nothing is compacted before a test has looked at the full log; a test lets
# the time pass by moving the game's end back in the retention index (then the conductor acts).
FULL_LOG_SECONDS = 600


@dataclass
class Rig:
    """A private Redis with one rules service, a gateway and a conductor with tiny retention times."""

    redis: redis.Redis
    services: Services
    service: RunningService
    client: httpx.Client


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        # In-process rules services schedule idle deadlines from this; the conductor gets it too.
        monkeypatch.setenv("CHAIWALA_IDLE_ABORT_SECONDS", "1.5")
        yield from _rig(tmp_path_factory.mktemp("retention"))


def _rig(tmp_path: Path) -> Iterator[Rig]:
    server = start_redis(tmp_path / "redis", appendonly=False)
    services = Services(server.url)
    service = services.start(GAME)
    gateway = Gateway({GAME: service.address})
    conductor = ConductorProcess(server.url, tmp_path / "conductor.log", extra_env={
        "CHAIWALA_IDLE_ABORT_SECONDS": "1.5",
        "CHAIWALA_RETENTION_FULL_LOG_SECONDS": str(FULL_LOG_SECONDS),
        "CHAIWALA_RETENTION_SWEEP_SECONDS": "0.1",
    })
    client = httpx.Client(base_url=gateway.url, timeout=30)
    try:
        yield Rig(redis.Redis.from_url(server.url), services, service, client)
    finally:
        client.close()
        conductor.stop()
        gateway.stop()
        services.stop(service)
        services.close()
        server.stop()


def _bytes_of(rig: Rig, game_id: str) -> int:
    """Redis memory of every key of one game (MEMORY USAGE, all samples)."""
    keys = [*game_keys(game_id), archive.archive_key(game_id)]
    return sum(int(rig.redis.memory_usage(key, samples=0) or 0) for key in keys)


def _wait_archived(rig: Rig, game_id: str) -> None:
    """Let the game's full-log time pass, then wait for the conductor to compact it."""
    assert rig.redis.zscore(ended_key_for(game_id), game_id) is not None  # the end started its retention clock
    rig.redis.zadd(ended_key_for(game_id), {game_id: int(time.time() * 1000) - FULL_LOG_SECONDS * 1000 - 1})
    deadline = time.monotonic() + WAIT_SECONDS
    while rig.redis.hget(game_keys(game_id)[0], "archived") != b"1":
        assert time.monotonic() < deadline, "the conductor did not compact the game"
        time.sleep(0.05)
    # In the same step as the compaction: never archived and still due.
    assert rig.redis.zscore(ended_key_for(game_id), game_id) is None


def _listed(rig: Rig, status: str) -> list[str]:
    response = rig.client.get("/v1/games", params={"game_type": GAME, "status": status})
    assert response.status_code == 200, response.text
    return [game["game_id"] for game in response.json()["games"]]


def test_a_finished_game_is_compacted_and_its_replay_still_verifies(rig: Rig) -> None:
    created = create_game(rig.client, GAME, [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}], seed=3)
    game_id = created["game_id"]
    finished = wait_over(rig.client, game_id, WAIT_SECONDS)
    assert finished["status"] == "finished"
    replay = rig.client.get(f"/v1/games/{game_id}/replay").json()
    events = rig.client.get(f"/v1/games/{game_id}/events").json()
    assert events and rig.redis.exists(game_keys(game_id)[2])
    full = _bytes_of(rig, game_id)

    _wait_archived(rig, game_id)
    compacted = _bytes_of(rig, game_id)
    assert not rig.redis.exists(game_keys(game_id)[2])  # the event stream is gone
    assert compacted < full / 2, (full, compacted)
    assert rig.redis.zscore(ended_key_for(game_id), game_id) is None

    # The replay is served as before, and the offline verifier still accepts it.
    assert rig.client.get(f"/v1/games/{game_id}/replay").json() == replay
    assert verify_replay(replay).ok
    # The game itself still shows its final position and result; the listing still has it.
    again = rig.client.get(f"/v1/games/{game_id}").json()
    assert {k: again[k] for k in ("status", "version", "result", "state")} == {
        k: finished[k] for k in ("status", "version", "result", "state")}
    assert game_id in _listed(rig, "finished")
    # Its event log is gone for good: a clear 410, not an empty list.
    assert_problem(rig.client.get(f"/v1/games/{game_id}/events"), 410, "game_compacted")


def test_an_idle_game_is_aborted_with_an_entry_and_then_compacted(rig: Rig) -> None:
    created = create_game(rig.client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=5)
    game_id = created["game_id"]
    token = created["seats"][0]["token"]
    first = rig.client.get(f"/v1/games/{game_id}").json()["to_act"][0]
    aborted = wait_for_game(rig.client, game_id, lambda g: g["status"] == "aborted", seconds=WAIT_SECONDS)
    assert aborted.get("result") is None and aborted["version"] == 1
    replay = rig.client.get(f"/v1/games/{game_id}/replay").json()
    assert [(move["kind"], move.get("seat", 0)) for move in replay["moves"]] == [("idle", first)]
    events = rig.client.get(f"/v1/games/{game_id}/events", headers=auth(token)).json()
    idle = [e for e in events if e.get("kind") == "idle"]
    assert len(idle) == 1 and "did not move for too long" in idle[0]["text"]
    assert verify_replay(replay).ok
    assert game_id in _listed(rig, "aborted")
    _wait_archived(rig, game_id)
    assert rig.client.get(f"/v1/games/{game_id}/replay").json() == replay


def test_the_delete_mode_removes_every_key_and_the_listing_entry(rig: Rig) -> None:
    created = create_game(rig.client, GAME, [{"name": "Asha"}, {"name": "Bilal"}], seed=9)
    game_id = created["game_id"]
    answer = rig.client.post(f"/v1/games/{game_id}/abort", json={}, headers=auth(created["host_token"]))
    assert answer.status_code == 200, answer.text
    assert game_id in _listed(rig, "aborted")

    async def remove() -> Any:
        return await archive.apply_policy(rig.service.store, game_id, "delete")

    # The conductor may have compacted it already; deletion removes the archive as well.
    outcome = rig.services.loops.run(remove())
    assert outcome.action == "deleted"
    assert not any(rig.redis.exists(key) for key in [*game_keys(game_id), archive.archive_key(game_id)])
    assert game_id not in _listed(rig, "aborted")
    assert rig.redis.zscore(ended_key_for(game_id), game_id) is None  # off the retention index too
    assert rig.client.get(f"/v1/games/{game_id}").status_code == 404
    assert rig.services.loops.run(remove()).action == "missing"  # a second pass finds nothing to do
