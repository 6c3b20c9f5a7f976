"""``SubmitMovesRequest.read_mask``: a gRPC caller names what it reads, and only that is built.

Through a real rules service (a gRPC server on a real Redis): with no mask (absent, empty or
``*``) the answer is the whole one, byte for byte what the seat reads of the same version with
``GetGame`` and ``ListEvents``; a mask leaves out the parts it does not name (never anything
else); an unknown path is refused with ``bad_read_mask`` before anything is played; a keyed
retry gets the answer as first built, and a retry with another mask is another request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2, field_mask_pb2

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common.errors import error_detail_from_metadata
from services.rules import idempotency, readmask
from tests.support.seeds import seed_hex
from tests.support.stack import RunningService, Services

GAME = "darjeeling"


@pytest.fixture(scope="module")
def stub(services: Services) -> Iterator[rules_pb2_grpc.RulesServiceStub]:
    service: RunningService = services.start(GAME)
    try:
        with grpc.insecure_channel(service.address) as channel:
            yield rules_pb2_grpc.RulesServiceStub(channel)
    finally:
        services.stop(service)


class Table:
    """A fresh two-seat game, played by whichever seat is to act."""

    def __init__(self, stub: rules_pb2_grpc.RulesServiceStub, seed: int) -> None:
        self.stub = stub
        players = [rules_pb2.PlayerSpec(name="Asha"), rules_pb2.PlayerSpec(name="Bo")]
        created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(seed)))
        self.game_id, self.tokens = created.game_id, [seat.token for seat in created.seats]

    def seat_to_act(self) -> tuple[int, Any]:
        """The seat to act and its call metadata."""
        seat = self.stub.GetGame(rules_pb2.GetGameRequest(game_id=self.game_id)).to_act[0]
        return seat, (("authorization", f"Bearer {self.tokens[seat]}"),)

    def request(self, paths: list[str] | None = None, key: str = "") -> tuple[rules_pb2.SubmitMovesRequest, Any]:
        """The first legal move of the seat to act, masked by ``paths`` (``None``: no mask sent)."""
        _, metadata = self.seat_to_act()
        legal = self.stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=self.game_id), metadata=metadata)
        request = rules_pb2.SubmitMovesRequest(game_id=self.game_id, moves=[legal.moves[0]], idempotency_key=key)
        if not key:
            request.expected_version = legal.version
        if paths is not None:
            request.read_mask.CopyFrom(field_mask_pb2.FieldMask(paths=paths))
        return request, metadata

    def version(self) -> int:
        return int(self.stub.GetGame(rules_pb2.GetGameRequest(game_id=self.game_id)).version)

    def whole_answer(self, answer: rules_pb2.SubmitMovesResponse, before: int, metadata: Any) -> bytes:
        """The answer a seat gets without a mask, rebuilt from what it reads of the game after the
        move: its state (``GetGame``) and the move's events (``ListEvents``)."""
        game = self.stub.GetGame(rules_pb2.GetGameRequest(game_id=self.game_id), metadata=metadata)
        events = self.stub.ListEvents(rules_pb2.ListEventsRequest(game_id=self.game_id, after=before),
                                      metadata=metadata)  # fmt: skip
        whole = rules_pb2.SubmitMovesResponse(version=game.version, status=game.status, to_act=game.to_act,
                                              events=events.events, state=game.state)  # fmt: skip
        return whole.SerializeToString(deterministic=True)


def _bytes(answer: rules_pb2.SubmitMovesResponse) -> bytes:
    return answer.SerializeToString(deterministic=True)


@pytest.mark.parametrize("paths", [None, [], ["*"], ["version", "events", "state", "status", "to_act"]])
def test_no_mask_or_one_reading_everything_is_the_whole_answer_byte_for_byte(
    stub: rules_pb2_grpc.RulesServiceStub, paths: list[str] | None
) -> None:
    table = Table(stub, seed=11)
    for _ in range(3):
        before = table.version()
        request, metadata = table.request(paths)
        answer = stub.SubmitMoves(request, metadata=metadata)
        assert answer.HasField("state") and answer.events
        assert _bytes(answer) == table.whole_answer(answer, before, metadata)


def test_a_mask_leaves_out_what_it_does_not_name_and_nothing_else(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    table = Table(stub, seed=12)
    for paths in (["events"], ["state"], ["to_act"], ["version", "status", "to_act", "legal_moves"]):
        before = table.version()
        request, metadata = table.request(paths)
        answer = stub.SubmitMoves(request, metadata=metadata)
        whole = rules_pb2.SubmitMovesResponse.FromString(table.whole_answer(answer, before, metadata))
        assert answer.version == whole.version == before + 1 and answer.status == whole.status == "active"
        assert list(answer.to_act) == list(whole.to_act) and not answer.HasField("legal_moves")
        # What the mask names is exactly the whole answer's; what it does not name is absent.
        assert answer.HasField("state") == ("state" in paths)
        assert list(answer.events) == (list(whole.events) if "events" in paths else [])
        if "state" in paths:
            assert answer.state == whole.state
        if "events" in paths:
            assert answer.events  # a move has events: the comparison above compared something


@pytest.mark.parametrize("paths", [["stat"], ["events.text"], ["to_act", "version", "Moves"], [""]])
def test_an_unknown_path_is_refused_and_nothing_is_played(
    stub: rules_pb2_grpc.RulesServiceStub, paths: list[str]
) -> None:
    table = Table(stub, seed=13)
    for key in ("", "masked-key"):
        request, metadata = table.request(paths, key=key)
        with pytest.raises(grpc.RpcError) as refused:
            stub.SubmitMoves(request, metadata=metadata)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        detail = error_detail_from_metadata(refused.value.trailing_metadata())
        assert detail is not None and detail.code == "bad_read_mask", detail
        assert table.version() == 0
    # Nothing was kept either: the same key with a good mask plays the move now.
    request, metadata = table.request(["to_act"], key="masked-key")
    assert stub.SubmitMoves(request, metadata=metadata).version == 1 == table.version()


def test_a_keyed_retry_gets_the_answer_as_first_built_and_another_mask_is_another_request(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    table = Table(stub, seed=14)
    request, metadata = table.request(["to_act"], key="bot-move-1")
    first = stub.SubmitMoves(request, metadata=metadata)
    assert first.version == 1 and not first.HasField("state") and not first.events
    # The same request again, or with the same parts read spelled otherwise: the kept answer.
    assert _bytes(stub.SubmitMoves(request, metadata=metadata)) == _bytes(first)
    respelled = rules_pb2.SubmitMovesRequest()
    respelled.CopyFrom(request)
    respelled.read_mask.paths[:] = ["status", "to_act", "to_act", "version"]
    assert _bytes(stub.SubmitMoves(respelled, metadata=metadata)) == _bytes(first)
    # The kept answer holds no state: a retry asking for it (no mask, or ["state"]) is refused.
    for paths in ([], ["state"]):
        other = rules_pb2.SubmitMovesRequest()
        other.CopyFrom(request)
        other.read_mask.paths[:] = paths
        with pytest.raises(grpc.RpcError) as reused:
            stub.SubmitMoves(other, metadata=metadata)
        assert reused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        detail = error_detail_from_metadata(reused.value.trailing_metadata())
        assert detail is not None and detail.code == "idempotency_key_reused"
    assert table.version() == 1  # played once


def test_a_whole_answer_kept_for_a_key_is_answered_to_a_retry_reading_everything(
    stub: rules_pb2_grpc.RulesServiceStub,
) -> None:
    """An unmasked key fingerprints as before masks, so a retry with ``*`` (or no mask) gets it."""
    table = Table(stub, seed=15)
    request, metadata = table.request(None, key="whole-1")
    first = stub.SubmitMoves(request, metadata=metadata)
    assert first.HasField("state") and first.events
    retry = rules_pb2.SubmitMovesRequest()
    retry.CopyFrom(request)
    retry.read_mask.paths[:] = ["*"]
    assert _bytes(stub.SubmitMoves(retry, metadata=metadata)) == _bytes(first)
    assert table.version() == 1


def test_a_whole_answer_fingerprints_as_before_read_masks_and_a_masked_one_apart() -> None:
    """Answers kept by a rules service before read masks (minutes-lived, during a rolling deploy)
    stay answered: an unmasked submission's fingerprint is the one that service computed (its
    value taken from the checkout before the field, 3ed74a3)."""
    moves = [any_pb2.Any(type_url="type.googleapis.com/chaiwala.darjeeling.v1.Move", value=b"\x0a\x02\x08\x01")]
    before = b"d62b2ac9b53010b2e8d61a554b5f85eee7619b014b516f2540e2b0b5702d3095"
    for paths in ([], ["*"], ["state", "events"], ["events", "to_act", "state"]):
        assert idempotency.fingerprint(moves, 7, readmask.reads(paths).fingerprint()) == before
    masked = {idempotency.fingerprint(moves, 7, readmask.reads(paths).fingerprint())
              for paths in (["to_act"], ["state"], ["events"], ["state", "version"])}  # fmt: skip
    assert before not in masked and len(masked) == 3  # ["state"] and ["state", "version"] read alike
