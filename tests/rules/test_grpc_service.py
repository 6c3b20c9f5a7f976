"""The gRPC side: reflection, health, rich error details, resumable event streams, replays."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import httpx
import orjson
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import protojson
from services.common.errors import error_detail_from_metadata
from services.common.registry import engine_for
from services.common.rng import Seed
from services.common.runner import Match, Snapshot
from tests.support.seeds import seed_hex
from tests.support.stack import Services

GAME = "darjeeling"


def _stub(stack: dict[str, Any], game: str = GAME) -> tuple[grpc.Channel, rules_pb2_grpc.RulesServiceStub]:
    channel = grpc.insecure_channel(stack["services"][game].address)
    return channel, rules_pb2_grpc.RulesServiceStub(channel)


def _new_game(stub: rules_pb2_grpc.RulesServiceStub, players: list[tuple[str, str]], seed: int) -> Any:
    return stub.CreateGame(
        rules_pb2.CreateGameRequest(
            players=[rules_pb2.PlayerSpec(name=n, bot=b) for n, b in players], seed_hex=seed_hex(seed)
        )
    )


def _wait_over(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, seconds: float = 180) -> rules_pb2.Game:
    """Poll GetGame until the conductor has played the game to its end (bounded)."""
    deadline = time.monotonic() + seconds
    while True:
        game = stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
        if game.status in ("finished", "aborted"):
            return game
        assert time.monotonic() < deadline, f"{game_id} not over after {seconds}s"
        time.sleep(0.02)


async def _wait_over_async(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, seconds: float = 180) -> Any:
    """``_wait_over`` on an aio stub."""
    deadline = time.monotonic() + seconds
    while True:
        game = await stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
        if game.status in ("finished", "aborted"):
            return game
        assert time.monotonic() < deadline, f"{game_id} not over after {seconds}s"
        await asyncio.sleep(0.02)


def _conductor_sample(stack: dict[str, Any], name: str, **labels: str) -> float:
    """One sample of the conductor process's Prometheus metrics."""
    text = httpx.get(f"http://127.0.0.1:{stack['conductor'].metrics_port}/metrics", timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def test_every_service_reports_serving_and_offers_reflection(stack: dict[str, Any]) -> None:
    for game, service in stack["services"].items():
        with grpc.insecure_channel(service.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for name in ("", "chaiwala.v1.RulesService"):
                status = health.Check(health_pb2.HealthCheckRequest(service=name)).status
                assert status == health_pb2.HealthCheckResponse.SERVING, game
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            answers = list(
                reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
            )
            names = {s.name for s in answers[0].list_services_response.service}
            assert names == {
                "chaiwala.v1.RulesService",
                "chaiwala.v1.TableService",
                "chaiwala.v1.RenderedRules",
                "chaiwala.identity.v1.IdentityService",
                "grpc.health.v1.Health",
                "grpc.reflection.v1.ServerReflection",
                "grpc.reflection.v1alpha.ServerReflection",
            }
            lookup = reflection_pb2.ServerReflectionRequest(file_containing_symbol=f"chaiwala.{game}.v1.State")
            found = list(reflection.ServerReflectionInfo(iter([lookup])))
            assert found[0].file_descriptor_response.file_descriptor_proto


def test_reflection_v1_answers_as_current_grpcurl_asks(stack: dict[str, Any]) -> None:
    """grpc.reflection.v1 (same messages as v1alpha on the wire): services, then a game's State, then itself."""
    with grpc.insecure_channel(stack["services"][GAME].address) as channel:
        info = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="chaiwala.v1.RulesService"),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.reflection.v1.ServerReflection"),
        ]
        listed, rules, itself = list(info(iter(requests)))
    assert "chaiwala.v1.RulesService" in {s.name for s in listed.list_services_response.service}
    raw_files = rules.file_descriptor_response.file_descriptor_proto
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in raw_files]
    assert "chaiwala/v1/rules.proto" in {f.name for f in files}
    own = descriptor_pb2.FileDescriptorProto.FromString(itself.file_descriptor_response.file_descriptor_proto[0])
    assert own.package == "grpc.reflection.v1"
    assert own.service[0].method[0].input_type == ".grpc.reflection.v1.ServerReflectionRequest"


def test_refusals_carry_status_and_stable_code(stack: dict[str, Any]) -> None:
    channel, stub = _stub(stack)
    with channel:
        with pytest.raises(grpc.RpcError) as missing:
            stub.GetGame(rules_pb2.GetGameRequest(game_id="darjeeling-ffffffffffffffffffffffff"))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        detail = error_detail_from_metadata(missing.value.trailing_metadata())
        assert detail is not None and detail.code == "game_not_found"

        created = _new_game(stub, [("a", ""), ("b", "")], seed=9)
        with pytest.raises(grpc.RpcError) as anonymous:
            stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=created.game_id))
        assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED

        # Darjeeling draws its start player from the seed: act as the seat whose turn it is.
        first = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id)).to_act[0]
        token = created.seats[first].token
        metadata = (("authorization", f"Bearer {token}"),)
        legal = stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=created.game_id), metadata=metadata)
        stale = rules_pb2.SubmitMovesRequest(game_id=created.game_id, moves=[legal.moves[0]], expected_version=5)
        with pytest.raises(grpc.RpcError) as conflict:
            stub.SubmitMoves(stale, metadata=metadata)
        assert conflict.value.code() == grpc.StatusCode.ABORTED
        conflict_detail = error_detail_from_metadata(conflict.value.trailing_metadata())
        assert conflict_detail is not None and conflict_detail.current_version == 0

        wrong_type = rules_pb2.SubmitMovesRequest(game_id=created.game_id, moves=[protojson.pack(GAME, "State", {})])
        with pytest.raises(grpc.RpcError) as malformed:
            stub.SubmitMoves(wrong_type, metadata=metadata)
        assert malformed.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_watch_events_resumes_from_a_version(stack: dict[str, Any]) -> None:
    channel, stub = _stub(stack)
    with channel:
        created = _new_game(stub, [("r1", "random"), ("r2", "random")], seed=4)
        game = _wait_over(stub, created.game_id)
        assert game.status == "finished"
        everything = list(stub.WatchEvents(rules_pb2.WatchEventsRequest(game_id=created.game_id, after=0)))
        assert everything and everything[-1].version == game.version
        middle = everything[len(everything) // 2]
        resumed = list(stub.WatchEvents(rules_pb2.WatchEventsRequest(game_id=created.game_id, after=middle.version)))
        assert [(e.version, e.index) for e in resumed] == [
            (e.version, e.index) for e in everything if e.version > middle.version
        ]


def test_replay_from_the_stream_reproduces_the_stored_snapshot(stack: dict[str, Any], services: Services) -> None:
    channel, stub = _stub(stack)
    with channel:
        created = _new_game(stub, [("h", "heuristic"), ("r", "random"), ("h2", "heuristic")], seed=123)
        _wait_over(stub, created.game_id)
        replay = stub.GetReplay(rules_pb2.GetReplayRequest(game_id=created.game_id))
    assert replay.status == "finished" and replay.moves
    engine = engine_for(GAME)
    options = protojson.unpack(GAME, "Options", replay.options)
    match = Match.start(engine, len(replay.players), Seed(int(replay.seed_hex, 16), replay.generator), options)
    for move in replay.moves:
        match.play(move.seat, protojson.unpack(GAME, "Move", move.move))
    store = stack["services"][GAME].store
    _, stored = services.loops.run(store.load(created.game_id))
    assert match.snapshot.to_json() == Snapshot.from_json(stored).to_json()
    assert orjson.loads(stored)["state"] == match.state


def test_unfinished_replays_and_creation_need_an_api_key(redis_url: str) -> None:
    keyed = Services(redis_url, api_keys=frozenset({"operator-key"}))
    service = keyed.start(GAME)
    try:
        with grpc.insecure_channel(service.address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            with pytest.raises(grpc.RpcError) as anonymous:
                _new_game(stub, [("a", ""), ("b", "")], seed=1)
            assert anonymous.value.code() == grpc.StatusCode.UNAUTHENTICATED
            operator = (("authorization", "Bearer operator-key"),)
            created = stub.CreateGame(
                rules_pb2.CreateGameRequest(players=[rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]),
                metadata=operator,
            )
            seat_token = (("authorization", f"Bearer {created.seats[0].token}"),)
            with pytest.raises(grpc.RpcError) as as_seat:
                stub.GetReplay(rules_pb2.GetReplayRequest(game_id=created.game_id), metadata=seat_token)
            assert as_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert stub.GetReplay(rules_pb2.GetReplayRequest(game_id=created.game_id), metadata=operator).seed >= 0
            with pytest.raises(grpc.RpcError) as abort_as_seat:
                stub.AbortGame(rules_pb2.AbortGameRequest(game_id=created.game_id), metadata=seat_token)
            assert abort_as_seat.value.code() == grpc.StatusCode.PERMISSION_DENIED
            aborted = stub.AbortGame(rules_pb2.AbortGameRequest(game_id=created.game_id), metadata=operator)
            assert aborted.status == "aborted"
            legal = stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=created.game_id), metadata=seat_token)
            assert list(legal.moves) == []
    finally:
        keyed.stop(service)
        keyed.close()


def test_concurrent_bot_games_do_not_interfere(stack: dict[str, Any]) -> None:
    async def run() -> list[str]:
        async with grpc.aio.insecure_channel(stack["services"][GAME].address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            requests = [
                rules_pb2.CreateGameRequest(
                    players=[
                        rules_pb2.PlayerSpec(name="x", bot="random"),
                        rules_pb2.PlayerSpec(name="y", bot="random"),
                    ],
                    seed_hex=seed_hex(seed),
                )
                for seed in (1, 1, 2)
            ]
            created = await asyncio.gather(*(stub.CreateGame(r) for r in requests))
            games = await asyncio.gather(*(_wait_over_async(stub, c.game_id) for c in created))
            return [
                protojson.unpack(GAME, "State", g.state) == protojson.unpack(GAME, "State", games[0].state)
                for g in games
            ]  # type: ignore[misc]

    same = asyncio.run(run())
    assert same[0] and same[1]  # same seed, same bots: the same game


def test_service_metrics_count_games_moves_and_refusals(stack: dict[str, Any]) -> None:
    from prometheus_client import REGISTRY

    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before_created = sample("chaiwala_games_created_total", game_type=GAME)
    before_finished = _conductor_sample(stack, "chaiwala_games_finished_total", game_type=GAME)
    before_rejected = sample("chaiwala_moves_rejected_total", game_type=GAME, code="not_your_turn")
    channel, stub = _stub(stack)
    with channel:
        bots = _new_game(stub, [("r1", "random"), ("r2", "random")], seed=31)
        _wait_over(stub, bots.game_id)
        created = _new_game(stub, [("a", ""), ("b", "")], seed=32)
        first = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id)).to_act[0]
        legal = stub.ListLegalMoves(
            rules_pb2.ListLegalMovesRequest(game_id=created.game_id),
            metadata=(("authorization", f"Bearer {created.seats[first].token}"),),
        )
        with pytest.raises(grpc.RpcError):
            stub.SubmitMoves(
                rules_pb2.SubmitMovesRequest(
                    game_id=created.game_id, moves=[legal.moves[0]], expected_version=legal.version
                ),
                metadata=(("authorization", f"Bearer {created.seats[1 - first].token}"),),
            )
    assert sample("chaiwala_games_created_total", game_type=GAME) == before_created + 2
    assert sample("chaiwala_moves_rejected_total", game_type=GAME, code="not_your_turn") == before_rejected + 1
    # Bots play in the conductor process, which counts their moves, and every game's end from the
    # outbox (a poll later).
    deadline = time.monotonic() + 30
    while _conductor_sample(stack, "chaiwala_games_finished_total", game_type=GAME) < before_finished + 1:
        assert time.monotonic() < deadline, "the conductor did not count the finished game"
        time.sleep(0.1)
    assert _conductor_sample(stack, "chaiwala_bot_moves_total", game_type=GAME, bot="random") > 0
    assert _conductor_sample(stack, "chaiwala_game_length_moves_count", game_type=GAME) >= 1
    assert _conductor_sample(stack, "chaiwala_final_score_count", game_type=GAME) >= 2
    assert _conductor_sample(stack, "chaiwala_conductor_bot_move_seconds_count", game_type=GAME) > 0
    denied = sample("chaiwala_rpc_requests_total", game_type=GAME, method="SubmitMoves", code="PERMISSION_DENIED")
    assert denied >= 1
