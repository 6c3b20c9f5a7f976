"""Conductors as real subprocesses over one Redis: shared work, no double moves, crash recovery.

These tests get their own Redis (not the session's, whose conductor would join in) and a
real Darjeeling rules service on an ephemeral port; games are created over gRPC.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
import redis

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import protojson
from services.common.attention import SHARD_COUNT, claims_key
from services.common.embedded_redis import start_redis
from services.common.registry import engine_for
from services.common.rng import Seed
from services.common.runner import Match, Snapshot
from services.common.sealing import is_sealed
from services.filing.keys import game_keys
from services.games.sealed import open_for
from tests.support.seeds import seed_hex
from tests.support.stack import ConductorProcess, RunningService, Services

GAME = "darjeeling"
WAIT_SECONDS = 300


@dataclass
class Rig:
    """A private Redis, one rules service on it, and where conductors write their logs."""

    redis_url: str
    services: Services
    service: RunningService
    log_dir: Path

    def conductor(self, name: str, lease_ms: int = 30_000) -> ConductorProcess:
        """Start one more real conductor on this Redis."""
        return ConductorProcess(self.redis_url, self.log_dir / f"{name}.log", lease_ms=lease_ms)


@pytest.fixture()
def rig(tmp_path: Path) -> Iterator[Rig]:
    server = start_redis(tmp_path / "redis", appendonly=False)
    services = Services(server.url)
    service = services.start(GAME)
    try:
        yield Rig(server.url, services, service, tmp_path)
    finally:
        services.stop(service)
        services.close()
        server.stop()


def _create_bot_games(rig: Rig, count: int, players: int, bot: str) -> list[str]:
    with grpc.insecure_channel(rig.service.address) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        created = [
            stub.CreateGame(
                rules_pb2.CreateGameRequest(
                    players=[rules_pb2.PlayerSpec(name=f"b{i}", bot=bot) for i in range(players)],
                    seed_hex=seed_hex(seed),
                )
            )
            for seed in range(count)
        ]
    assert all(c.version == 0 for c in created), "creation returns before any bot moves"
    return [c.game_id for c in created]


def _statuses(client: redis.Redis, game_ids: list[str]) -> dict[str, tuple[str, int]]:
    out = {}
    for game_id in game_ids:
        status, version = client.hmget(game_keys(game_id)[0], ["status", "version"])
        out[game_id] = (status.decode(), int(version))
    return out


def _wait_all_finished(client: redis.Redis, game_ids: list[str]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while any(status != "finished" for status, _ in _statuses(client, game_ids).values()):
        assert time.monotonic() < deadline, f"not all finished: {_statuses(client, game_ids)}"
        time.sleep(0.1)


def _assert_log_is_whole(rig: Rig, client: redis.Redis, game_id: str) -> None:
    """Versions 0..N each exactly once, and replaying the log gives exactly the stored snapshot."""
    entries = client.xrange(game_keys(game_id)[2])
    versions = [int(entry_id.decode().split("-")[0]) for entry_id, _ in entries]
    _, version = _statuses(client, [game_id])[game_id]
    assert versions == list(range(version + 1)), f"{game_id}: a version skipped or played twice"
    with grpc.insecure_channel(rig.service.address) as channel:
        replay = rules_pb2_grpc.RulesServiceStub(channel).GetReplay(rules_pb2.GetReplayRequest(game_id=game_id))
    engine = engine_for(GAME)
    seed = Seed(int(replay.seed_hex, 16), replay.generator)
    match = Match.start(engine, len(replay.players), seed, protojson.unpack(GAME, "Options", replay.options))
    for move in replay.moves:
        match.play(move.seat, protojson.unpack(GAME, "Move", move.move))
    stored = client.get(game_keys(game_id)[1])
    assert stored is not None and is_sealed(stored)  # the snapshot is sealed in Redis (services.games.store)
    assert match.snapshot.to_json() == Snapshot.from_json(open_for(game_id, "snapshot", stored)).to_json()


def test_two_conductors_play_twenty_bot_games_without_a_double_move(rig: Rig) -> None:
    conductors = [rig.conductor("conductor-a"), rig.conductor("conductor-b")]
    client = redis.Redis.from_url(rig.redis_url)
    try:
        game_ids = _create_bot_games(rig, 20, 2, "random")
        _wait_all_finished(client, game_ids)
        for game_id in game_ids:
            _assert_log_is_whole(rig, client, game_id)
        claims = sum(c.metric("chaiwala_conductor_claims_total") for c in conductors)
        assert claims >= 20
    finally:
        for conductor in conductors:
            conductor.stop()
        client.close()


def test_a_conductor_killed_mid_game_does_not_stop_its_games(rig: Rig) -> None:
    client = redis.Redis.from_url(rig.redis_url)
    first = rig.conductor("conductor-killed", lease_ms=1_500)
    second = None
    try:
        game_ids = _create_bot_games(rig, 6, 4, "heuristic")
        deadline = time.monotonic() + WAIT_SECONDS
        while not any(version > 0 for _, version in _statuses(client, game_ids).values()):
            assert time.monotonic() < deadline, "the first conductor never moved"
            time.sleep(0.02)
        first.kill()
        assert any(status == "active" for status, _ in _statuses(client, game_ids).values()), "killed mid-game"
        orphaned = sum(client.hlen(claims_key(shard)) for shard in range(SHARD_COUNT))
        second = rig.conductor("conductor-survivor", lease_ms=1_500)
        _wait_all_finished(client, game_ids)
        for game_id in game_ids:
            _assert_log_is_whole(rig, client, game_id)
        # Every claim the killed conductor held was taken over once its lease ran out.
        assert second.metric("chaiwala_conductor_claims_reclaimed_total") >= orphaned
    finally:
        if second is not None:
            second.stop()
        client.close()
