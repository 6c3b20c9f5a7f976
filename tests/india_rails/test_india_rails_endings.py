"""How every India Rails game ends: victory, the tournament time limit, and a stalled table."""

from __future__ import annotations

import pytest
from india_rails_fixtures import ENGINE, lay, neighbours, new_match, refused_options, set_turn

from services.common.engine import RandomBot
from services.common.runner import Match, play_out
from services.india_rails.content import BOARD


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


def test_a_track_sale_or_swap_does_not_restart_the_count() -> None:
    # Trading track only moves existing track and cash between players: on its own it is no progress.
    match = new_match(2, seed=4, track_trading=True)
    state = set_turn(match, 0, "operations")
    delhi = BOARD.cities["Delhi"]
    outpost = delhi.mileposts[1]
    lay(state, 1, [outpost, next(v for v in neighbours(outpost) if v not in delhi.mileposts)])
    _discard_every_turn(match, 20)
    seat = match.to_act()[0]
    other = 1 - seat
    match.play(seat, {"end_operations": {}})
    offer = next(m for m in ENGINE.legal_moves(match.state, seat)
                 if "offer_track" in m and m["offer_track"]["seller"] == other)
    match.play(seat, offer)
    events = match.play(other, {"answer_offer": {"accept": True}})
    assert events[-1]["track_sold"]["accepted"]
    match.play(seat, {"end_turn": {}})
    assert match.state["last_progress"] == 0
    _discard_every_turn(match, 40)
    assert match.state["finish_reason"] == "stalled" and match.state["round"] == 25


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (2, 3), (4, 1), (4, 2)])
def test_random_bots_trading_track_end_by_the_stall_rule_not_the_round_limit(players: int, seed: int) -> None:
    # Before trades stopped counting as progress, every such table traded on to round 400.
    match = new_match(players, seed=seed, track_trading=True)
    trades = []

    def count_trades(m: Match, seat: int, move: dict, events: list[dict]) -> None:
        trades.extend(e for e in events if e.get("track_sold", {}).get("accepted"))

    play_out(match, {s: RandomBot() for s in range(players)}, max_moves=20_000, after_move=count_trades)
    state = match.state
    assert trades, "the random bots traded no track: the test would prove nothing"
    assert state["finish_reason"] == "stalled" and state["round"] - state["last_progress"] == 25
    assert state["round"] < 100


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
    assert refused_options(2, {"stall_ending": "coin_toss"}) == "bad_stall_ending"
    assert refused_options(2, {"stall_rounds": -3}) == "bad_stall_rounds"
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
