"""No load for a kept position (services.rules.positions): a move on the position a rules service
committed last is committed at once, the commit script guarding it; two services on one Redis
moving the same game, an abort or the conductor behind a service's back, keyed retries.

Real gRPC servers (two rules services of one game over the session's Redis, each with its own
kept positions, as two processes), a real conductor process, the replay verifier at the end.
"""

from __future__ import annotations

import random
import time
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import protojson
from services.common.errors import error_detail_from_metadata
from services.fairness.verify import verify_replay
from tests.support.seeds import seed_hex
from tests.support.stack import RunningService, Services

GAME = "darjeeling"


@pytest.fixture(scope="module")
def pair(services: Services) -> Any:
    """Two rules services of one game over the same Redis, and a stub of each."""
    started = [services.start(GAME), services.start(GAME)]
    channels = [grpc.insecure_channel(service.address) for service in started]
    yield started, [rules_pb2_grpc.RulesServiceStub(channel) for channel in channels]
    for channel in channels:
        channel.close()
    for service in started:
        services.stop(service)


def _kept(outcome: str) -> float:
    value = REGISTRY.get_sample_value("chaiwala_kept_moves_total", {"game_type": GAME, "outcome": outcome})
    return value or 0.0


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _new_game(stub: rules_pb2_grpc.RulesServiceStub, seed: int, bot: str = "") -> tuple[str, list[str]]:
    players = [rules_pb2.PlayerSpec(name="Asha"), rules_pb2.PlayerSpec(name="Bo", bot=bot)]
    created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(seed)))
    return created.game_id, [seat.token for seat in created.seats]


def _listing(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, tokens: list[str]) -> tuple[int, Any]:
    game = stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
    seat = game.to_act[0]
    return seat, stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_auth(tokens[seat]))


def _submit(stub: rules_pb2_grpc.RulesServiceStub, token: str, request: rules_pb2.SubmitMovesRequest) -> Any:
    return stub.SubmitMoves(request, metadata=_auth(token))


def _refusal(stub: Any, token: str, request: rules_pb2.SubmitMovesRequest) -> tuple[Any, str]:
    with pytest.raises(grpc.RpcError) as caught:
        _submit(stub, token, request)
    detail = error_detail_from_metadata(caught.value.trailing_metadata())
    assert detail is not None
    return caught.value.code(), detail.code


def _verified(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, versions: int) -> None:
    """Abort the game and verify its whole replay: every entry legal, chained, no version twice."""
    stub.AbortGame(rules_pb2.AbortGameRequest(game_id=game_id, reason="test over"))
    replay = stub.GetReplay(rules_pb2.GetReplayRequest(game_id=game_id))
    assert [move.version for move in replay.moves] == list(range(1, versions + 1))
    verdict = verify_replay(protojson.to_dict(replay))
    assert verdict.ok, verdict.divergence


def test_a_second_move_on_the_same_service_is_committed_on_its_kept_position(pair: Any) -> None:
    (_, _), (stub, _) = pair
    game_id, tokens = _new_game(stub, 101)
    seat, listed = _listing(stub, game_id, tokens)
    request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]], expected_version=listed.version)
    before = _kept("committed")
    answer = _submit(stub, tokens[seat], request)
    assert answer.version == listed.version + 1
    # The next seat's move, straight from the answer's position: no listing reloaded it first.
    seat = answer.to_act[0]
    rng = random.Random(1)
    listed = stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_auth(tokens[seat]))
    request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[rng.choice(listed.moves)],
                                           expected_version=answer.version)  # fmt: skip
    again = _submit(stub, tokens[seat], request)
    assert again.version == answer.version + 1
    assert _kept("committed") >= before + 2
    _verified(stub, game_id, again.version)


def test_two_services_moving_one_game_alternately_refuse_and_reload_never_commit_stale(pair: Any) -> None:
    (_, _), stubs = pair
    game_id, tokens = _new_game(stubs[0], 102)
    rng = random.Random(2)
    version = 0
    refused = _kept("refused")
    for turn in range(16):
        mover, other = stubs[turn % 2], stubs[(turn + 1) % 2]
        seat, listed = _listing(other, game_id, tokens)  # the other one's view; the mover's kept one is stale
        assert listed.version == version
        # Keyed, not pinned: the stale version is not refused up front, only by the commit's guard
        # (or by the move itself, when it is not legal on the stale position).
        move = rng.choice(listed.moves)
        request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], idempotency_key=f"alt-{turn}")
        answer = _submit(mover, tokens[seat], request)
        assert answer.version == version + 1  # exactly one entry: the stale try wrote nothing
        version = answer.version
        # The same move again through the other service, whose kept position is the one it was
        # legal on: the guard refuses that commit, and the reload answers as the game stands.
        again = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], idempotency_key=f"again-{turn}")
        if seat not in answer.to_act:
            assert _refusal(other, tokens[seat], again)[1] in ("not_your_turn", "illegal_move")
        assert other.GetGame(rules_pb2.GetGameRequest(game_id=game_id)).version == version
    assert _kept("refused") - refused >= 8  # the guard refused the stale positions
    for stub in stubs:
        assert stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id)).version == version
    _verified(stubs[0], game_id, version)


def test_a_game_moved_by_the_other_service_answers_as_without_a_kept_position(pair: Any) -> None:
    (_, _), (first, second) = pair
    game_id, tokens = _new_game(first, 103)
    seat, listed = _listing(first, game_id, tokens)
    move = listed.moves[0]
    _submit(first, tokens[seat], rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[move], expected_version=0))
    # Behind the first service's back: the second plays the next seat's move.
    seat, listed = _listing(second, game_id, tokens)
    played = listed.moves[0]
    _submit(second, tokens[seat], rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[played], expected_version=1))
    # The same move again through the first, pinned to the version it saw: a conflict at the
    # current version, as the second service (which loads) answers it.
    stale = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[played], expected_version=1)
    assert _refusal(first, tokens[seat], stale) == _refusal(second, tokens[seat], stale)
    assert first.GetGame(rules_pb2.GetGameRequest(game_id=game_id)).version == 2
    _verified(first, game_id, 2)


def test_a_move_after_an_abort_behind_the_kept_position_is_refused(pair: Any) -> None:
    (_, _), (first, second) = pair
    game_id, tokens = _new_game(first, 104)
    seat, listed = _listing(first, game_id, tokens)
    answer = _submit(first, tokens[seat], rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]],
                                                                       expected_version=0))  # fmt: skip
    seat = answer.to_act[0]
    listed = first.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_auth(tokens[seat]))
    second.AbortGame(rules_pb2.AbortGameRequest(game_id=game_id, reason="an operator stops it"))
    request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]], expected_version=1)
    code, reason = _refusal(first, tokens[seat], request)
    assert (code, reason) == _refusal(second, tokens[seat], request)
    assert reason == "game_not_active"
    game = first.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
    assert (game.status, game.version) == ("aborted", 1)


def test_keyed_retries_on_a_kept_position_get_their_first_answer(pair: Any) -> None:
    (_, _), (stub, other) = pair
    game_id, tokens = _new_game(stub, 105)
    seat, listed = _listing(stub, game_id, tokens)
    _submit(stub, tokens[seat], rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]],
                                                             expected_version=0))  # fmt: skip
    seat, listed = _listing(stub, game_id, tokens)
    keyed = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]], idempotency_key="k-105")
    first = _submit(stub, tokens[seat], keyed)
    assert _submit(stub, tokens[seat], keyed).SerializeToString() == first.SerializeToString()
    assert _submit(other, tokens[seat], keyed).SerializeToString() == first.SerializeToString()
    reused = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[-1]], idempotency_key="k-105",
                                          expected_version=first.version)  # fmt: skip
    if listed.moves[-1] != listed.moves[0]:
        assert _refusal(stub, tokens[seat], reused)[1] == "idempotency_key_reused"
    assert stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id)).version == first.version


def test_a_bot_moving_behind_the_kept_position_is_met_by_a_reload(pair: Any, conductor: Any) -> None:
    (_, _), (stub, lister) = pair
    game_id, tokens = _new_game(stub, 106, bot="random")
    rng = random.Random(6)
    tried = _kept("checked") + _kept("refused")
    for _ in range(6):
        deadline = time.monotonic() + 60
        while True:  # the conductor plays the bot's seat; wait for the human seat's turn
            game = lister.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
            if game.status != "active" or 0 in game.to_act:
                break
            assert time.monotonic() < deadline, "the conductor did not play the bot"
            time.sleep(0.02)
        if game.status != "active":
            break
        # Listed by the other service: the mover kept the position of its last commit, before the bot's move.
        listed = lister.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_auth(tokens[0]))
        request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[rng.choice(listed.moves)],
                                               expected_version=listed.version)  # fmt: skip
        assert _submit(stub, tokens[0], request).version == listed.version + 1
    # The bot's commits were met by the kept try, which fell back to a load; after one the game
    # loads first until the service finds its position current again (when the human seat moved
    # twice in a row), so not every move pays a try.
    assert 1 <= _kept("checked") + _kept("refused") - tried <= 3
    final = stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id))
    if final.status == "active":
        stub.AbortGame(rules_pb2.AbortGameRequest(game_id=game_id, reason="test over"))
    replay = stub.GetReplay(rules_pb2.GetReplayRequest(game_id=game_id))
    assert [move.version for move in replay.moves] == list(range(1, len(replay.moves) + 1))
    assert verify_replay(protojson.to_dict(replay)).ok


def test_kept_positions_are_bounded_by_games(services: Services) -> None:
    service: RunningService = services.start(GAME)
    try:
        service.servicer.play.positions.capacity = 3
        with grpc.insecure_channel(service.address) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            games = [_new_game(stub, 200 + number) for number in range(5)]
            for game_id, tokens in games:
                seat, listed = _listing(stub, game_id, tokens)
                _submit(stub, tokens[seat], rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[listed.moves[0]],
                                                                         expected_version=listed.version))  # fmt: skip
        positions = service.servicer.play.positions
        assert len(positions) == 3
        assert positions.kept(games[0][0]) is None and positions.kept(games[-1][0]) is not None
    finally:
        services.stop(service)
