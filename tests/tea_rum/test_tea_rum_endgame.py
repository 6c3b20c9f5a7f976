"""The end of the game: the secret exchange, the 10-point cap, Governor and Pirate King."""

from __future__ import annotations

from typing import Any

from tea_rum_helpers import ENGINE, public_record, start

from services.common import protojson
from services.common.engine import RandomBot
from services.common.rng import Rng
from services.common.runner import Match, Snapshot, play_out
from services.tea_rum import rounds, scoring


def _final_state(players: int, table: list[tuple[int, int, int, bool]], colour: str = "") -> dict[str, Any]:
    """A state whose players have (blue, red, allegiance, proven) as given."""
    state = start(players, seed=1).state
    for p, (blue, red, allegiance, proven) in zip(state["players"], table, strict=True):
        p["blue"], p["red"], p["allegiance"], p["allegiance_done"] = blue, red, allegiance, proven
        p["buildings"], p["captains"], p["contracts"] = [], [], []
    if colour:
        state["victory_cards"] = [colour] * 3 + (["red"] if colour == "blue" else ["blue"]) * 2
    return state


def _result(state: dict[str, Any]) -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    return scoring.final_result(state, events)


def test_the_gap_between_blue_and_red_is_capped_at_ten() -> None:
    state = _final_state(3, [(25, 12, 0, False), (3, 20, 0, False), (10, 0, 0, False)])
    events: list[dict[str, Any]] = []
    final = scoring.final_result(state, events)
    assert final["blue"] == [22, 3, 10] and final["red"] == [12, 13, 0]
    capped = [e["vp_capped"] for e in events if "vp_capped" in e]
    assert capped == [{"seat": 0, "lost_blue": 3, "lost_red": 0}, {"seat": 1, "lost_blue": 0, "lost_red": 7}]


def test_governor_and_pirate_king_are_two_winners() -> None:
    # Seat 0 proved allegiance 1 and leads blue; seat 2 leads red.
    final = _result(_final_state(4, [(20, 12, 1, True), (25, 18, 0, False), (10, 20, 0, False), (5, 5, 0, False)]))
    assert final["governors"] == [0]  # seat 1 has more blue but never proved an allegiance
    assert final["pirate_kings"] == [2]
    assert final["winners"] == [0, 2]


def test_the_governor_can_also_be_the_pirate_king() -> None:
    final = _result(_final_state(3, [(20, 19, 4, True), (10, 12, 0, False), (8, 15, 0, False)]))
    assert final["governors"] == final["pirate_kings"] == final["winners"] == [0]


def test_nobody_competing_for_governor_leaves_one_winner() -> None:
    final = _result(_final_state(3, [(20, 10, 0, False), (10, 12, 0, False), (8, 15, 0, False)]))
    assert final["governors"] == [] and final["winners"] == [2]


def test_a_lone_proven_allegiance_is_governor_whatever_its_blue() -> None:
    final = _result(_final_state(3, [(2, 5, 7, True), (30, 25, 3, False), (8, 15, 0, False)]))
    assert final["governors"] == [0]
    assert final["winners"] == [0, 1]


def test_governor_ties_go_to_red_then_are_shared() -> None:
    tie_on_red = _result(_final_state(3, [(20, 12, 1, True), (20, 14, 2, True), (1, 1, 0, False)]))
    assert tie_on_red["governors"] == [1]
    shared = _result(_final_state(3, [(20, 14, 1, True), (20, 14, 2, True), (1, 1, 0, False)]))
    assert shared["governors"] == [0, 1]
    assert shared["pirate_kings"] == [0, 1] and shared["winners"] == [0, 1]


def test_pirate_king_ties_go_to_blue() -> None:
    final = _result(_final_state(3, [(9, 15, 0, False), (11, 15, 0, False), (1, 1, 0, False)]))
    assert final["pirate_kings"] == [1]


def test_the_vp_gap_allegiance_is_checked_after_the_cap() -> None:
    # Allegiance 6: blue and red at most 5 apart at the end.
    final = _result(_final_state(3, [(12, 8, 6, False), (12, 2, 6, False), (1, 1, 0, False)]))
    assert final["allegiance_proven"] == [True, False, False]
    assert final["governors"] == [0]


def test_two_players_blue_victory_without_any_allegiance_has_no_winner() -> None:
    state = _final_state(2, [(30, 20, 0, False), (14, 24, 0, False)], colour="blue")
    final = _result(state)
    assert final["victory_colour"] == "blue"
    assert final["winners"] == []
    assert final["pirate_kings"] == [1]  # the red leader is no winner in a blue game


def test_two_players_single_winner_by_the_victory_colour() -> None:
    blue_game = _result(_final_state(2, [(30, 20, 5, True), (14, 24, 0, False)], colour="blue"))
    assert blue_game["winners"] == [0]
    red_game = _result(_final_state(2, [(30, 20, 5, True), (14, 24, 0, False)], colour="red"))
    assert red_game["winners"] == [1]


def _play_to_exchange(players: int, seed: int) -> Match:
    match = start(players, seed)
    step = 0
    while match.state["phase"] != "exchange":
        seat = match.to_act()[0]
        match.play(seat, match.bot_move(RandomBot(), seat, step))
        step += 1
    return match


def test_the_secret_exchange_is_hidden_from_the_others_until_the_end() -> None:
    match = _play_to_exchange(3, seed=4)
    assert sorted(match.to_act()) == [0, 1, 2]  # everyone exchanges at once
    assert all(sum(p["res"].values()) == 0 for p in match.state["players"])  # all sold at base price
    for p in match.state["players"]:
        p["money"] = 25
    # $25 buys at most two VP: every split of 0, 1 or 2 exchanges is one decision.
    offered = [m["exchange_vp"] for m in ENGINE.legal_moves(match.state, 0)]
    assert sorted((m["blue"], m["red"]) for m in offered) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (2, 0)]
    before = ENGINE.view(match.state, 1)["players"][0]
    events = match.play(0, {"exchange_vp": {"blue": 0, "red": 2}})
    assert events == [{"exchange_finished": {"seat": 0}}, {"vp_exchanged": {"seat": 0, "blue": 0, "red": 2}}]
    assert ENGINE.event_view(events[1], 0) == events[1]
    assert ENGINE.event_view(events[1], 1) is None and ENGINE.event_view(events[1], None) is None
    assert ENGINE.view(match.state, 1)["players"][0] == before
    own = ENGINE.view(match.state, 0)["players"][0]
    assert own["exchanged_red"] == 2 and own["money"] == 5
    assert 0 not in match.to_act()  # one decision, and the seat is done
    for seat in (1, 2):
        match.play(seat, {"exchange_vp": {"blue": 0, "red": 0}})
    result = ENGINE.result(match.state)
    assert result is not None
    assert ENGINE.view(match.state, 1)["players"][0]["exchanged_red"] == 2
    for seat in range(3):
        assert (seat in result.winners) == (result.ranking[seat] == 1)


def test_a_spectator_cannot_tell_how_many_vp_a_player_bought() -> None:
    start_of_exchange = _play_to_exchange(3, seed=4)
    for p in start_of_exchange.state["players"]:
        p["money"] = 47
    records = []
    for bought in ({"blue": 0, "red": 0}, {"blue": 1, "red": 3}, {"blue": 4, "red": 0}):
        match = Match(ENGINE, Snapshot.from_json(start_of_exchange.snapshot.to_json()))
        # Seat 0 exchanges first, then seat 1; the last seat's move ends the game and reveals all.
        plays = [(0, {"exchange_vp": bought}), (1, {"exchange_vp": {"blue": 1, "red": 0}})]
        records.append(public_record(match, plays, viewers=(None, 1)))
        assert match.state["players"][0]["exchanged"] == bought
    assert records[0] == records[1] == records[2]


def test_a_whole_two_player_game_in_blue_without_allegiances_has_no_winner() -> None:
    match = start(2, seed=8)
    state = match.state
    state["victory_cards"] = ["blue"]
    state["victory_hidden"] = ["blue", "red", "blue", "red"]
    state["allegiances"] = []  # nobody can swear allegiance, so nobody can prove one
    play_out(match, {0: RandomBot(), 1: RandomBot()})
    result = ENGINE.result(match.state)
    assert result is not None
    assert match.state["final"]["victory_colour"] == "blue"
    assert result.winners == [] and result.ranking == [2, 2]


def test_refusals_name_the_reason() -> None:
    match = start(3, seed=2)
    seat = match.to_act()[0]
    other = (seat + 1) % 3
    assert ENGINE.explain_illegal(match.state, other, {"pass_ships": {}}).code == "not_your_turn"
    wrong = ENGINE.explain_illegal(match.state, seat, {"end_turn": {}})
    assert wrong.code == "wrong_kind_of_move" and "pass_ships" in wrong.message
    bad = ENGINE.explain_illegal(match.state, seat, {"buy_ship": {"ship": 99, "row": 0}})
    assert bad.code == "illegal_buy_ship"


def _round_five_blue_game(bruno_contracts: list[int], cards: list[str]) -> tuple[dict[str, Any], int, int]:
    """Round V of a 2-player game: Asha proved allegiance 2 (population 19); Bruno holds allegiance 7
    (four contracts) and has one worker turn left."""
    state = start(2, seed=8).state
    asha, bruno = state["first"], 1 - state["first"]
    state.update(round=5, phase="actions", stage="choose", turn=0, order=[asha, bruno, -1, asha])
    state["victory_cards"], state["victory_hidden"] = cards, []
    state["players"][asha].update(allegiance=2, population=19, allegiance_done=True, chest=True, pending=[])
    state["players"][bruno].update(allegiance=7, contracts=bruno_contracts, chest=True, pending=[])
    return state, asha, bruno


def test_two_players_the_game_ends_once_the_only_possible_governor_is_known() -> None:
    # Blue is the final colour, Asha has proven her allegiance, and Bruno cannot fulfil four
    # contracts with one worker left: the winner is known, so the game ends there.
    state, asha, _ = _round_five_blue_game([], ["blue", "red", "blue", "blue", "red"])
    events: list[dict[str, Any]] = []
    rounds.advance(state, Rng(1), events)
    assert state["phase"] == "over" and state["round"] == 5
    final = state["final"]
    assert final["decided_early"] and final["governors"] == [asha] and final["winners"] == [asha]
    assert events[-1] == {"game_over": final}
    assert ENGINE.result(state).winners == [asha]
    protojson.to_message("tea_rum", "State", ENGINE.view(state, None))


def test_two_players_the_game_goes_on_while_the_other_player_can_still_prove() -> None:
    # Three contracts already: one more with the last worker would prove Bruno's allegiance.
    state, asha, _ = _round_five_blue_game([1, 2, 3], ["blue", "red", "blue", "blue", "red"])
    rounds.advance(state, Rng(1), [])
    assert state["phase"] == "actions" and state["actor"] == asha
    # In a red game the Governor does not decide the winner at all.
    state, asha, _ = _round_five_blue_game([], ["blue", "red", "red", "blue", "red"])
    rounds.advance(state, Rng(1), [])
    assert state["phase"] == "actions" and state["final"] is None
