"""Content matches the rulebook's component counts; every Equipment ability and contract effect works."""

from __future__ import annotations

import pytest
from alubari_helpers import ENGINE, new_state, owned_estate_spaces, play, resolve_with

from services.alubari import contracts, railway, rondel
from services.alubari.content import (
    BOARD,
    CONTRACTS,
    CUBE_BOX,
    EQUIPMENT,
    ESTATE_CARDS,
    PRINTED_ESTATE,
    RONDEL,
    STATIONS,
    TOTAL_LEAVES,
    TOTAL_RUBBLE,
    TRACK,
)

# ---- component counts --------------------------------------------------------------------------------


def test_fifty_five_cards() -> None:
    areas = BOARD["action_areas"]
    total = len(CONTRACTS) + len(EQUIPMENT) + areas["overlay_cards"] + areas["extra_building_card_spaces"]
    assert total == 55
    backs = [card["weather"] for card in CONTRACTS.values()]
    assert {w: backs.count(w) for w in ("SUN", "RAIN", "FOG")} == {"SUN": 12, "RAIN": 12, "FOG": 12}
    assert CONTRACTS[27]["requirements"][0]["kind"] == "chai_bonus"
    assert CONTRACTS[28]["effect"]["kind"] == CONTRACTS[29]["effect"]["kind"] == "borrow"


def test_every_contract_effect_in_the_seeds_has_a_rule() -> None:
    kinds = {card["effect"]["kind"] for card in CONTRACTS.values()}
    assert kinds <= set(contracts.CONTRACT_EFFECTS), kinds - set(contracts.CONTRACT_EFFECTS)


def test_components() -> None:
    assert sum(CUBE_BOX.values()) == 131 == BOARD["components"]["cubes_total"]
    assert TOTAL_LEAVES == 48 + 19 * 5 and TOTAL_RUBBLE == 48 + 6 * 5
    assert len(ESTATE_CARDS) == 8 and all(len(card["sides"]) == 2 for card in ESTATE_CARDS)
    discs = sum(BOARD["components"]["weather_markers"].values()) + 3 + BOARD["components"]["rubble_five_discs"]
    assert discs == 18
    names = [s["name"] for s in STATIONS]
    assert names == ["Siliguri", "Sukna", "Rangtong", "Chunbhati", "Tindharia", "Gayabari", "Mahanadi",
                     "Kurseong", "Tung", "Sonada", "Ghum", "Darjeeling"]
    with_stations = [s["name"] for s in STATIONS[1:] if s["spaces"]]
    assert len(with_stations) == 10 and with_stations[-1] == "Darjeeling"  # "9+1"
    assert len(STATIONS[0]["spaces"]) == 5
    gayabari = STATIONS[names.index("Gayabari")]["spaces"]
    assert len(gayabari) == 4 and sum(1 for s in gayabari if "rubble" in s["cost"]) == 3
    assert TRACK[0]["river"] and TRACK[0]["from"] == "Siliguri"
    assert len(RONDEL) == 9 and {"EXCAVATE", "CROPS_GROW", "TRACK_IS_LAID", "STATION_BUILDING", "HARVEST",
                                 "EQUIPMENT_MAINTENANCE", "CLEAR_UP"} == {e["kind"] for e in RONDEL}


def test_every_item_has_a_provenance() -> None:
    items = [*CONTRACTS.values(), *EQUIPMENT.values(), *ESTATE_CARDS, PRINTED_ESTATE, *STATIONS, *RONDEL]
    assert all(item["provenance"] in ("rulebook", "designed") for item in items)
    for name, table in BOARD.items():
        parts = [table] if "provenance" in table else list(table.values())  # work_rates: one per track
        assert all(part["provenance"] in ("rulebook", "designed") for part in parts), name


def test_the_largest_game_fits_the_rubble() -> None:
    worst = sum(s["rubble"] for s in PRINTED_ESTATE["spaces"]) + sum(
        sorted(sum(sp["rubble"] for sp in side["spaces"]) for c in ESTATE_CARDS for side in c["sides"])[-6:]
    )
    assert worst < TOTAL_RUBBLE


def test_solo_clearups_keep_four_event_cubes_cycling() -> None:
    state = new_state(1)
    for _ in range(30):
        if state["bag"]["event"] == 0:
            pytest.fail("event cubes stuck on the rondel")
        state["bag"]["event"] -= 1
        rondel.place_event_cube(state, [])
    assert sum(state["rondel"]) + state["bag"]["event"] == 4


# ---- equipment abilities --------------------------------------------------------------------------------


def test_construction_work_gang_discounts_rubble_and_stone_spaces() -> None:
    state = new_state(3)
    state["players"][0]["equipment"] = [5]
    assert railway.station_cost(state, 0, 0, 1) == {}  # 2 rubble -> free
    assert railway.station_cost(state, 0, 0, 2) == {}  # 1 stone -> free
    assert railway.station_cost(state, 0, 0, 4) == {"iron_ore": 1}  # 1 iron + 1 stone
    assert railway.station_cost(state, 0, 0, 3) == {"steel": 1}
    assert railway.station_cost(state, 1, 0, 1) == {"rubble": 2}


def test_steam_excavator_and_platelayers_trolley_add_to_the_work_rate() -> None:
    state = new_state(1)
    state["players"][0].update({"equipment": [9, 10], "steel": 5})
    state["rates"].update({"excavation": 2, "lay_track": 2})
    resolve_with(state, {"B": [0], "D": [0]}, quiet=True)
    assert state["players"][0]["rubble"] == 3
    assert state["track"][:4] == [0, 0, 0, -1]


def test_blast_furnace_makes_steel_from_two_iron_ore() -> None:
    state = new_state(1)
    state["players"][0].update({"equipment": [11], "iron_ore": 2})
    resolve_with(state, {"C": [0]})
    play(state, 0, {"foundry": {"mini_action": "MAKE_STEEL", "stone_source": "NO_SOURCE"}})
    assert state["players"][0]["steel"] == 1 and state["players"][0]["iron_ore"] == 0


def test_east_india_company_warehouse_at_scoring() -> None:
    state = new_state(2)
    state["players"][0].update({"equipment": [4], "tea_leaves": 3, "contracts": [{"id": 19, "used": False}]})
    from services.alubari import rounds

    rounds.finish_game(state, [], "TEST")
    assert state["final"][0]["completed_contracts"] == [19]
    assert state["final"][0]["tea_leaves"] == 0.0


# ---- contract effects ----------------------------------------------------------------------------------------


def _hold(state: dict, seat: int, card: int) -> None:
    state["players"][seat]["contracts"].append({"id": card, "used": False})


@pytest.mark.parametrize(("card", "resource", "amount"), [(1, "steel", 1), (3, "rubble", 2), (6, "tea_leaves", 2),
                                                           (19, "chai", 2)])
def test_gain_effects(card: int, resource: str, amount: int) -> None:
    state = new_state(2)
    _hold(state, 0, card)
    contracts.play_contract(state, 0, card, [])
    assert state["players"][0][resource] == amount


def test_round_modifiers_last_until_the_end_of_the_round() -> None:
    state = new_state(2)
    for card in (2, 4, 7, 11):
        _hold(state, 0, card)
        contracts.play_contract(state, 0, card, [])
    mods = state["players"][0]["mods"]
    assert (mods["stockyard"], mods["excavation"], mods["foundry"], mods["lay_track"]) == (2, 2, 2, 1)
    resolve_with(state, {}, quiet=True)
    assert state["players"][0]["mods"]["stockyard"] == 0


def test_stockyard_plus_lets_the_worker_take_more_cubes() -> None:
    state = new_state(1)
    _hold(state, 0, 2)
    state["stockyard"] = {"iron_ore": 6, "stone": 0, "chai": 0}
    resolve_with(state, {"A": [0]})
    play(state, 0, {"play_contract": {"contract_id": 2}})
    for _ in range(5):
        play(state, 0, {"take_cube": {"cube": "IRON_ORE"}})
    assert state["players"][0]["iron_ore"] == 5 and state["worker"] is None


def _hold_only(state: dict, seat: int, card: int) -> None:
    """Give ``seat`` a contract taken out of the deck, so that no copy of it is anywhere else."""
    assert card not in state["post"]
    state["deck"].remove(card)
    _hold(state, seat, card)


def test_free_chai_bonus_is_the_players_choice_and_costs_no_chai() -> None:
    # Card 12 played in D: the worker there may take the chai bonus without any chai, if it wants.
    state = new_state(1)
    _hold(state, 0, 12)
    state["players"][0]["steel"] = 4
    state["rates"]["lay_track"] = 1
    resolve_with(state, {"D": [0]}, quiet=True)
    play(state, 0, {"play_contract": {"contract_id": 12}})
    assert state["stage"] == "WORKER" and ENGINE.view(state, 0)["worker"]["free_chai_bonus"]
    assert ENGINE.legal_moves(state, 0) == [{"chai_boost": {"use": True}}, {"chai_boost": {"use": False}}]
    events = play(state, 0, {"chai_boost": {"use": True}})
    assert {"chai_boost": {"seat": 0, "area": "D", "paid": False}} in events
    assert state["track"][:4] == [0, 0, 0, -1] and state["players"][0]["chai"] == 1  # +1 from the river


def test_free_chai_bonus_at_the_post_office_may_be_declined_worker_by_worker() -> None:
    # Card 16 gives the Post Office chai bonus for free this round.  The first worker wants a card
    # already in the line, so it takes it without refreshing; the second worker then refreshes the
    # line for free and takes one of the three new cards.
    state = new_state(3)
    _hold_only(state, 0, 16)
    line = list(state["post"])
    resolve_with(state, {"F": [0, 0]}, quiet=True)
    play(state, 0, {"play_contract": {"contract_id": 16}})
    play(state, 0, {"chai_boost": {"use": False}})
    assert state["post"] == line
    play(state, 0, {"take_contract": {"slot": 1}})
    assert state["post"] == [line[0], None, line[2]]
    top_three = list(reversed(state["deck"][-3:]))
    assert state["worker"]["space"] == 1 and state["worker"]["stage"] == "BOOST"
    play(state, 0, {"chai_boost": {"use": True}})
    assert state["post"] == top_three and state["players"][0]["chai"] == 0
    play(state, 0, {"take_contract": {"slot": 0}})
    held = [h["id"] for h in state["players"][0]["contracts"]]
    assert held == [16, line[1], top_three[0]]


def test_harvest_crop_plus_and_leaves_per_estate() -> None:
    state = new_state(2)
    owned_estate_spaces(state, 0, 2)
    state["rates"]["crop"] = 1
    for card in (21, 22, 18):
        _hold(state, 0, card)
    contracts.play_contract(state, 0, 21, [])
    assert state["players"][0]["tea_leaves"] == 2
    contracts.play_contract(state, 0, 22, [])
    assert state["rates"]["crop"] == 2
    contracts.play_contract(state, 0, 18, [])
    assert state["players"][0]["tea_leaves"] == 4


def test_contract_29_borrows_two_game_spaces() -> None:
    state = new_state(3)
    for space in state["estates"][1]["spaces"]:
        state["supply"]["rubble"] += space["rubble"]
        space.update({"rubble": 0, "owner": railway.GAME})
        state["supply"]["game_markers"] -= 1
    _hold(state, 1, 29)
    contracts.play_contract(state, 1, 29, [])
    borrowed = [s["borrower"] for s in state["estates"][1]["spaces"]]
    assert borrowed == [1, 1, -1] and state["players"][1]["markers"] == 17


def test_contracts_are_public() -> None:
    state = new_state(2)
    _hold(state, 0, 5)
    seen = ENGINE.view(state, 1)["player_states"][0]["contracts"]
    assert seen[0]["contract"]["id"] == 5 and not seen[0]["used"]


def test_garratt_chai_can_boost_a_later_worker_in_lay_track() -> None:
    state = new_state(3)
    state["track"][0] = railway.GAME  # skip the river so only the Garratt gives chai
    state["supply"]["game_markers"] -= 1
    state["players"][0].update({"equipment": [3], "steel": 8})
    state["rates"]["lay_track"] = 1
    resolve_with(state, {"D": [0, 0]}, quiet=True)
    assert state["track"][1] == 0 and state["players"][0]["chai"] == 1
    assert state["stage"] == "WORKER" and ENGINE.legal_moves(state, 0) == [
        {"chai_boost": {"use": True}}, {"chai_boost": {"use": False}}]
    play(state, 0, {"chai_boost": {"use": True}})
    assert state["track"][2:6] == [0, 0, 0, -1] and state["players"][0]["chai"] == 0


def test_excavate_event_without_game_markers_leaves_cleared_spaces_unowned() -> None:
    state = new_state(2)
    state["supply"]["game_markers"] = 0
    state["rates"]["excavation"] = 3
    rondel.game_excavates(state, 0, [])
    spaces = state["estates"][0]["spaces"]
    assert [s["rubble"] for s in spaces[:2]] == [0, 0] and [s["owner"] for s in spaces[:2]] == [-1, -1]
