"""Scenario tests of the rules: warehouse overflow, the 8th blue VP, people's wishes, rows."""

from __future__ import annotations

from tea_rum_helpers import (
    ENGINE,
    actor,
    at_worker_choice,
    give_action,
    moves_of,
    public_record,
    set_warehouse,
    start,
)

from services.common.rng import Rng
from services.common.runner import Match, Snapshot, check_move_is_illegal
from services.tea_rum import rounds
from services.tea_rum.content import CONTENT


def test_warehouse_overflow_expand_or_discard() -> None:
    match = start(4, seed=3)
    seat = actor(match)
    assert match.state["phase"] == "ships"
    set_warehouse(match, seat, wood=3, ore=3)
    match.state["players"][seat]["money"] = 3
    assert {"ship": 1, "row": 0} in moves_of(match, seat, "buy_ship")

    match.play(seat, {"buy_ship": {"ship": 1, "row": 0}})  # 2 wheat into a full warehouse of 6
    assert actor(match) == seat
    assert ENGINE.view(match.state, seat)["decision"]["kind"] == "overflow"
    # $1 left: only the three $1 tokens can be bought; any held type can be discarded.
    assert sorted(m["token"] for m in moves_of(match, seat, "expand_warehouse")) == [0, 1, 2]
    assert sorted(m["resource"] for m in moves_of(match, seat, "discard_resource")) == ["ore", "wheat", "wood"]
    check_move_is_illegal(match, seat, {"pass_ships": {}})

    match.play(seat, {"expand_warehouse": {"token": 0}})
    assert match.state["players"][seat]["money"] == 0
    assert ENGINE.view(match.state, seat)["decision"]["kind"] == "overflow"  # 8 in 7 spaces
    assert moves_of(match, seat, "expand_warehouse") == []  # no money: the excess is lost
    match.play(seat, {"discard_resource": {"resource": "wood"}})
    player = match.state["players"][seat]
    assert player["res"] == {"wheat": 2, "wood": 2, "ore": 3, "barrel": 0, "tobacco": 0, "cannon": 0}
    assert actor(match) != seat  # the ship phase moves on


def _give_contract(match, seat: int) -> None:  # type: ignore[no-untyped-def]
    match.state["contracts"][0] = 1  # 1 barrel + 1 wheat: 3 blue or 2 red
    set_warehouse(match, seat, barrel=1, wheat=1)
    give_action(match, seat, "contract")


def test_eighth_blue_vp_closes_the_chest_and_asks_for_an_allegiance() -> None:
    match = at_worker_choice(3, seed=5)
    seat = actor(match)
    other = (seat + 1) % 3
    match.state["players"][seat]["blue"] = 6
    match.state["players"][seat]["red"] = 2
    _give_contract(match, seat)
    bonus = CONTENT.rules["contract_spaces"]["23"][0]
    events = match.play(seat, {"fulfill_contract": {"space": 0, "colour": "blue"}})
    assert {"chest_closed": {"seat": seat}} in events
    player = match.state["players"][seat]
    assert player["chest"] and player["blue"] == 9
    # The allegiance comes at once, before the rest of the contract's bonus.
    offered = sorted(m["allegiance"] for m in moves_of(match, seat, "take_allegiance"))
    assert offered == sorted(a["id"] for a in match.state["allegiances"])
    choice = offered[0]
    red_before = player["red"]
    events = match.play(seat, {"take_allegiance": {"allegiance": choice}})
    player = match.state["players"][seat]
    assert player["allegiance"] == choice
    assert player["red"] >= red_before + CONTENT.allegiances[choice]["red"]
    assert bonus  # the space bonus (a star on the 2-3 board) resolves after the allegiance
    # From now on the VP are in the chest: only the owner sees them.
    mine = ENGINE.view(match.state, seat)["players"][seat]
    theirs = ENGINE.view(match.state, other)["players"][seat]
    spectator = ENGINE.view(match.state, None)["players"][seat]
    assert (mine["blue_vp"], mine["red_vp"]) == (player["blue"], player["red"]) and not mine["vp_hidden"]
    assert theirs["vp_hidden"] and theirs["blue_vp"] == theirs["red_vp"] == 0
    assert spectator == theirs
    secret = [e for e in events if "vp_gained" in e]
    assert secret and all(e["vp_gained"]["secret"] for e in secret)
    assert all(ENGINE.event_view(e, other)["vp_gained"]["amount"] == 0 for e in secret)
    assert all(ENGINE.event_view(e, seat) == e for e in secret)


def test_seven_blue_vp_stay_public() -> None:
    match = at_worker_choice(3, seed=5)
    seat = actor(match)
    match.state["players"][seat]["blue"] = 3
    match.state["players"][seat]["reputation"] = 0
    _give_contract(match, seat)
    match.play(seat, {"fulfill_contract": {"space": 0, "colour": "blue"}})
    assert not match.state["players"][seat]["chest"]
    assert ENGINE.view(match.state, (seat + 1) % 3)["players"][seat]["blue_vp"] == 6


def test_wish_ties_and_zero_totals() -> None:
    assert rounds.wish_ranking([3, 3, 1]) == ([0, 1], [])  # tie for first: no second place
    assert rounds.wish_ranking([3, 1, 1, 0]) == ([0], [1, 2])  # tie for second: both rewarded
    assert rounds.wish_ranking([2, 0, 0]) == ([0], [])  # a total of 0 is never rewarded
    assert rounds.wish_ranking([0, 0, 0, 0]) == ([], [])
    assert rounds.wish_ranking([1, 4, 2]) == ([1], [2])


def test_two_players_reach_eight_blue_on_a_wish_and_choose_in_turn_order() -> None:
    match = at_worker_choice(3, seed=9)
    state = match.state
    first = state["first"]
    second, third = (first + 1) % 3, (first + 2) % 3
    state["rounds"][0] = {"wish": 1, "side": "blue"}  # hygiene; round I pays 3 / 1
    for seat in (second, third):
        state["players"][seat]["buildings"] = ["bathhouse"]  # 2 hygiene each: a tie for first
        state["players"][seat]["blue"] = 5
    state["players"][first]["buildings"] = ["washhouse"]  # 1 hygiene: no second place after a tie
    state["phase"], state["actor"] = "wishes", -1
    events: list = []
    rounds.advance(state, Rng(1), events)
    scored = next(e["wishes_scored"] for e in events if "wishes_scored" in e)
    assert sorted(scored["first"]) == sorted([second, third]) and scored["second"] == []
    assert state["players"][first]["blue"] == 0 or state["players"][first]["blue"] < 8
    # Both closed their chest; the one earlier in turn order picks an allegiance first.
    assert actor(match) == second
    pick = moves_of(match, second, "take_allegiance")[0]["allegiance"]
    match.play(second, {"take_allegiance": {"allegiance": pick}})
    assert actor(match) == third
    assert {"allegiance": pick} not in moves_of(match, third, "take_allegiance")


def test_odd_rounds_remove_workers_and_use_the_count_before_removing() -> None:
    match = at_worker_choice(4, seed=2)
    seat = actor(match)
    assert len(match.state["boards"][0]["workers"]) == 4
    events = match.play(seat, {"worker_action": {"board": "governor", "option": 0, "alternative": True}})
    moved = next(e["worker_moved"] for e in events if "worker_moved" in e)
    assert moved == {"seat": seat, "board": "governor", "row": 4, "placed": False}
    assert match.state["boards"][0]["workers"].count(seat) == 0


def test_a_seat_cannot_remove_from_a_board_where_it_has_no_worker() -> None:
    match = at_worker_choice(3, seed=2)
    seat = actor(match)
    match.state["boards"][1]["workers"] = [w for w in match.state["boards"][1]["workers"] if w != seat]
    boards = {m["board"] for m in moves_of(match, seat, "worker_action")}
    assert "harbour" not in boards
    check_move_is_illegal(match, seat, {"worker_action": {"board": "harbour", "option": 0, "alternative": True}})


def test_never_the_same_building_twice() -> None:
    match = at_worker_choice(2, seed=4)
    seat = actor(match)
    set_warehouse(match, seat, ore=6)
    match.state["players"][seat]["buildings"] = ["statue"]
    give_action(match, seat, "build")
    assert all(m["building"] != "statue" for m in moves_of(match, seat, "build"))
    assert any(m["building"] == "well" for m in moves_of(match, seat, "build"))


def test_captain_activation_pays_cannons_and_is_not_an_action() -> None:
    match = at_worker_choice(3, seed=6)
    seat = actor(match)
    player = match.state["players"][seat]
    player["captains"] = [{"id": 1, "face_up": True}]
    set_warehouse(match, seat, cannon=1)
    blue = player["blue"]
    match.play(seat, {"activate_captain": {"captain": 1}})
    player = match.state["players"][seat]
    assert player["blue"] == blue + 2 and player["res"]["cannon"] == 0
    assert player["captains"] == [{"id": 1, "face_up": False}]
    assert actor(match) == seat and match.state["stage"] == "choose"  # still to take the action


def _closed_chest(seed: int) -> tuple[Match, int]:
    """A player whose chest is closed, at a worker decision."""
    match = at_worker_choice(3, seed=seed)
    seat = actor(match)
    player = match.state["players"][seat]
    player.update(chest=True, allegiance=1, blue=12, red=5)
    return match, seat


def _same_for_others(match: Match, seat: int, moves: list[dict]) -> None:
    """Each move, made from the same position, looks the same to a spectator and another seat."""
    others = (None, (seat + 1) % 3)
    records, own = [], []
    for move in moves:
        twin = Match(ENGINE, Snapshot.from_json(match.snapshot.to_json()))
        records.append(public_record(twin, [(seat, move)], viewers=others))
        own.append(ENGINE.view(twin.state, seat)["players"][seat])
    assert own[0] != own[1]  # the owner sees what was chosen
    assert records[0] == records[1]


def test_secret_choices_after_the_chest_closed_are_one_move_each_whatever_was_chosen() -> None:
    # A "/" between 2 blue and 2 red (reputation step 8), once the VP go into the chest.
    match, seat = _closed_chest(seed=5)
    blue_or_red = CONTENT.reputation[8][0]["options"]
    match.state["players"][seat]["pending"].insert(0, {"task": "choose", "options": blue_or_red})
    _same_for_others(match, seat, [{"choose_option": {"option": 0}}, {"choose_option": {"option": 1}}])
    # A contract's colour: 3 blue or 2 red.
    match, seat = _closed_chest(seed=5)
    _give_contract(match, seat)
    _same_for_others(match, seat, [{"fulfill_contract": {"space": 0, "colour": c}} for c in ("blue", "red")])
