"""A body parsed through orjson first (gateway.jsonbody.loads) is what the strict parse gives: the same
value of the same types, or the same refusal, on hand-picked edges and thousands of generated bodies."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from gateway import jsonbody
from gateway.problems import Problem

EDGES: list[bytes] = [
    b'{"move": {"end_turn": {}}, "expected_version": 3}',
    b'{"a": 1, "a": 2}',
    b'{"a": {"b": 1, "b": 1}}',
    b'{"a:b": 1}',
    b'{"a": "x:y"}',
    b'{"n": 18446744073709551615}',
    b'{"n": 18446744073709551616}',
    b'{"n": -9223372036854775808}',
    b'{"n": -9223372036854775809}',
    b'{"n": 123456789012345678901234567890}',
    b'{"f": 1.0}',
    b'{"f": 1e400}',
    b'{"f": -0}',
    b'{"f": -0.0}',
    b'{"f": NaN}',
    b'{"f": Infinity}',
    b'{"s": "\\ud800"}',
    b'{"\\udfff": 1}',
    b'{"s": "\\ud83d\\ude00"}',
    b'{"s": "\\u0000"}',
    b'{"s": "\xff"}',
    b"\xef\xbb\xbf{}",
    b"[1, 2,]",
    b"",
    b"   ",
    b'"just a string"',
    b"[]",
    b"{}",
    b"null",
    b'{"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
    b'{"a": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}',
    b"[" * 40 + b"]" * 40,
    b"[" * 5000 + b"]" * 5000,
    b'{"a": 1} x',
    b'{"a": true, "b": false, "c": null}',
]


def _outcome(parse: Any, raw: bytes) -> tuple[str, Any]:
    try:
        value = parse(raw)
    except Problem as problem:
        return "refused", (problem.status, problem.code, problem.detail)
    return "parsed", _typed(value)


def _typed(value: Any) -> Any:
    """``value`` with every leaf's type beside it (``1 == 1.0 == True`` would hide a difference)."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return type(value).__name__, repr(value)


def _generated(rng: random.Random, depth: int = 0) -> str:
    """A JSON text, valid or nearly so: duplicates, colons in strings, big numbers, floats, escapes."""
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        leaves = ['"x"', '"a:b"', '"\\u00e9"', '"\\ud800"', "1", "-0", "0.5", "1e3", str(2**64), str(-(2**63) - 1),
                  "true", "null", "NaN", '"\\n"', str(rng.randint(-(2**40), 2**40))]  # fmt: skip
        return rng.choice(leaves)
    if roll < 0.6:
        return "[" + ", ".join(_generated(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    keys = [rng.choice(["move", "a", "b", "k:v", "expected_version", "é"]) for _ in range(rng.randint(0, 4))]
    return "{" + ", ".join(f'"{key}": {_generated(rng, depth + 1)}' for key in keys) + "}"


@pytest.mark.parametrize("raw", EDGES)
def test_edges_parse_as_strictly_as_ever(raw: bytes) -> None:
    assert _outcome(jsonbody.loads, raw) == _outcome(jsonbody.strict_loads, raw)


def test_generated_bodies_parse_as_strictly_as_ever() -> None:
    rng = random.Random(47)
    quick = 0
    for _ in range(5000):
        raw = _generated(rng).encode()
        expected = _outcome(jsonbody.strict_loads, raw)
        assert _outcome(jsonbody.loads, raw) == expected, raw
        quick += expected[0] == "parsed" and jsonbody._as_strict(orjson.loads(raw), raw)
    assert quick > 500  # the quick path is taken for a good share of them, not only the fallback
