"""gRPC parity: the director's TournamentService and RatingService answer as REST does, with statuses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from chaiwala.rating.v1 import rating_pb2, rating_pb2_grpc
from chaiwala.tournament.v1 import tournament_pb2, tournament_pb2_grpc
from services.common.errors import error_detail_from_metadata
from tests.support.seeds import seed_hex
from tests.support.stack import DirectorProcess

KEY = "operator-key-for-the-director-test"


@pytest.fixture(scope="module")
def keyed_director(director_stack: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second director that requires an operator key (its rules services are the open test ones)."""
    services = {game: svc.address for game, svc in director_stack["services"].items()}
    redis_url = director_stack["redis_url"]
    process = DirectorProcess(redis_url, services, tmp_path_factory.mktemp("keyed") / "director.log", api_keys=KEY)
    try:
        yield process.address
    finally:
        process.stop()


def _code(error: grpc.RpcError) -> tuple[grpc.StatusCode, str]:
    assert isinstance(error, grpc.Call)
    detail = error_detail_from_metadata(error.trailing_metadata())
    return error.code(), detail.code if detail else ""


def _request() -> tournament_pb2.CreateTournamentRequest:
    entrants = [tournament_pb2.EntrantSpec(external_id=f"bot:g{i}", name=f"G{i}", bot="heuristic") for i in range(3)]
    return tournament_pb2.CreateTournamentRequest(game_type="darjeeling", format="swiss", rounds=1, table_size=3,
                                                  entrants=entrants, seed_hex=seed_hex(5))  # fmt: skip


def test_create_needs_an_operator_key_and_reads_are_public(keyed_director: str) -> None:
    with grpc.insecure_channel(keyed_director) as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = tournament_pb2_grpc.TournamentServiceStub(channel)
        with pytest.raises(grpc.RpcError) as missing:
            stub.CreateTournament(_request(), timeout=30)
        assert _code(missing.value) == (grpc.StatusCode.UNAUTHENTICATED, "unauthenticated")
        with pytest.raises(grpc.RpcError) as wrong:
            stub.CreateTournament(_request(), metadata=(("authorization", "Bearer nope"),), timeout=30)
        assert _code(wrong.value) == (grpc.StatusCode.PERMISSION_DENIED, "api_key_required")
        created = stub.CreateTournament(_request(), metadata=(("authorization", f"Bearer {KEY}"),), timeout=30)
        assert created.status == "running"
        assert [e.external_id for e in created.entrants] == ["bot:g0", "bot:g1", "bot:g2"]
        running = stub.GetTournament(tournament_pb2.GetTournamentRequest(tournament_id=created.tournament_id))
        if running.status == "running":
            assert not running.HasField("seed")  # never while it runs: it would reveal every draw
        standings = stub.GetStandings(tournament_pb2.GetStandingsRequest(tournament_id=created.tournament_id))
        assert sorted(s.external_id for s in standings.standings) == ["bot:g0", "bot:g1", "bot:g2"]
        with pytest.raises(grpc.RpcError) as unknown:
            stub.GetStandings(tournament_pb2.GetStandingsRequest(tournament_id="tournament-nope"))
        assert _code(unknown.value) == (grpc.StatusCode.NOT_FOUND, "tournament_not_found")
        with pytest.raises(grpc.RpcError) as bad:
            stub.CreateTournament(tournament_pb2.CreateTournamentRequest(game_type="darjeeling", format="x"),
                                  metadata=(("authorization", f"Bearer {KEY}"),))  # fmt: skip
        assert _code(bad.value)[0] == grpc.StatusCode.INVALID_ARGUMENT
        ratings = rating_pb2_grpc.RatingServiceStub(channel)
        with pytest.raises(grpc.RpcError) as nobody:
            ratings.GetPlayer(rating_pb2.GetPlayerRequest(external_id="never-played"))
        assert _code(nobody.value) == (grpc.StatusCode.NOT_FOUND, "player_not_found")
        page = ratings.ListRatings(rating_pb2.ListRatingsRequest(game_type="darjeeling", page_size=5))
        assert len(page.ratings) <= 5
