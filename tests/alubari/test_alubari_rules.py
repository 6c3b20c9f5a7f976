"""The rulebooks' rules and worked examples, one scenario each."""

from __future__ import annotations

import pytest
from alubari_helpers import ENGINE, new_state, owned_estate_spaces, play, resolve_with

from services.alubari import contracts, railway, rounds, tracks
from services.alubari.content import CONTRACTS, TRACK
from services.common.rng import Rng

# ---- harvests and work-rate tracks ---------------------------------------------------------------


def test_harvest_example_half_rate_rounds_down_and_resets_the_marker() -> None:
    # Spanish edition: at rate 1/2 Blue with 3 estates gains 1 leaf, Red with 4 gains 2.
    state = new_state(2)
    owned_estate_spaces(state, 0, 3)
    for estate in state["estates"][1:]:
        for space in estate["spaces"][:1]:
            space["owner"] = 1
    owned = sum(1 for e in state["estates"] for s in e["spaces"] if s["owner"] == 1)
    assert owned == 2
    state["estates"][2]["spaces"][1]["owner"] = 1
    state["estates"][2]["spaces"][2]["owner"] = 1
    state["rates"]["crop"] = 0
    assert tracks.crop_value(state) == 0.5
    events: list = []
    tracks.tea_harvest(state, events, "HARVEST_EVENT")
    assert [p["tea_leaves"] for p in state["players"]] == [1, 2]
    assert state["rates"]["crop"] == tracks.CROP["start"]
    assert events[-1]["tea_harvest"]["leaves"] == [1, 2]


def test_excavation_above_five_stays_at_five_and_harvests() -> None:
    state = new_state(1)
    owned_estate_spaces(state, 0, 2)
    state["rates"]["excavation"] = 4
    state["rates"]["crop"] = 3  # rate 2
    events: list = []
    tracks.move_excavation(state, 2, events)
    assert state["rates"]["excavation"] == 5
    assert state["players"][0]["tea_leaves"] == 4
    assert state["rates"]["crop"] == tracks.CROP["start"]


def test_crop_track_end_harvests_at_the_last_two_then_resets() -> None:
    state = new_state(1)
    owned_estate_spaces(state, 0, 3)
    state["rates"]["crop"] = tracks.CROP_END - 1
    tracks.move_crop(state, 1, [])
    assert state["players"][0]["tea_leaves"] == 6
    assert state["rates"]["crop"] == tracks.CROP["start"]


def test_work_rates_ignore_moves_past_their_ends() -> None:
    state = new_state(1)
    state["rates"].update({"excavation": 2, "lay_track": 1, "crop": 0})
    tracks.move_excavation(state, -1, [])
    tracks.move_lay_track(state, -1, [])
    tracks.move_crop(state, -1, [])
    assert state["rates"] == {"excavation": 2, "lay_track": 1, "crop": 0}
    state["rates"]["lay_track"] = 4
    tracks.move_lay_track(state, 1, [])
    assert state["rates"]["lay_track"] == 4


def test_weather_shift_example() -> None:
    # Rulebook example: the bottom Sun disc leaves, Sun and Fog move down, the day is Sunny
    # (excavation +2, lay track +1) and the deck's top card shows Rain, which goes on top.
    state = new_state(3)
    state["weather"] = ["SUN", "SUN", "FOG"]
    state["weather_pool"] = {"SUN": 1, "RAIN": 3, "FOG": 2}
    rain = next(cid for cid, card in CONTRACTS.items() if card["weather"] == "RAIN" and cid not in state["post"])
    state["deck"].remove(rain)
    state["deck"].append(rain)
    state["rates"].update({"excavation": 2, "lay_track": 2})
    tracks.adjust_weather(state, [])
    assert state["weather"] == ["SUN", "FOG", "RAIN"]
    assert state["rates"]["excavation"] == 4 and state["rates"]["lay_track"] == 3
    assert state["weather_pool"] == {"SUN": 2, "RAIN": 2, "FOG": 2}


def test_rain_and_fog_weather_key() -> None:
    state = new_state(3)
    state["weather"] = [None, "RAIN", "FOG"]
    state["rates"].update({"excavation": 3, "lay_track": 2, "crop": 1})
    tracks.adjust_weather(state, [])
    assert state["rates"] == {"excavation": 2, "lay_track": 1, "crop": 2}
    assert not state["fog"]
    tracks.adjust_weather(state, [])
    assert state["rates"]["crop"] == 1 and state["fog"]


def test_fog_closes_the_last_space_of_excavation_and_lay_track() -> None:
    state = new_state(3)
    state["fog"] = True
    spaces = rounds.open_spaces(state)
    assert ("B", 2) not in spaces and ("D", 2) not in spaces
    assert ("B", 1) in spaces and ("A", 3) in spaces
    moves = ENGINE.legal_moves(state, state["current"])
    assert {"place_worker": {"area": "D", "space": 3}} not in moves


# ---- contracts and the post office ---------------------------------------------------------------


def test_contract_restock_discards_a_and_shifts_toward_a() -> None:
    # Rulebook example: card A is discarded, card B moves to the top, two cards fill the gaps below.
    state = new_state(3)
    a, b, _c = state["post"]
    state["post"][2] = None  # C was taken this round
    top_two = list(reversed(state["deck"][-2:]))
    contracts.restock_post(state, Rng(1), [])
    assert state["post"] == [b, *top_two]
    assert state["discard"] == [a]


def test_empty_deck_reshuffles_the_discard_pile() -> None:
    state = new_state(3)
    last = state["deck"][-1]
    state["discard"] = state["deck"][:-1] + [card for card in state["post"] if card is not None]
    state["deck"] = [last]
    state["post"] = [None, None, None]
    contracts.refill_post(state, Rng(2), [])
    assert state["post"][0] == last and all(card is not None for card in state["post"])
    assert state["discard"] == [] and len(state["deck"]) == 36 - 3
    assert sorted(state["deck"] + state["post"]) == sorted(CONTRACTS)


def test_post_office_chai_bonus_refreshes_the_line() -> None:
    state = new_state(1)
    state["players"][0]["chai"] = 2
    old = list(state["post"])
    top_three = list(reversed(state["deck"][-3:]))
    resolve_with(state, {"F": [0]})
    assert state["stage"] == "WORKER"
    play(state, 0, {"chai_boost": {"use": True}})
    assert state["post"] == top_three and state["discard"] == old
    play(state, 0, {"take_contract": {"slot": 1}})
    assert state["players"][0]["contracts"] == [{"id": top_three[1], "used": False}]
    assert state["players"][0]["chai"] == 1


def test_contract_window_before_the_area_and_once_per_game() -> None:
    state = new_state(2)
    lay_plus = 10  # Lay Track +2 this round, shows D
    state["players"][1]["contracts"] = [{"id": lay_plus, "used": False}]
    state["players"][1]["steel"] = 5
    resolve_with(state, {"D": [1]})
    assert state["stage"] == "CONTRACTS" and state["current"] == 1
    assert ENGINE.view(state, 0)["contract_window"]["area"] == "D"
    play(state, 1, {"play_contract": {"contract_id": lay_plus}})
    assert state["players"][1]["contracts"][0]["used"]
    # No unused contract for D is left, so the window closes by itself and D resolves.
    assert sum(1 for owner in state["track"] if owner == 1) == 4  # rate 2 + 2 from the contract


def test_a_seat_may_decline_to_use_its_contracts() -> None:
    state = new_state(2)
    state["players"][0]["contracts"] = [{"id": 1, "used": False}]
    resolve_with(state, {}, quiet=True)
    assert ENGINE.legal_moves(state, 0) == [{"play_contract": {"contract_id": 1}}, {"finish_contracts": {}}]
    play(state, 0, {"finish_contracts": {}})
    assert not state["players"][0]["contracts"][0]["used"]


def test_borrowed_game_estates_harvest_but_leave_before_scoring() -> None:
    state = new_state(1)
    state["estates"][0]["spaces"][0].update({"rubble": 0, "owner": railway.GAME})
    state["supply"]["game_markers"] -= 1
    state["supply"]["rubble"] += 1
    state["players"][0]["contracts"] = [{"id": 28, "used": False}]
    contracts.play_contract(state, 0, 28, [])
    assert state["estates"][0]["spaces"][0]["borrower"] == 0
    state["rates"]["crop"] = 3
    tracks.tea_harvest(state, [], "CONTRACT")
    assert state["players"][0]["tea_leaves"] == 2
    rounds.finish_game(state, [], "TEST")
    assert state["estates"][0]["spaces"][0]["borrower"] == -1
    assert state["final"][0]["estates"] == 0


# ---- the actions ----------------------------------------------------------------------------------


def test_stockyard_three_cubes_one_chai_and_the_starting_player_space() -> None:
    state = new_state(2)
    state["stockyard"] = {"iron_ore": 4, "stone": 1, "chai": 2}
    last = len(state["areas"]["A"]) - 1
    occupants = [-1] * last + [1]
    resolve_with(state, {"A": occupants})
    assert state["start_player"] == 1
    play(state, 1, {"take_cube": {"cube": "CHAI"}})
    moves = ENGINE.legal_moves(state, 1)
    assert {"take_cube": {"cube": "CHAI"}} not in moves  # one chai cube per worker
    # Now the worker has chai and could have boosted only before acting; it keeps taking.
    play(state, 1, {"take_cube": {"cube": "IRON_ORE"}})
    play(state, 1, {"take_cube": {"cube": "STONE"}})
    assert state["players"][1]["chai"] == 1 and state["players"][1]["iron_ore"] == 1
    assert state["players"][1]["stone"] == 1 and state["worker"] is None


def test_excavation_takes_the_work_rate_from_the_left_and_claims_cleared_spaces() -> None:
    state = new_state(1)
    first = [s["rubble"] for s in state["estates"][0]["spaces"]]  # Alubari: 1, 2, 3
    assert first == [1, 2, 3]
    state["rates"]["excavation"] = 3
    resolve_with(state, {"B": [0]}, quiet=True)
    spaces = state["estates"][0]["spaces"]
    assert [s["rubble"] for s in spaces] == [0, 0, 3]
    assert [s["owner"] for s in spaces[:2]] == [0, 0]
    assert state["players"][0]["rubble"] == 3 and state["players"][0]["markers"] == 17


def test_excavation_chai_bonus_adds_two() -> None:
    state = new_state(1)
    state["players"][0]["chai"] = 1
    state["rates"]["excavation"] = 2
    resolve_with(state, {"B": [0]})
    play(state, 0, {"chai_boost": {"use": True}})
    assert state["players"][0]["rubble"] == 4


def test_foundry_mini_actions() -> None:
    state = new_state(1)
    player = state["players"][0]
    player.update({"iron_ore": 6, "rubble": 2, "stone": 1})
    resolve_with(state, {"C": [0]})
    steel_before, bag_iron = state["supply"]["steel"], state["bag"]["iron_ore"]
    play(state, 0, {"foundry": {"mini_action": "MAKE_STEEL", "stone_source": "NO_SOURCE"}})
    assert player is state["players"][0]
    assert state["players"][0]["steel"] == 1 and state["supply"]["steel"] == steel_before - 1
    assert state["bag"]["iron_ore"] == bag_iron + 3
    play(state, 0, {"foundry": {"mini_action": "SMASH_STONE", "stone_source": "NO_SOURCE"}})
    assert state["players"][0]["rubble"] == 4 and state["players"][0]["stone"] == 0
    play(state, 0, {"foundry": {"mini_action": "MAKE_STONE", "stone_source": "FROM_BAG"}})
    assert state["players"][0]["stone"] == 1 and state["players"][0]["rubble"] == 2
    assert state["worker"] is None  # three mini-actions, then the worker is done


def test_lay_track_chai_bonus_is_two_above_the_work_rate() -> None:
    # Rulebook example: with the work rate at 2 a chai-boosted worker lays 4.
    state = new_state(1)
    state["rates"]["lay_track"] = 2
    state["players"][0].update({"steel": 6, "chai": 1})
    resolve_with(state, {"D": [0]})
    play(state, 0, {"chai_boost": {"use": True}})
    assert state["track"][:5] == [0, 0, 0, 0, -1]
    assert state["players"][0]["steel"] == 2


def test_river_space_gives_chai_and_opens_stations_up_to_the_next_river() -> None:
    state = new_state(3)
    assert railway.open_towns(state) == [0]  # only Siliguri at the start
    assert TRACK[0]["river"]
    state["players"][0]["steel"] = 1
    resolve_with(state, {"D": [0, -1, -1]})
    assert state["track"][0] == 0 and state["players"][0]["chai"] == 1
    names = [ENGINE.view(state, 0)["towns"][i]["name"] for i in railway.open_towns(state)]
    assert names == ["Siliguri", "Sukna", "Rangtong", "Chunbhati"]


def test_lay_track_must_use_the_full_rate_when_steel_allows() -> None:
    state = new_state(2)
    state["rates"]["lay_track"] = 3
    state["players"][0]["steel"] = 2
    resolve_with(state, {"D": [0]})
    assert state["track"][:3] == [0, 0, -1]


def test_building_a_station_pays_and_gives_the_bonus() -> None:
    state = new_state(3)
    state["players"][0]["rubble"] = 2
    resolve_with(state, {"E": [0]})
    moves = ENGINE.legal_moves(state, 0)
    assert moves == [{"build_station": {"town": "Siliguri", "space": 1}}]  # build is compulsory
    play(state, 0, moves[0])
    assert state["stations"][0][1] == 0 and state["players"][0]["chai"] == 1
    assert state["players"][0]["rubble"] == 0


def test_building_chai_bonus_allows_a_second_build() -> None:
    state = new_state(3)
    state["players"][0].update({"iron_ore": 2, "stone": 1, "chai": 1})
    state["shed"] = []
    resolve_with(state, {"E": [0]})
    play(state, 0, {"chai_boost": {"use": True}})
    play(state, 0, {"build_station": {"town": "Siliguri", "space": 0}})
    assert ENGINE.legal_moves(state, 0) == [{"build_station": {"town": "Siliguri", "space": 2}}, {"end_action": {}}]
    play(state, 0, {"build_station": {"town": "Siliguri", "space": 2}})
    assert state["stations"][0][:3] == [0, -1, 0] and state["worker"] is None


def test_buying_equipment_takes_its_chai() -> None:
    state = new_state(3)
    state["shed"] = [{"id": 2, "chai": 1}]  # The Toy Train, comes with chai
    state["box"]["chai"] -= 1
    state["players"][0]["iron_ore"] = 3
    resolve_with(state, {"E": [0]})
    play(state, 0, {"buy_equipment": {"equipment_id": 2}})
    assert state["players"][0]["equipment"] == [2] and state["players"][0]["chai"] == 1
    assert state["shed"] == []


def test_chaiwala_cannot_take_leaves_on_the_leftmost_space() -> None:
    state = new_state(1)
    state["rates"]["crop"] = 0
    state["players"][0]["tea_leaves"] = 2
    resolve_with(state, {"G": [0]})
    assert ENGINE.legal_moves(state, 0) == [{"chaiwala_convert": {"leaves": 1}}, {"chaiwala_convert": {"leaves": 2}}]
    play(state, 0, {"chaiwala_convert": {"leaves": 2}})
    assert state["players"][0]["chai"] == 2 and state["players"][0]["tea_leaves"] == 0


# The Withering Shed (equipment card 12) adds a leaf to what the crop rate gives.
@pytest.mark.parametrize(
    ("equipment", "crop", "leaves"),
    [pytest.param([], 3, 2, id="crop-rate"), pytest.param([12], 1, 2, id="withering-shed-adds-a-leaf")],
)
def test_chaiwala_takes_leaves_at_the_crop_rate(equipment: list[int], crop: int, leaves: int) -> None:
    state = new_state(1)
    state["players"][0]["equipment"] = equipment
    state["rates"]["crop"] = crop
    resolve_with(state, {"G": [0]})
    play(state, 0, {"chaiwala_take_leaves": {}})
    assert state["players"][0]["tea_leaves"] == leaves


# ---- workers, equipment and events -------------------------------------------------------------------


def test_temporary_worker_for_chai_or_the_shunters_rubble() -> None:
    state = new_state(2)
    state["players"][0].update({"equipment": [1], "chai": 1, "rubble": 2})
    rounds.begin_assignment(state, [])
    assert state["stage"] == "TEMP_WORKER" and state["current"] == 0
    moves = ENGINE.legal_moves(state, 0)
    assert {"temp_worker": {"payment": "PAY_CHAI"}} in moves and {"temp_worker": {"payment": "PAY_RUBBLE"}} in moves
    play(state, 0, {"temp_worker": {"payment": "PAY_RUBBLE"}})
    assert state["players"][0]["workers"] == 3 and state["players"][0]["rubble"] == 0
    assert state["stage"] == "PLACE"


def test_line_inspection_train_gives_the_third_worker_free_after_an_event() -> None:
    state = new_state(2)
    state["players"][1]["equipment"] = [8]
    state["events_this_round"] = 1
    rounds.begin_assignment(state, [])
    assert state["players"][1]["workers"] == 3 and state["players"][1]["temp"] == "IN_PLAY"


def test_toy_train_gives_a_leaf_to_a_worker_taking_the_stockyard_action() -> None:
    # The Toy Train's owner sends a worker to A; it takes a cube and one tea leaf comes with it.
    state = new_state(1)
    state["players"][0]["equipment"] = [2]
    state["stockyard"] = {"iron_ore": 1, "stone": 0, "chai": 0}
    resolve_with(state, {"A": [0]}, quiet=True)
    assert state["players"][0]["tea_leaves"] == 1
    play(state, 0, {"take_cube": {"cube": "IRON_ORE"}})
    assert state["players"][0]["iron_ore"] == 1 and state["players"][0]["tea_leaves"] == 1


def test_toy_train_gives_nothing_when_the_stockyard_is_empty() -> None:
    # An empty stockyard: the worker cannot take action A, its action is lost, and so is the leaf.
    state = new_state(1)
    state["players"][0]["equipment"] = [2]
    state["stockyard"] = {"iron_ore": 0, "stone": 0, "chai": 0}
    events = resolve_with(state, {"A": [0]}, quiet=True)
    assert {"action_lost": {"seat": 0, "area": "A", "space": 1}} in events
    assert state["players"][0]["tea_leaves"] == 0


def test_garratt_gives_a_chai_for_the_first_lay_of_the_round() -> None:
    state = new_state(1)
    state["players"][0].update({"equipment": [3], "steel": 2})
    state["track"][0] = railway.GAME  # so the lay is not on a river
    state["supply"]["game_markers"] -= 1
    resolve_with(state, {"D": [0]})
    assert state["players"][0]["chai"] == 1


def _maintenance_cube_drawn(state: dict, cubes: int = 1) -> list[dict]:
    """Phase 3 with ``cubes`` event cubes drawn, the first landing on 5 Equipment Maintenance."""
    state["bag"]["event"] -= cubes
    state["rondel_last"] = 3
    state["event_cubes_pending"] = cubes
    events: list[dict] = []
    rounds.place_event_cubes(state, events)
    return events


def test_maintenance_each_owner_pays_or_gives_up_each_equipment() -> None:
    # Seat 0 (starting player) has no iron ore for its Toy Train: it goes back to the Engine shed
    # unasked; its Very Reliable Train needs no maintenance.  Seat 1 holds the Line Inspection Train
    # and the Shunter: it pays one iron ore to keep the first, and gives up the second to keep its
    # rubble.
    state = new_state(2)
    state["shed"] = [e for e in state["shed"] if e["id"] not in (1, 2, 7, 8)]
    state["players"][0].update({"equipment": [2, 7], "iron_ore": 0})
    state["players"][1].update({"equipment": [8, 1], "iron_ore": 1, "rubble": 1})
    events = _maintenance_cube_drawn(state)
    assert {"maintenance": {"seat": 0, "equipment_id": 2, "paid": False}} in events
    assert state["players"][0]["equipment"] == [7]
    assert state["stage"] == "MAINTENANCE" and ENGINE.to_act(state) == [1]
    assert ENGINE.view(state, 0)["maintenance_due"] == [{"seat": 1, "equipment_id": 8}, {"seat": 1, "equipment_id": 1}]
    assert ENGINE.legal_moves(state, 1) == [{"maintain_equipment": {"equipment_id": 8, "pay": True}},
                                            {"maintain_equipment": {"equipment_id": 8, "pay": False}}]
    assert ENGINE.explain_illegal(state, 1, {"maintain_equipment": {"equipment_id": 1, "pay": True}}).code == "not_due"
    play(state, 1, {"maintain_equipment": {"equipment_id": 8, "pay": True}})
    assert state["players"][1]["iron_ore"] == 0 and state["stage"] == "MAINTENANCE"
    play(state, 1, {"maintain_equipment": {"equipment_id": 1, "pay": False}})
    assert state["players"][1]["equipment"] == [8] and state["players"][1]["rubble"] == 1
    assert {e["id"]: e["chai"] for e in state["shed"]}.keys() >= {1, 2}
    assert all(e["chai"] == 0 for e in state["shed"] if e["id"] in (1, 2))
    assert state["stage"] == "PLACE" and state["maintenance"] == []


def test_maintenance_may_give_up_equipment_the_owner_could_pay_for() -> None:
    state = new_state(2)
    state["shed"] = [e for e in state["shed"] if e["id"] != 2]
    state["players"][0].update({"equipment": [2], "iron_ore": 3})
    _maintenance_cube_drawn(state)
    play(state, 0, {"maintain_equipment": {"equipment_id": 2, "pay": False}})
    assert state["players"][0]["equipment"] == [] and state["players"][0]["iron_ore"] == 3
    assert any(e["id"] == 2 for e in state["shed"])


def test_later_event_cubes_wait_for_the_maintenance_decisions() -> None:
    # Two event cubes drawn: the second (6, Yard Clear-up) is placed only once maintenance is settled.
    state = new_state(2)
    state["shed"] = [e for e in state["shed"] if e["id"] != 2]
    state["players"][0].update({"equipment": [2], "iron_ore": 1})
    state["stockyard"] = {"iron_ore": 9, "stone": 0, "chai": 0}
    _maintenance_cube_drawn(state, cubes=2)
    assert state["stage"] == "MAINTENANCE" and not state["rondel"][5] and state["stockyard"]["iron_ore"] == 9
    events = play(state, 0, {"maintain_equipment": {"equipment_id": 2, "pay": True}})
    assert events[0] == {"maintenance": {"seat": 0, "equipment_id": 2, "paid": True}}
    assert {"event_resolved": {"space": 6, "kind": "CLEAR_UP"}} in events
    assert state["rondel"][5] and state["stockyard"]["iron_ore"] == 7 and state["stage"] == "PLACE"


def test_event_cubes_resolve_as_they_land_on_the_rondel() -> None:
    from services.alubari import rondel

    state = new_state(3)
    state["rates"]["lay_track"] = 2
    for _ in range(4):
        rondel.place_event_cube(state, [])
    # 1 Excavate, 2 Crops Grow, 3 Clear-up (returns 1 and 2), 4 Track is Laid
    assert state["rondel"][:4] == [False, False, True, True]
    assert state["track"][:3] == [-2, -2, -1]
    assert any(s["owner"] == railway.GAME for e in state["estates"] for s in e["spaces"])


def test_clear_up_trims_the_stockyard() -> None:
    from services.alubari import rondel

    state = new_state(3)
    state["stockyard"] = {"iron_ore": 10, "stone": 5, "chai": 3}
    rondel.clear_up(state, 2, [])
    assert state["stockyard"] == {"iron_ore": 7, "stone": 4, "chai": 1}


def test_track_is_laid_after_the_game_markers_run_out_still_lays_unmarked_track() -> None:
    # One game marker left and a Lay Track rate of 3: the event marks its first space with it and
    # lays the other two unmarked, so nobody holding all the steel can stop the railway.
    from services.alubari import rondel

    state = new_state(4)
    state["rates"]["lay_track"] = 3
    state["supply"]["game_markers"] = 1
    events: list[dict] = []
    rondel.track_is_laid(state, 3, events)
    assert state["track"][:4] == [railway.GAME, railway.UNMARKED, railway.UNMARKED, railway.NOBODY]
    assert state["supply"]["game_markers"] == 0 and railway.track_remaining(state) == len(TRACK) - 3
    assert events == [{"track_laid": {"owner": railway.GAME, "spaces": [0], "rivers": 1}},
                      {"track_laid": {"owner": railway.UNMARKED, "spaces": [1, 2], "rivers": 0}}]


def test_station_building_event_completes_the_nearest_town_above_siliguri() -> None:
    from services.alubari import rondel

    state = new_state(3)
    state["stations"][1][0] = 0
    rondel.station_building(state, 6, [])
    assert state["stations"][1] == [0, railway.GAME]
    rondel.station_building(state, 6, [])
    assert state["stations"][2] == [railway.GAME, railway.GAME]


def test_building_card_replaces_excavation_when_the_estates_are_clear() -> None:
    state = new_state(1)
    for estate in state["estates"]:
        for space in estate["spaces"]:
            state["supply"]["rubble"] += space["rubble"]
            space["rubble"] = 0
    resolve_with(state, {})
    assert state["building_card"] and len(state["areas"]["B"]) == 1
    assert ENGINE.view(state, 0)["areas"][1]["kind"] == "BUILDING"


# ---- endings ---------------------------------------------------------------------------------------


def test_railway_completed_ends_the_game_at_the_end_of_the_round() -> None:
    state = new_state(3)
    state["track"] = [railway.GAME] * (len(TRACK) - 1) + [railway.NOBODY]
    state["players"][2]["steel"] = 1
    resolve_with(state, {"D": [2]})
    assert state["stage"] == "OVER" and state["ending"]["reason"] == "RAILWAY_COMPLETE"
    assert ENGINE.result(state) is not None


def test_solo_game_ends_the_moment_the_last_marker_is_placed() -> None:
    state = new_state(1)
    state["players"][0].update({"markers": 1, "steel": 3})
    state["track"][0] = railway.GAME
    resolve_with(state, {"D": [0], "G": [0]})
    assert state["stage"] == "OVER" and state["ending"]["reason"] == "LAST_MARKER"
    assert state["track"][1] == 0 and state["track"][2] == railway.NOBODY


def _play_out_alone(state: dict, seat: int) -> None:
    """Let ``seat`` play to the end, checking nobody else is ever asked anything."""
    while state["stage"] != "OVER":
        assert ENGINE.to_act(state) == [seat]
        play(state, seat, ENGINE.legal_moves(state, seat)[-1])


def test_two_players_the_opponent_plays_one_more_round_alone_at_once() -> None:
    # Seat 0 lays track with its last marker in D.  That moment the round stops: seat 1's worker
    # waiting in G never takes its leaves, and seat 1's round alone begins straight away.
    state = new_state(2)
    state["players"][0].update({"markers": 1, "steel": 1})
    state["players"][1]["tea_leaves"] = 3
    state["track"][0] = railway.GAME
    events = resolve_with(state, {"D": [0], "G": [1]})
    kinds = [next(iter(event)) for event in events]
    assert kinds.index("track_laid") < kinds.index("final_round") < kinds.index("round_started")
    assert "chaiwala" not in kinds and state["players"][1]["tea_leaves"] == 3
    assert state["round"] == 2 and state["ending"]["extra_round_seat"] == 1
    assert state["stage"] in ("PLACE", "TEMP_WORKER", "MAINTENANCE")
    assert state["players"][0]["workers"] == 0 and state["players"][1]["workers"] == 2
    _play_out_alone(state, 1)
    assert state["ending"]["reason"] == "EXTRA_ROUND_PLAYED" and state["round"] == 2


def test_two_players_completing_the_railway_with_the_last_marker_still_gives_the_extra_round() -> None:
    state = new_state(2)
    state["track"] = [railway.GAME] * (len(TRACK) - 1) + [railway.NOBODY]
    state["players"][0].update({"markers": 1, "steel": 1})
    resolve_with(state, {"D": [0]})
    assert railway.track_remaining(state) == 0 and state["ending"]["extra_round_seat"] == 1
    _play_out_alone(state, 1)
    assert state["ending"]["reason"] == "EXTRA_ROUND_PLAYED"


# ---- setup and options -----------------------------------------------------------------------------


def test_setup_matches_the_rulebook() -> None:
    for players, slots, cubes, events in [(1, 3, 6, 4), (2, 3, 12, 5), (3, 4, 12, 5), (5, 6, 12, 5)]:
        state = new_state(players)
        assert len(state["estates"]) == slots and state["estates"][0]["name"] == "Alubari"
        assert sum(state["stockyard"].values()) == cubes and state["bag"]["event"] == events
        assert len(state["shed"]) == 7 and all(card is not None for card in state["post"])
        assert state["weather"][0] is None and state["weather"][1] and state["weather"][2]
        assert all(p["markers"] == 19 and p["workers"] == 2 and p["temp"] == "TEA_HOUSE" for p in state["players"])
        darjeeling = state["stations"][-1]
        assert darjeeling[1] == (railway.BLOCKED if players < 3 else railway.NOBODY)
    assert new_state(3)["chai_max"] == 13  # the last two chai spaces blocked with 3 players



def test_four_players_have_a_fourth_excavation_space() -> None:
    """Balance (seeds/alubari/README.md): with 3 Excavation spaces the fourth seat in turn order was shut out."""
    spaces = {players: len(new_state(players)["areas"]["B"]) for players in (2, 3, 4, 5)}
    assert spaces == {2: 2, 3: 3, 4: 4, 5: 4}
    state = new_state(4)
    for seat in range(3):  # the first three seats in turn order each put a worker in Excavation
        assert ENGINE.to_act(state) == [seat]
        play(state, seat, {"place_worker": {"area": "B", "space": seat + 1}})
    assert ENGINE.to_act(state) == [3]
    assert {"place_worker": {"area": "B", "space": 4}} in ENGINE.legal_moves(state, 3)

def test_covering_alubari_and_choosing_the_first_player() -> None:
    state = new_state(2, cover_alubari=True, first_player=1)
    assert state["estates"][0]["card"] != 0 and state["start_player"] == 1
    assert ENGINE.to_act(state) == [1]


def test_bad_options_are_refused_with_stable_codes() -> None:
    import pytest

    from services.common.engine import BadConfig

    with pytest.raises(BadConfig) as refused:
        ENGINE.validate_options(3, {"first_player": 3})
    assert refused.value.code == "bad_option_value"
    with pytest.raises(BadConfig) as refused:
        ENGINE.validate_options(6, {})
    assert refused.value.code == "bad_player_count"
    with pytest.raises(BadConfig) as refused:
        ENGINE.validate_options(2, {"expansion": True})
    assert refused.value.code == "unknown_option"


def test_the_player_sitting_out_the_extra_round_uses_no_contracts() -> None:
    state = new_state(2)
    state["players"][0].update({"sits_out": True, "contracts": [{"id": 1, "used": False}]})
    resolve_with(state, {"A": [1]}, quiet=True)
    assert state["current"] == 1 and not state["players"][0]["contracts"][0]["used"]
