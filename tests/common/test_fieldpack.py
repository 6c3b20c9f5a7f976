"""A state packed field by field (services.common.fieldpack) is the message ``pack_engine`` packs, byte for byte.

Real views of every game along random plays, each seat's, packed twice (the second time from
kept bytes); the same views with one value of a big field changed to odd values (NaN, None,
wrong types, numbers for text) either pack the same bytes or fail as ``pack_engine`` fails; a
field whose value changes on every pack is rested and still packs right; the table stays
within its bound.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.engine_cases import random_position
from services.common import fieldpack, protojson
from services.common.registry import engine_for

GAMES = {"darjeeling": 2, "alubari": 3, "tea_rum": 2, "india_rails": 3}
ODD: list[Any] = [None, 0, -0.0, 1.5, True, "", "x", [], {}, float("nan"), 2**70, [None], {"x": 1}, [1.0], ["a"]]


def _views(game: str, plays: int = 2, every: int = 7, length: int = 70) -> list[dict[str, Any]]:
    engine, seats = engine_for(game), GAMES[game]
    views = []
    for seed in range(plays):
        for moves in range(0, length, every):
            match = random_position(engine, seats, moves, seed)[0]
            views += [engine.view(match.state, seat) for seat in range(seats)]
    return views


_VIEWS = {game: _views(game, plays=1, every=20, length=60) for game in GAMES}


def _packed(pack: Any, game: str, data: dict[str, Any]) -> bytes | type[Exception]:
    try:
        return bytes(pack(game, "State", data).SerializeToString())
    except Exception as error:  # the two must fail alike, whatever the error
        return type(error)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_seats_view_packs_the_bytes_pack_engine_packs(game: str) -> None:
    views = _views(game)
    for _ in range(2):  # the second pass reads the big fields' kept bytes
        for view in views:
            packed = fieldpack.pack(game, "State", view)
            assert packed.SerializeToString() == protojson.pack_engine(game, "State", view).SerializeToString()
            assert packed.type_url == f"type.googleapis.com/chaiwala.{game}.v1.State"


def _big_fields(view: dict[str, Any]) -> list[str]:
    return [key for key, value in view.items() if len(orjson.dumps(value)) >= fieldpack.MIN_JSON]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_view_with_an_odd_value_packs_alike_or_fails_alike(data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(sorted(GAMES)))
    view = dict(data.draw(st.sampled_from(_VIEWS[game])))
    key = data.draw(st.sampled_from(_big_fields(view)))
    value = view[key]
    odd = data.draw(st.sampled_from(ODD))
    if isinstance(value, list) and value and data.draw(st.booleans()):
        view[key] = [*value[:-1], odd]  # one element of a list changed
    elif isinstance(value, dict) and value and data.draw(st.booleans()):
        inner = data.draw(st.sampled_from(sorted(value)))
        view[key] = {**value, inner: odd}  # one member of a message or map changed
    else:
        view[key] = odd
    for _ in range(2):
        assert _packed(fieldpack.pack, game, view) == _packed(protojson.pack_engine, game, view)


def test_a_nan_is_never_taken_for_a_null() -> None:
    """``orjson`` prints NaN as ``null``: a big field with a member left out (None) packs, the
    same field with a NaN there fails as ``pack_engine`` fails, in either order."""
    assert orjson.dumps([float("nan")]) == orjson.dumps([None])
    for game, views in _VIEWS.items():
        view = dict(views[0])
        lists = [name for name in _big_fields(view) if isinstance(view[name], list)]
        key = next(name for name in lists if isinstance(view[name][0], dict))
        first = view[key][0]
        member = next(iter(first))
        for odd in (None, float("nan"), None, float("nan")):
            changed = {**view, key: [{**first, member: odd}, *view[key][1:]]}
            assert len(orjson.dumps(changed[key])) >= fieldpack.MIN_JSON
            assert _packed(fieldpack.pack, game, changed) == _packed(protojson.pack_engine, game, changed)


def test_a_field_that_changes_every_time_is_rested_and_still_packs_right() -> None:
    game = "darjeeling"
    view = dict(_VIEWS[game][0])
    key = max(_big_fields(view), key=lambda name: len(orjson.dumps(view[name])))
    plan = fieldpack._plan(game, "State")
    assert plan is not None and plan.fields is not None
    field = plan.fields[key]
    for trial in (plan, field):  # from a fresh trial, whatever the tests before left
        trial.tries = trial.hits = trial.resting = 0
    rested = plan_rested = False
    for turn in range(fieldpack.TRIAL * 2):
        value = view[key]
        changed = {**view, key: [*value[1:], value[0]] if turn % 2 else list(reversed(value))}
        changed[key] = changed[key] + [changed[key][turn % len(value)]] * (turn + 1)  # never twice the same
        assert fieldpack.pack(game, "State", changed).SerializeToString() == (
            protojson.pack_engine(game, "State", changed).SerializeToString()
        )
        rested = rested or field.resting > 0
        plan_rested = plan_rested or plan.resting > 0
    assert rested and plan_rested  # the field, and the message too: none of its packs found kept bytes


def test_the_table_keeps_within_its_bound() -> None:
    table = fieldpack._Kept(limit=10_000)
    for number in range(100):
        printed = orjson.dumps({"n": number, "pad": "x" * 300})
        table.put(("g.State", "f", printed), b"y" * 200)
        assert table.size <= 10_000
    assert table.get(("g.State", "f", orjson.dumps({"n": 99, "pad": "x" * 300}))) == b"y" * 200
    assert table.get(("g.State", "f", orjson.dumps({"n": 0, "pad": "x" * 300}))) is None
    assert table.size == sum(len(key[2]) + len(value) for key, value in table.items.items())


def test_a_key_not_in_the_message_fails_as_pack_engine_fails() -> None:
    game = "alubari"
    view = dict(_VIEWS[game][0])
    with pytest.raises(protojson.BadMessage):
        protojson.pack_engine(game, "State", {**view, "no_such_field": 1})
    with pytest.raises(protojson.BadMessage):
        fieldpack.pack(game, "State", {**view, "no_such_field": 1})
