"""The fast renderer (services.common.protorender) prints exactly what json_format prints.

Byte-equal JSON (same keys, same order, same values) on every game's real messages — states
for every viewer, events, legal moves, options — wrapped in the envelopes REST renders, plus
the awkward corners of the proto3 JSON mapping (64-bit integers, bytes, floats, maps, enums,
well-known types).
"""

from __future__ import annotations

import math

import orjson
import pytest
from google.protobuf import any_pb2, json_format, struct_pb2, timestamp_pb2, wrappers_pb2
from google.protobuf.message import Message

from bench.engine_cases import random_position
from chaiwala.v1 import rules_pb2
from services.common import protojson, protorender
from services.common.registry import engine_for

GAMES = {"darjeeling": 4, "alubari": 3, "tea_rum": 2, "india_rails": 3}


def _reference(message: Message) -> bytes:
    return orjson.dumps(
        json_format.MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    )


def _same(message: Message) -> None:
    protorender.forget_rendered()
    cold = protorender.to_dict(message)
    assert orjson.dumps(cold) == _reference(message)
    warm = protorender.to_dict(message)  # payloads now come from the kept renderings
    assert orjson.dumps(warm) == _reference(message)
    if cold:
        assert warm is not cold and warm == cold  # a fresh dict each time: callers may change theirs


def _played(game: str, players: int, moves: int, seed: int) -> list[Message]:
    """Envelopes of one random game after ``moves`` moves: every viewer's state, the events, legal moves."""
    engine = engine_for(game)
    match, events = random_position(engine, players, moves, seed)
    out: list[Message] = []
    for viewer in (None, *range(players)):
        answer = rules_pb2.SubmitMovesResponse(version=moves, status="active", to_act=match.to_act())
        answer.state.CopyFrom(protojson.pack_engine(game, "State", engine.view(match.state, viewer)))
        for index, event in enumerate(events):
            visible = engine.event_view(event, viewer)
            if visible is not None:
                packed = protojson.pack_engine(game, "Event", visible)
                answer.events.append(rules_pb2.GameEvent(version=moves, index=index, event=packed, seat=0, text="t"))
        out.append(answer)
    for seat in match.to_act():
        legal = engine.legal_moves(match.state, seat)[:50]
        listing = rules_pb2.LegalMoves(version=moves, moves=[protojson.pack_engine(game, "Move", m) for m in legal])
        out.append(listing)
    out.append(rules_pb2.GameType(id=game, options=protojson.pack_engine(game, "Options", engine.default_options())))
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_message_renders_byte_for_byte_as_json_format(game: str) -> None:
    for moves, seed in ((0, 1), (40, 3), (150, 4)):
        for message in _played(game, GAMES[game], moves, seed):
            _same(message)


def test_envelopes_with_presence_maps_and_clocks_render_alike() -> None:
    game = rules_pb2.Game(game_id="g", status="finished", version=3, to_act=[], visibility="public")
    _same(game)  # unset optional and message fields stay out, defaults of the rest print
    game.result.CopyFrom(rules_pb2.GameResult(scores=[3, 0], ranking=[0, 1], winners=[0]))
    game.viewer_seat = 0  # optional, set to its default: printed
    game.clock.remaining_s["0"] = 12.5
    game.clock.deadlines["1"] = "2026-01-01T00:00:00Z"
    _same(game)
    _same(rules_pb2.Game())


def test_the_corners_of_the_mapping_render_alike() -> None:
    _same(any_pb2.Any())  # an empty Any is {}
    stamp = timestamp_pb2.Timestamp(seconds=1_700_000_000, nanos=5)
    wrapped = any_pb2.Any()
    wrapped.Pack(stamp)
    _same(wrapped)  # a well-known type inside Any: {"@type", "value"}
    struct = struct_pb2.Struct()
    struct.update({"a": [1, "x", None, {"b": True}]})
    wrapped.Pack(struct)
    _same(wrapped)
    wrapped.Pack(wrappers_pb2.Int64Value(value=2**40))
    _same(wrapped)
    _same(wrappers_pb2.BytesValue(value=b"\x00\xff"))
    _same(struct)


def test_floats_that_json_cannot_spell_render_alike() -> None:
    struct = struct_pb2.Value(number_value=math.inf)
    with pytest.raises(ValueError):
        json_format.MessageToDict(struct)  # json_format refuses; so must we
    with pytest.raises(ValueError):
        protorender.to_dict(struct)
