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
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError, Message

from chaiwala.v1 import rules_pb2, rules_pb2_grpc
from services.common import protojson
from tests.support.seeds import seed_hex

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


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    """The call metadata that presents ``token``."""
    return (("authorization", f"Bearer {token}"),)


def _call(method: Callable[..., Any], request: Any, token: str = "") -> grpc.StatusCode:
    metadata = _bearer(token) if token else ()
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


def _services(
    channels: dict[str, grpc.Channel],
) -> Iterator[tuple[str, grpc.Channel, rules_pb2_grpc.RulesServiceStub]]:
    """Every game's rules service, in game order: its game, channel and stub."""
    for game, channel in sorted(channels.items()):
        yield game, channel, rules_pb2_grpc.RulesServiceStub(channel)


def _legal_moves(stub: rules_pb2_grpc.RulesServiceStub, game_id: str, token: str) -> Any:
    """The legal moves of ``game_id`` as the seat of ``token`` sees them (a ``LegalMoves``)."""
    return stub.ListLegalMoves(rules_pb2.ListLegalMovesRequest(game_id=game_id), metadata=_bearer(token))


def _human_game(stub: rules_pb2_grpc.RulesServiceStub) -> tuple[str, str]:
    players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
    created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(3)), timeout=60)
    game = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id), timeout=30)
    return created.game_id, created.seats[game.to_act[0]].token


def test_corrupt_moves_and_options_are_refused_never_crash(channels: dict[str, grpc.Channel]) -> None:
    rng = random.Random(13)
    outcomes: dict[str, int] = {}
    for game, _, stub in _services(channels):
        game_id, token = _human_game(stub)
        legal = _legal_moves(stub, game_id, token)
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
                    legal = _legal_moves(stub, game_id, token)
            for value in _corruptions(rng, options.value):
                packed = any_pb2.Any(type_url=options.type_url, value=value)
                players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
                code = _call(
                    stub.CreateGame, rules_pb2.CreateGameRequest(players=players, options=packed, seed_hex=seed_hex(1))
                )
                outcomes[code.name] = outcomes.get(code.name, 0) + 1
                assert code not in CRASHES, (game, "options", value.hex())
    assert outcomes.get("INVALID_ARGUMENT", 0) > 0, outcomes


RULES_SERVICE = rules_pb2.DESCRIPTOR.services_by_name["RulesService"]
FLIPS_PER_RPC = 12


def _waiting_game(stub: rules_pb2_grpc.RulesServiceStub) -> tuple[str, str]:
    """A game with an open seat (for the lobby's RPCs): its id and host token."""
    players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(open=True)]
    created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(4)), timeout=60)
    return created.game_id, created.host_token


def _human_game_one_move_in(stub: rules_pb2_grpc.RulesServiceStub) -> tuple[str, str]:
    """A two-human game after its first move (so a watch from version 0 has an event to send at
    once): its id and the token of a seat to act."""
    players = [rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b")]
    created = stub.CreateGame(rules_pb2.CreateGameRequest(players=players, seed_hex=seed_hex(3)), timeout=60)
    tokens = {seat.seat: seat.token for seat in created.seats}
    game = stub.GetGame(rules_pb2.GetGameRequest(game_id=created.game_id), timeout=30)
    seat_token = tokens[game.to_act[0]]
    legal = _legal_moves(stub, created.game_id, seat_token)
    first = [legal.moves[0]]
    request = rules_pb2.SubmitMovesRequest(game_id=created.game_id, moves=first, expected_version=legal.version)
    after = stub.SubmitMoves(request, metadata=_bearer(seat_token), timeout=30)
    return created.game_id, tokens[after.to_act[0]]


def _requests(game: str, game_id: str, waiting_id: str, legal: Any) -> dict[str, Message]:
    """A well-formed request for every RPC of the rules service, on a real game."""
    return {
        "GetGameType": rules_pb2.GetGameTypeRequest(),
        "CreateGame": rules_pb2.CreateGameRequest(
            players=[rules_pb2.PlayerSpec(name="a"), rules_pb2.PlayerSpec(name="b", bot="random")],
            options=protojson.pack(game, "Options", {}),
            seed_hex=seed_hex(5),
        ),
        "GetGame": rules_pb2.GetGameRequest(game_id=game_id),
        "ListLegalMoves": rules_pb2.ListLegalMovesRequest(game_id=game_id),
        "SubmitMoves": rules_pb2.SubmitMovesRequest(
            game_id=game_id, moves=list(legal.moves[:2]), expected_version=legal.version
        ),
        "ListEvents": rules_pb2.ListEventsRequest(game_id=game_id, after=0),
        "WatchEvents": rules_pb2.WatchEventsRequest(game_id=game_id, after=0, after_index=1),
        "GetReplay": rules_pb2.GetReplayRequest(game_id=game_id),
        "GetRules": rules_pb2.GetRulesRequest(),
        "AbortGame": rules_pb2.AbortGameRequest(game_id=waiting_id, reason="fuzz"),
        "CreateStreamTicket": rules_pb2.CreateStreamTicketRequest(game_id=game_id),
        "JoinGame": rules_pb2.JoinGameRequest(game_id=waiting_id, name="c", seat=1),
        "LeaveGame": rules_pb2.LeaveGameRequest(game_id=waiting_id),
        "KickSeat": rules_pb2.KickSeatRequest(game_id=waiting_id, seat=1),
        "StartGame": rules_pb2.StartGameRequest(game_id=waiting_id),
        "ResignGame": rules_pb2.ResignGameRequest(game_id=game_id),
        "ListGames": rules_pb2.ListGamesRequest(status="active", open_seats=True, visibility="public", page_size=5),
    }


def _call_raw(channel: grpc.Channel, method: Any, raw: bytes, token: str) -> grpc.StatusCode:
    """Send raw request bytes to ``method``; a server stream is read for its first message only."""
    path = f"/{RULES_SERVICE.full_name}/{method.name}"
    metadata = _bearer(token) if token else ()
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path)(raw, metadata=metadata, timeout=1)
            next(iter(stream), None)
            stream.cancel()
        else:
            channel.unary_unary(path)(raw, metadata=metadata, timeout=30)
    except grpc.RpcError as error:
        code: grpc.StatusCode = error.code()
        # A live stream that waited for its next event until the deadline is not a refusal.
        return grpc.StatusCode.OK if code == grpc.StatusCode.DEADLINE_EXCEEDED and method.server_streaming else code
    return grpc.StatusCode.OK


def test_every_rpc_of_the_rules_service_has_a_request_to_fuzz() -> None:
    requests = _requests("darjeeling", "g", "w", rules_pb2.LegalMoves())
    assert set(requests) == {method.name for method in RULES_SERVICE.methods}


def test_bit_flipped_requests_that_still_decode_are_refused_never_crash(channels: dict[str, grpc.Channel]) -> None:
    """Every RPC of every game's service (lobby, resign and stream tickets included), bit-flipped."""
    rng = random.Random(29)
    sent: dict[str, int] = {}
    for game, channel, stub in _services(channels):
        waiting_id, host = _waiting_game(stub)
        game_id, token = _human_game_one_move_in(stub)
        legal = _legal_moves(stub, game_id, token)
        originals = _requests(game, game_id, waiting_id, legal)
        for method in RULES_SERVICE.methods:
            # An empty request gets an unknown field, so that its flips have bytes to work on.
            raw = originals[method.name].SerializeToString() or b"\x08\x01"
            cls = type(originals[method.name])
            # The lobby's calls on the waiting game go with its host token, the others with a seat's.
            credential = host if getattr(originals[method.name], "game_id", "") == waiting_id else token
            for _ in range(FLIPS_PER_RPC):
                flipped = _flip(raw, rng, rng.randrange(1, 4))
                if not _decodes(cls, flipped):
                    continue
                sent[method.name] = sent.get(method.name, 0) + 1
                code = _call_raw(channel, method, flipped, credential)
                assert code not in CRASHES, (game, method.name, flipped.hex())
    assert set(sent) == {method.name for method in RULES_SERVICE.methods}, sent
