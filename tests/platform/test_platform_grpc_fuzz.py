"""gRPC fuzz: random bytes, bit flips and corrupt ``Any`` payloads never end as INTERNAL or UNKNOWN.

Every game's real rules service gets, from a seeded generator (bounded counts):

* ``SubmitMoves`` whose move ``Any`` has the right type URL over random, bit-flipped or
  truncated bytes, or a wrong or garbled type URL;
* ``CreateGame`` whose options ``Any`` is corrupted the same ways;
* whole requests, serialised and then bit-flipped, sent as raw bytes whenever they still
  decode as the request message (a request that does not decode is the transport's business).

A refusal must be a refusal (INVALID_ARGUMENT, FAILED_PRECONDITION, …); INTERNAL or UNKNOWN
would mean a crash in the service.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError, Message

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import protojson

CRASHES = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
ROUNDS = 40  # per corruption kind and game


def _flip(data: bytes, rng: random.Random, flips: int = 3) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(flips):
        position = rng.randrange(len(out) * 8)
        out[position // 8] ^= 1 << (position % 8)
    return bytes(out)


def _corruptions(rng: random.Random, good: bytes) -> list[bytes]:
    """Random bytes, bit flips, truncations and extensions of ``good``."""
    return [
        rng.randbytes(rng.randrange(1, 48)),
        _flip(good, rng, rng.randrange(1, 6)),
        good[: rng.randrange(len(good))] if good else b"\xff",
        good + rng.randbytes(rng.randrange(1, 8)),
    ]


def _call(method: Callable[..., Any], request: Any, token: str = "") -> grpc.StatusCode:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    try:
        method(request, metadata=metadata, timeout=30)
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def _decodes(cls: type[Message], raw: bytes) -> bool:
    try:
        cls.FromString(raw)
    except (DecodeError, RuntimeWarning, ValueError):
        return False
    return True


@pytest.fixture(scope="module")
def channels(stack: dict[str, Any]) -> Any:
    opened = {game: grpc.insecure_channel(svc.address) for game, svc in stack["services"].items()}
    yield opened
    for channel in opened.values():
        channel.close()


def _human_game(stub: rules_pb2_grpc.RulesServiceStub) -> tuple[str, str]:
    players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
    created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed=3), timeout=60)
    game = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id), timeout=30)
    return created.game_id, created.seats[game.to_act[0]].token


def test_corrupt_moves_and_options_are_refused_never_crash(channels: dict[str, grpc.Channel]) -> None:
    rng = random.Random(13)
    outcomes: dict[str, int] = {}
    for game, channel in sorted(channels.items()):
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        game_id, token = _human_game(stub)
        legal = stub.ListLegalMoves(
            rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=(("authorization", f"Bearer {token}"),)
        )
        move_url = f"type.googleapis.com/chaiwala.{game}.v1.Move"
        options = protojson.pack(game, "Options", {})
        for _ in range(ROUNDS):
            good = rng.choice(list(legal.moves)).value
            urls = [move_url, move_url, "type.googleapis.com/" + rng.randbytes(6).hex(), move_url + "x", ""]
            for value in _corruptions(rng, good):
                packed = any_pb2.Any(type_url=rng.choice(urls), value=value)
                request = rules_pb2.SubmitMovesRequest(game_id=game_id, moves=[packed], expected_version=legal.version)
                code = _call(stub.SubmitMoves, request, token)
                outcomes[code.name] = outcomes.get(code.name, 0) + 1
                assert code not in CRASHES, (game, "move", value.hex())
                if code == grpc.StatusCode.OK:  # a corruption that is a legal move: carry on from there
                    game_id, token = _human_game(stub)
                    legal = stub.ListLegalMoves(
                        rules_pb2.ListLegalMovesRequest(game_id=game_id),
                        metadata=(("authorization", f"Bearer {token}"),),
                    )
            for value in _corruptions(rng, options.value):
                packed = any_pb2.Any(type_url=options.type_url, value=value)
                players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
                code = _call(stub.CreateGame, rules_pb2.CreateGameRequest(players=players, options=packed, seed=1))
                outcomes[code.name] = outcomes.get(code.name, 0) + 1
                assert code not in CRASHES, (game, "options", value.hex())
    assert outcomes.get("INVALID_ARGUMENT", 0) > 0, outcomes


def test_bit_flipped_requests_that_still_decode_are_refused_never_crash(channels: dict[str, grpc.Channel]) -> None:
    rng = random.Random(29)
    sent = 0
    for game, channel in sorted(channels.items()):
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        game_id, token = _human_game(stub)
        legal = stub.ListLegalMoves(
            rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=(("authorization", f"Bearer {token}"),)
        )
        originals: list[tuple[str, type[Message], bytes]] = [
            (
                "SubmitMoves",
                rules_pb2.SubmitMovesRequest,
                rules_pb2.SubmitMovesRequest(
                    game_id=game_id, moves=list(legal.moves[:2]), expected_version=legal.version
                ).SerializeToString(),
            ),
            (
                "CreateGame",
                rules_pb2.CreateGameRequest,
                rules_pb2.CreateGameRequest(
                    players=[rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b", bot="random")],
                    options=protojson.pack(game, "Options", {}),
                    seed=5,
                ).SerializeToString(),
            ),
            ("GetGame", rules_pb2.GetGameRequest, rules_pb2.GetGameRequest(game_id=game_id).SerializeToString()),
            (
                "ListEvents",
                rules_pb2.ListEventsRequest,
                rules_pb2.ListEventsRequest(game_id=game_id, after=0).SerializeToString(),
            ),
        ]
        for method, cls, raw in originals:
            call = channel.unary_unary(f"/chaiwala.v1.RulesService/{method}")  # bytes in, bytes out
            for _ in range(ROUNDS):
                flipped = _flip(raw, rng, rng.randrange(1, 4))
                if not _decodes(cls, flipped):
                    continue
                sent += 1
                code = _call(call, flipped, token)
                assert code not in CRASHES, (game, method, flipped.hex())
    assert sent > 100
