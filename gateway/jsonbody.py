"""Strict JSON for request bodies: no duplicate keys, bounded nesting, no NaN, no crashes.

``orjson`` (used for responses) silently keeps the last of duplicate keys, so bodies are
parsed with the standard library's C scanner and an ``object_pairs_hook`` that refuses
duplicates.  Anything the parser cannot take — deep nesting (``RecursionError``), huge
integers, lone surrogates, non-finite numbers — is a 400 with a stable code, never a 500.

**orjson first, when it gives the same.** The standard parse with its hook and the walk after it
cost a move's POST a few microseconds; most bodies are small objects of strings and small integers,
which orjson parses several times faster.  Its answer is taken only when it is the one the strict
parse would give (:func:`_as_strict`): no number became a float (orjson turns an integer beyond 64
bits into one; any float sends the body the strict way, so floats are parsed as ever), nesting
within :data:`MAX_DEPTH`, and no duplicate key, known without a parse of our own: every member of
every object has one ``:`` outside strings, so when the body's ``:`` are exactly as many as the
members parsed, no member was dropped (and no string held one).  Anything else — an error, a float,
a ``:`` in a string, a duplicate — is parsed the strict way, which gives the same answer or the same
refusal as before (orjson refuses everything the strict parse refuses: lone surrogates, ``NaN``,
bytes that are not UTF-8).
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from gateway.problems import Problem

# No request body of ours nests more than a handful of levels; this is generous.
MAX_DEPTH = 32


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build an object, refusing a key that appears twice."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise Problem(400, "duplicate_key", f"the key {key[:40]!r} appears more than once in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise Problem(400, "malformed_json", f"{name} is not valid JSON")


def _check_string(text: str) -> None:
    """Lone surrogates (``"\\ud800"``) parse but are not text; refuse them as orjson does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Problem(400, "malformed_json", "strings must be valid Unicode (no lone surrogates)") from None


def _check(value: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and non-text strings, without recursion."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            _check_string(item)
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise Problem(400, "too_deeply_nested", f"JSON may nest at most {MAX_DEPTH} levels")
        if isinstance(item, dict):
            pending.extend((key, depth) for key in item)
        pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))


def loads(raw: bytes) -> Any:
    """Parse a request body strictly; every refusal is a :class:`Problem` (400)."""
    try:
        quick = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return strict_loads(raw)  # its own words for what is wrong
    return quick if _as_strict(quick, raw) else strict_loads(raw)


def _as_strict(value: Any, raw: bytes) -> bool:
    """Whether orjson's ``value`` of ``raw`` is what :func:`strict_loads` gives (see the module's words)."""
    members = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        kind = type(item)
        if kind is float:
            return False
        if kind is dict or kind is list:
            if depth > MAX_DEPTH:
                return False
            if kind is dict:
                members += len(item)
                item = item.values()
            pending.extend((child, depth + 1) for child in item)
    return raw.count(b":") == members


def strict_loads(raw: bytes) -> Any:
    """The strict parse: the standard library's, refusing duplicate keys, deep nesting and non-text."""
    try:
        data = json.loads(raw.decode("utf-8"), object_pairs_hook=_pairs, parse_constant=_no_constant)
    except RecursionError:
        raise Problem(400, "too_deeply_nested", f"JSON may nest at most {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise Problem(400, "malformed_json", f"the body is not valid JSON: {str(error)[:80]}") from None
    _check(data)
    return data
