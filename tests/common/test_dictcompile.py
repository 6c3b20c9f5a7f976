"""The compiled dict plans (services.common.dictcompile) print what the message prints, or step aside.

``tests/gateway/test_lean_path.py`` checks the engines' real dicts.  Here the dicts are drawn from
each game's message descriptors (every field kind, with values of the right type, of wrong types,
defaults, -0.0, NaN, unknown keys, unknown enum names and numbers, nested and repeated messages)
and taken from real views with one value changed: whenever the message takes the dict,
``dictrender.payload`` prints it byte for byte as rendering the packed message does, and a dict
the plan is unsure of falls back to the message (so it raises when the message refuses it).
"""

from __future__ import annotations

import math
from typing import Any

import orjson
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.engine_cases import random_position
from services.common import dictrender, protojson, protorender
from services.common.registry import engine_for

GAMES = {"darjeeling": 2, "alubari": 3, "tea_rum": 2, "india_rails": 3}
_F = FieldDescriptor
ODD: list[Any] = [None, 0, -0.0, 0.0, 1.5, True, False, "", "x", [], (), {}, b"x", float("nan"), 2**40, -1]
CHECKED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _names(game: str) -> list[str]:
    """The game's top-level message names (its proto file's)."""
    return sorted(protojson.message_class(game, "State").DESCRIPTOR.file.message_types_by_name)


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    cpp = field.cpp_type
    if cpp == _F.CPPTYPE_ENUM:
        assert field.enum_type is not None
        values = [value.name for value in field.enum_type.values] + [value.number for value in field.enum_type.values]
        return st.sampled_from([*values, "NOT_A_VALUE", 99])
    if cpp in (_F.CPPTYPE_INT32, _F.CPPTYPE_UINT32):
        return st.integers(-(2**31), 2**32 - 1)
    if cpp in (_F.CPPTYPE_INT64, _F.CPPTYPE_UINT64):
        return st.integers(-(2**63), 2**64 - 1)
    if cpp in (_F.CPPTYPE_FLOAT, _F.CPPTYPE_DOUBLE):
        return st.floats(width=32 if cpp == _F.CPPTYPE_FLOAT else 64) | st.integers(-5, 5)
    if cpp == _F.CPPTYPE_BOOL:
        return st.booleans()
    return st.text(max_size=6)


def _value(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    """A value for ``field``: mostly of its kind, sometimes an odd one."""
    odd = st.sampled_from(ODD)
    if protorender.is_map(field):
        entry = field.message_type
        assert entry is not None
        value = entry.fields_by_name["value"]
        keys = st.text(max_size=4) | st.integers(0, 3) if value.cpp_type != _F.CPPTYPE_MESSAGE else st.text(max_size=3)
        inner = _scalar(value) if value.cpp_type != _F.CPPTYPE_MESSAGE else st.just({})
        return st.dictionaries(keys, inner | odd, max_size=4) | odd
    if field.cpp_type == _F.CPPTYPE_MESSAGE:
        assert field.message_type is not None
        one = _message(field.message_type, depth + 1) if depth < 3 else st.just({})
    else:
        one = _scalar(field)
    if field.is_repeated:
        items = st.lists(one | st.sampled_from(ODD[:8]), max_size=4)
        return items | items.map(tuple) | st.lists(one, max_size=4) | odd
    return one | odd


def _message(message_type: Descriptor, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    fields = {field.name: _value(field, depth) for field in message_type.fields}
    given_fields = st.fixed_dictionaries({}, optional=fields)  # type: ignore[arg-type]
    extra = st.dictionaries(st.sampled_from(["nope", *fields]), st.sampled_from(ODD), max_size=1)
    return st.tuples(given_fields, extra).map(lambda pair: {**pair[0], **pair[1]})


def _same_as_the_message(game: str, name: str, data: dict[str, Any]) -> bool:
    """Whether the message took ``data`` (then ``payload`` printed it as the message does)."""
    try:
        expected = orjson.dumps(protorender.to_dict(protojson.pack_engine(game, name, dict(data))))
    except Exception:  # whatever the message refuses, the comparison has no reference
        return False
    assert orjson.dumps(dictrender.payload(game, name, data)) == expected, (game, name, data)
    return True


@CHECKED
@given(st.data())
def test_drawn_dicts_print_as_their_messages(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(sorted(GAMES)))
    name = data.draw(st.sampled_from(_names(game)))
    drawn = data.draw(_message(protojson.message_class(game, name).DESCRIPTOR))  # type: ignore[arg-type]
    _same_as_the_message(game, name, drawn)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value in a view (dict keys and list indexes)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _leaves(item, (*path, index))
    return found


def _replaced(view: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(view, dict):
        return {**view, head: _replaced(view[head], rest, new)}
    return [_replaced(item, rest, new) if index == head else item for index, item in enumerate(view)]


@CHECKED
@given(st.data())
def test_real_views_with_one_value_changed_print_as_their_messages(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(sorted(GAMES)))
    moves, seed = data.draw(st.integers(0, 80)), data.draw(st.integers(0, 99))
    match, _ = random_position(engine_for(game), GAMES[game], moves, seed)
    view = engine_for(game).view(match.state, data.draw(st.sampled_from([None, *range(GAMES[game])])))
    path = data.draw(st.sampled_from(_leaves(view)[1:]))
    new = data.draw(st.sampled_from([*ODD, "GAME_OVER", "TILE", 7, [1, 2], [True], ["a"], {"row": 1}, math.inf]))
    changed = _replaced(view, path, new)
    if isinstance(path[-1], str) and new is None:
        changed = _replaced(view, path[:-1], {k: v for k, v in _at(view, path[:-1]).items() if k != path[-1]})
    _same_as_the_message(game, "State", changed)


def _at(view: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        view = view[step]
    return view


def test_the_fast_path_is_taken_for_every_real_view() -> None:
    """The engines' views never need the message (else the compiled plans would save nothing)."""
    for game, players in GAMES.items():
        plan = dictrender._payload_plan(game, "State")
        match, _ = random_position(engine_for(game), players, 60, 5)
        for viewer in (None, *range(players)):
            plan(engine_for(game).view(match.state, viewer))  # raises Unplanned if it would fall back
