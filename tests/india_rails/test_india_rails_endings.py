"""How every India Rails game ends: victory, the tournament time limit, and a stalled table."""

from __future__ import annotations

import pytest
from india_rails_fixtures import ENGINE, new_match, set_turn

from services.common.engine import BadConfig
from services.common.runner import Match


def _discard_every_turn(match: Match, rounds: int) -> None:
    """Every seat throws its hand away instead of playing, for up to ``rounds`` rounds."""
    start = match.state["round"]
    while not ENGINE.is_over(match.state) and match.state["round"] < start + rounds:
        seat = match.to_act()[0]
        legal = ENGINE.legal_moves(match.state, seat)
        move = {"discard_hand": {}} if {"discard_hand": {}} in legal else legal[0]
        match.play(seat, move)


def test_a_table_where_nobody_builds_or_delivers_for_25_rounds_ends_as_at_a_time_limit() -> None:
    match = new_match(3, seed=4)
    state = set_turn(match, 0, "operations")
    state["players"][0]["cash"], state["players"][1]["cash"], state["players"][2]["cash"] = 12, 31, 7
    _discard_every_turn(match, 40)
    state = match.state
    assert state["finish_reason"] == "stalled" and state["round"] == 25
    # Nobody has a connected network, so the most cash wins and the rest follow by cash.
    assert state["winners"] == [1] and ENGINE.result(state).ranking == [2, 1, 3]


def test_a_delivery_or_a_segment_of_track_restarts_the_count() -> None:
    match = new_match(2, seed=4)
    set_turn(match, 0, "operations")
    _discard_every_turn(match, 20)
    assert not ENGINE.is_over(match.state)
    seat = match.to_act()[0]
    match.play(seat, {"end_operations": {}})
    build = next(m for m in ENGINE.legal_moves(match.state, seat) if "build_track" in m)
    match.play(seat, build)
    built_in = match.state["round"]
    match.play(seat, {"end_turn": {}})
    _discard_every_turn(match, 40)
    assert match.state["finish_reason"] == "stalled" and match.state["round"] == built_in + 25


def test_a_stalled_table_may_be_configured_to_end_without_a_winner_or_never() -> None:
    match = new_match(2, seed=4, stall_ending="no_winner", stall_rounds=5)
    set_turn(match, 0, "operations")
    _discard_every_turn(match, 10)
    result = ENGINE.result(match.state)
    assert match.state["round"] == 5 and result.winners == [] and result.ranking == [1, 1]
    endless = new_match(2, seed=4, stall_rounds=0)
    set_turn(endless, 0, "operations")
    _discard_every_turn(endless, 30)
    assert not ENGINE.is_over(endless.state)


def test_stall_options_are_validated() -> None:
    with pytest.raises(BadConfig) as bad:
        ENGINE.validate_options(2, {"stall_ending": "coin_toss"})
    assert bad.value.code == "bad_stall_ending"
    with pytest.raises(BadConfig) as bad:
        ENGINE.validate_options(2, {"stall_rounds": -3})
    assert bad.value.code == "bad_stall_rounds"
    assert ENGINE.default_options()["stall_rounds"] == 25


def test_a_game_still_going_after_the_round_limit_ends_as_at_a_time_limit() -> None:
    # Someone is still earning (so the table is not stalled), but 400 rounds is the platform's cap.
    match = new_match(2, seed=4)
    state = set_turn(match, 0, "operations")
    state["round"], state["last_progress"] = 399, 399
    state["players"][0]["cash"], state["players"][1]["cash"] = 90, 140
    match.play(0, {"end_operations": {}})
    match.play(0, {"end_turn": {}})
    assert not ENGINE.is_over(match.state)
    match.play(1, {"end_operations": {}})
    match.play(1, {"end_turn": {}})
    state = match.state
    assert state["finish_reason"] == "round_limit" and state["winners"] == [1]
    assert ENGINE.default_options()["round_limit"] == 400
