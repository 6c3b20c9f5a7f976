"""Setup per player count and the phases of a round."""

from __future__ import annotations

import pytest
from tea_rum_helpers import ENGINE, actor, at_worker_choice, give_action, moves_of, pass_ships, set_warehouse, start

from services.common.engine import RandomBot
from services.common.rng import Rng
from services.tea_rum import rounds
from services.tea_rum.content import CONTENT


@pytest.mark.parametrize(
    ("players", "types", "copies", "captains", "spaces", "allegiances", "ships"),
    [(2, 25, 1, 3, 4, 4, 5), (3, 20, 2, 3, 4, 4, 7), (4, 20, 3, 4, 5, 5, 9)],
)
def test_setup_per_player_count(
    players: int, types: int, copies: int, captains: int, spaces: int, allegiances: int, ships: int
) -> None:
    state = start(players, seed=21).state
    assert len(state["buildings"]) == types and set(state["buildings"].values()) == {copies}
    colours = [CONTENT.buildings[b]["colour"] for b in state["buildings"]]
    assert all(colours.count(c) == (5 if players == 2 else 4) for c in set(colours))
    removed = ENGINE.view(state, None)["removed_buildings"]
    assert len(removed) == 25 - types and not set(removed) & set(state["buildings"])
    assert len(state["captains"]) == captains and all(CONTENT.captains[c]["round"] == 1 for c in state["captains"])
    assert len(state["captain_deck"]) == 4 * captains
    assert [CONTENT.captains[c]["round"] for c in state["captain_deck"]] == sorted(
        CONTENT.captains[c]["round"] for c in state["captain_deck"]
    )
    assert len(state["contracts"]) == spaces and len(state["contract_deck"]) == 18 - spaces
    assert len(state["allegiances"]) == allegiances
    assert len(state["ships"]) == ships
    money_at_setup = [p["money"] - p["population"] for p in state["players"]]
    assert state["first"] == money_at_setup.index(min(money_at_setup))
    workers = [*range(players), *([-1] if players == 2 else [])]
    for board in state["boards"]:
        assert sorted(board["workers"]) == sorted(workers)
        if players < 4:
            assert CONTENT.tiles[board["tiles"][3]]["two_three"] is None  # blank face on the top row
    if players == 2:
        assert state["label_a"] == state["first"]
        assert len(state["victory_hidden"]) == 4 and len(state["victory_cards"]) == 1


def test_income_is_the_population_level_plus_buildings() -> None:
    match = start(3, seed=2)
    state = match.state
    for p in state["players"]:
        assert p["money"] >= 10  # round I income
    pass_ships(match)
    state = match.state
    seat = state["first"]
    state["players"][seat]["buildings"] = ["church", "distillery"]
    state["players"][seat]["population"] = 12
    money = state["players"][seat]["money"]
    barrels = state["players"][seat]["res"]["barrel"]
    state["phase"] = "end_round"
    state["actor"] = -1
    rounds.advance(state, Rng(3), [])
    assert state["round"] == 2
    player = state["players"][seat]
    assert player["money"] == money + 12 + 3
    assert player["res"]["barrel"] == barrels + 1


def test_end_of_round_shifts_contracts_right_and_adds_captains() -> None:
    match = at_worker_choice(3, seed=8)
    state = match.state
    state["contracts"] = [0, 5, 0, 7]
    deck_top = state["contract_deck"][:2]
    next_captains = state["captain_deck"][:3]
    first = state["first"]
    state["phase"], state["actor"] = "end_round", -1
    events: list = []
    rounds.advance(state, Rng(4), events)
    assert state["contracts"] == [*deck_top, 5, 7]
    assert state["captains"][-3:] == next_captains
    assert state["first"] == (first + 1) % 3
    assert all(CONTENT.captains[c]["round"] == 2 for c in next_captains)


def test_even_rounds_place_workers_using_the_count_after_placing() -> None:
    match = at_worker_choice(3, seed=8)
    state = match.state
    state["round"] = 2
    seat = actor(match)
    for board in state["boards"]:
        board["workers"] = []
    state["boards"][0]["workers"] = [seat, 0, 1]  # full at 3
    boards = {m["board"] for m in moves_of(match, seat, "worker_action")}
    assert "governor" not in boards
    events = match.play(seat, {"worker_action": {"board": "tavern", "option": 0, "alternative": True}})
    moved = next(e["worker_moved"] for e in events if "worker_moved" in e)
    assert moved["row"] == 1 and moved["placed"]


def test_the_reputation_track_resolves_each_step_in_order() -> None:
    match = at_worker_choice(4, seed=1)
    seat = actor(match)
    player = match.state["players"][seat]
    player["reputation"] = 3
    player["pending"] = [{"task": "gain", "gain": {"kind": "stars", "amount": 2, "options": []}}]
    red = player["red"]
    events: list = []
    rounds.advance(match.state, Rng(1), events)
    # Step 4 is a wood/ore choice; the move to step 5 (1 red) waits until it is made.
    assert match.state["players"][seat]["reputation"] == 4
    assert match.state["players"][seat]["red"] == red
    assert sorted(m["option"] for m in moves_of(match, seat, "choose_option")) == [0, 1]
    match.play(seat, {"choose_option": {"option": 1}})
    assert match.state["players"][seat]["reputation"] == 5
    assert match.state["players"][seat]["red"] == red + 1


def test_contract_gives_the_chosen_colour_and_the_space_bonus() -> None:
    match = at_worker_choice(4, seed=12)
    seat = actor(match)
    match.state["contracts"][2] = 4  # 2 barrels: 4 blue or 3 red; space 2 adds 1 blue on the 4p board
    set_warehouse(match, seat, barrel=2)
    give_action(match, seat, "contract")
    player = match.state["players"][seat]
    blue, red = player["blue"], player["red"]
    match.play(seat, {"fulfill_contract": {"space": 2, "colour": "red"}})
    player = match.state["players"][seat]
    assert (player["blue"], player["red"]) == (blue + 1, red + 3)
    assert player["contracts"] == [4] and match.state["contracts"][2] == 0
    assert player["res"]["barrel"] == 0


def test_palace_pays_a_blue_vp_on_the_governor_board() -> None:
    match = at_worker_choice(3, seed=12)
    seat = actor(match)
    match.state["players"][seat]["buildings"] = ["palace"]
    blue = match.state["players"][seat]["blue"]
    match.state["players"][seat]["reputation"] = 0
    match.play(seat, {"worker_action": {"board": "governor", "option": 0, "alternative": True}})
    assert match.state["players"][seat]["blue"] == blue + 1


def test_a_lasting_allegiance_flips_when_met_and_a_paying_one_is_paid_at_the_end() -> None:
    match = at_worker_choice(3, seed=13)
    seat = actor(match)
    player = match.state["players"][seat]
    player["allegiance"] = 7  # four contracts
    player["contracts"] = [1, 2, 3]
    match.state["contracts"][0] = 1
    set_warehouse(match, seat, barrel=1, wheat=1)
    give_action(match, seat, "contract")
    events = match.play(seat, {"fulfill_contract": {"space": 0, "colour": "red"}})
    assert {"allegiance_fulfilled": {"seat": seat, "allegiance": 7}} in events
    assert match.state["players"][seat]["allegiance_done"]

    state = match.state
    state["phase"], state["stage"], state["actor"] = "final", "captains", -1
    for p in state["players"]:
        p["pending"] = []
    payer = state["first"]
    state["players"][payer].update(allegiance=9, allegiance_done=False, money=25)
    rounds.advance(state, Rng(2), [])
    assert actor(match) == payer
    assert {"prove_allegiance": {}} in ENGINE.legal_moves(state, payer)
    match.play(payer, {"prove_allegiance": {}})
    assert match.state["players"][payer]["allegiance_done"]
    assert match.state["players"][payer]["money"] == 5


def test_the_automa_moves_inside_apply_in_two_player_games() -> None:
    match = at_worker_choice(2, seed=5)
    order = match.state["order"]
    assert order.count(-1) == 4 and len(order) == 12
    automa_workers = sum(b["workers"].count(-1) for b in match.state["boards"])
    seen_automa = False
    step = 0
    while match.state["phase"] == "actions" and match.state["round"] == 1:
        seat = actor(match)
        assert seat in (0, 1)  # the automa is never asked
        move = match.bot_move(RandomBot(), seat, step)
        events = match.play(seat, move)
        seen_automa |= any(e.get("worker_moved", {}).get("seat") == -1 for e in events)
        step += 1
        assert step < 200
    assert seen_automa
    assert automa_workers == 4
    assert sum(b["workers"].count(-1) for b in match.state["boards"]) == 0  # round I removes them all
    view = ENGINE.view(match.state, 0)
    assert "bag" not in view["automa"] and view["automa"]["tokens_left"] >= 0


def test_two_player_victory_type_is_revealed_round_by_round() -> None:
    match = start(2, seed=30)
    view = ENGINE.view(match.state, 0)
    revealed = [r["victory_type"] for r in view["rounds"]]
    assert revealed[0] in ("blue", "red") and revealed[1:] == ["", "", "", ""]
    assert view["automa"]["victory_cards_face_down"] == 4


def test_ships_are_bought_one_at_a_time_clockwise_until_everyone_passes() -> None:
    match = start(3, seed=2)
    state = match.state
    first = state["first"]
    second, third = (first + 1) % 3, (first + 2) % 3
    for seat in range(3):
        set_warehouse(match, seat)
        state["players"][seat]["money"] = 30
    ship = state["ships"][0]["id"]
    assert actor(match) == first
    match.play(first, {"buy_ship": {"ship": ship, "row": 0}})
    assert match.state["players"][first]["money"] == 30 - CONTENT.ships[ship]["cost"]
    # The turn moves on after one ship, and a taken ship is no longer offered.
    assert actor(match) == second
    assert all(m["ship"] != ship for m in moves_of(match, second, "buy_ship"))
    match.play(second, {"pass_ships": {}})
    match.play(third, {"pass_ships": {}})
    # The first player may buy again; those who passed are out of the phase.
    assert actor(match) == first and moves_of(match, first, "buy_ship")
    match.play(first, {"pass_ships": {}})
    assert match.state["phase"] == "actions"
