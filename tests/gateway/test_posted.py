"""A posted message parsed from memory (gateway.posted) is what parsing it afresh gives, refusals included."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import any_pb2

from gateway import posted
from services.common import protojson

# Moves that parse, and near twins that differ only in a JSON type (1 / 1.0 / true / null / a string).
MOVES: list[dict[str, Any]] = [
    {"move_collector": {"turn": "LEFT", "distance": 2}},
    {"move_collector": {"turn": "LEFT", "distance": 2.0}},
    {"move_collector": {"turn": "LEFT", "distance": 2.5}},
    {"move_collector": {"turn": "LEFT", "distance": True}},
    {"move_collector": {"turn": "LEFT", "distance": None}},
    {"move_collector": {"turn": "LEFT", "distance": "2"}},
    {"move_collector": {"distance": 2, "turn": "LEFT"}},
    {"move_collector": {"turn": "SIDEWAYS", "distance": 2}},
    {"end_turn": {}},
    {"end_turn": {}, "stay_put": {}},
    {"nope": 1},
    {"end_turn": {"x": "y" * 600}},  # longer than what is kept: parsed every time
]


Packer = Callable[[str, str, dict[str, Any]], any_pb2.Any]


def _answer(pack: Packer, data: dict[str, Any]) -> tuple[str, bytes] | str:
    """What ``pack`` makes of ``data`` as a Darjeeling move: its type and bytes, or the refusal's words."""
    try:
        packed = pack("darjeeling", "Move", data)
    except protojson.BadMessage as error:
        return str(error)
    return packed.type_url, packed.value


def _afresh(data: dict[str, Any]) -> tuple[str, bytes] | str:
    return _answer(protojson.pack, data)


def _remembered(data: dict[str, Any]) -> tuple[str, bytes] | str:
    return _answer(posted.pack, data)


@pytest.mark.parametrize("data", MOVES, ids=[repr(move)[:60] for move in MOVES])
def test_a_remembered_parse_is_the_fresh_one(data: dict[str, Any]) -> None:
    """Asked three times, interleaved with every other move, each answer is what a fresh parse gives."""
    expected = _afresh(data)
    for _ in range(3):
        assert _remembered(data) == expected
        for other in MOVES:
            assert _remembered(other) == _afresh(other)


def test_each_answer_is_a_new_message() -> None:
    """The caller may change what it gets (the request owns it): the next caller is not affected."""
    first = posted.pack("darjeeling", "Move", {"end_turn": {}})
    first.value = b"changed"
    assert (
        posted.pack("darjeeling", "Move", {"end_turn": {}}).value
        == protojson.pack("darjeeling", "Move", {"end_turn": {}}).value
    )
