"""The rulebook's rules and worked examples, one scenario each (India, unless said otherwise).

India's grid (T tile space, C city, . outside):

    0 .TTTTTTT.
    1 TTTTTTTTT
    2 TTTCTTTTT
    3 .TTTTTCTT
    4 .TTTTTTT.
    5 ..TTCTT..
    6 ..TTTT...
    7 ...TT....
"""

from __future__ import annotations

import pytest
from darjeeling_helpers import (
    ENGINE,
    check_conservation,
    kinds,
    new_state,
    place,
    play,
    set_hand,
    set_tile,
    started,
    tile_id,
)

from services.common.engine import BadConfig
from services.common.rng import Rng
from services.darjeeling.board import REGIONS
from services.darjeeling.content import SHIPPING_CRATES

INDIA = REGIONS["india"]
TWO = [(0, 1, "SOUTH"), (7, 3, "NORTH")]


def lay_out(variety: str, one: int = 0, two: int = 0, three: int = 0) -> dict:
    return {"lay_out": {"variety": variety, "one_half": one, "two_halves": two, "three_halves": three}}


def to_load_phase(state: dict, move: dict | None = None) -> None:
    """Play phase II for the seat to act (the first legal move unless one is given)."""
    seat = state["current"]
    play(state, move or ENGINE.legal_moves(state, seat)[0])
    if state["phase"] == "ACTION_TILE":
        play(state, {"take_action_tile": {}})
    assert state["phase"] == "LOAD"


# ---- setup and starting positions ---------------------------------------------------


def test_setup_fills_region_and_wharf() -> None:
    state = new_state(players=4, region="china")
    region = REGIONS["china"]
    on_board = [t for t in state["spaces"] if t >= 0]
    assert len(on_board) == len(region.tile_spaces) == 57
    assert len(state["bag"]) == 112 - 57
    assert len(region.cities) == 3
    view = ENGINE.view(state, None)
    assert [ship["multiplier"] for ship in view["ships"]] == [1, 1, 2, 2, 3, 3]
    assert view["water_tiles"] == 1
    assert sorted(state["chute"]) == sorted(["BLACK", "GREEN", "WHITE", "RED"] * 2)
    assert len(state["action_supply"]) == 10
    check_conservation(state)


@pytest.mark.parametrize(("players", "region", "ships"), [(2, "sri_lanka", 3), (3, "sri_lanka", 4), (4, "china", 6)])
def test_default_region_and_ships_by_player_count(players: int, region: str, ships: int) -> None:
    options = ENGINE.validate_options(players, {})
    assert options == {"region": "", "start_player": -1}
    from services.common.engine import GameConfig

    state = ENGINE.setup(GameConfig(players=players, options=options), Rng(1))
    assert state["region"] == region
    assert len(state["ships"]) == ships
    assert ENGINE.view(state, None)["water_tiles"] == 7 - ships


def test_five_players_default_to_china_with_seven_ships() -> None:
    state = new_state(players=5, region="")
    assert state["region"] == "china"
    view = ENGINE.view(state, None)
    assert [ship["multiplier"] for ship in view["ships"]] == [1, 1, 2, 2, 2, 3, 3]
    assert view["water_tiles"] == 0


def test_unknown_region_is_refused() -> None:
    with pytest.raises(BadConfig) as refusal:
        ENGINE.validate_options(3, {"region": "nepal"})
    assert refusal.value.code == "bad_region"
    with pytest.raises(BadConfig) as refusal:
        ENGINE.validate_options(6, {})
    assert refusal.value.code == "bad_player_count"


def test_start_only_on_border_tiles_facing_inward() -> None:
    state = new_state(players=2)
    starts = {(m["choose_start"]["row"], m["choose_start"]["col"]) for m in ENGINE.legal_moves(state, 0)}
    assert (0, 1) in starts and (1, 0) in starts
    # Enclosed on all four sides: never a start.
    assert (2, 2) not in starts and (4, 4) not in starts
    facings = {m["choose_start"]["facing"] for m in ENGINE.legal_moves(state, 0) if m["choose_start"]["row"] == 0}
    assert "NORTH" not in facings
    refusal = ENGINE.explain_illegal(state, 0, {"choose_start": {"row": 2, "col": 2, "facing": "NORTH"}})
    assert refusal.code == "not_on_border"
    refusal = ENGINE.explain_illegal(state, 0, {"choose_start": {"row": 0, "col": 1, "facing": "NORTH"}})
    assert refusal.code == "bad_facing"


def test_start_never_faces_straight_into_a_city() -> None:
    # Sri Lanka (6, 6) is on the east and south edges; west of it is a city, north a tile.
    state = new_state(players=2, region="sri_lanka")
    facings = {
        m["choose_start"]["facing"]
        for m in ENGINE.legal_moves(state, 0)
        if (m["choose_start"]["row"], m["choose_start"]["col"]) == (6, 6)
    }
    assert facings == {"NORTH"}
    # China (1, 2) has only the north edge, and south of it is a city: no start there.
    china = new_state(players=2, region="china")
    assert all((m["choose_start"]["row"], m["choose_start"]["col"]) != (1, 2) for m in ENGINE.legal_moves(china, 0))
    refusal = ENGINE.explain_illegal(china, 0, {"choose_start": {"row": 1, "col": 2, "facing": "SOUTH"}})
    assert refusal.code == "not_on_border"


def test_starting_positions_load_next_lowest_ship_and_take_tile() -> None:
    state = new_state(players=3)
    three = tile_id("RED", 3)
    set_tile(state, 0, 1, three)
    first = play(state, {"choose_start": {"row": 0, "col": 1, "facing": "SOUTH"}})
    assert first[0]["start_chosen"]["ship"] == 0
    assert first[1]["tile_taken"]["action_tile_offered"] is True, "three halves: an action tile may be taken"
    assert state["seats"][0]["tiles"] == [three]
    assert ENGINE.legal_moves(state, 0) == [{"take_action_tile": {}}, {"decline_action_tile": {}}]
    taken = play(state, {"take_action_tile": {}})
    assert taken == [{"action_tile_taken": {"seat": 0, "action_tile_count": 1, "action_supply": 9}}]
    assert len(state["seats"][0]["actions"]) == 1
    assert state["spaces"][INDIA.index(0, 1)] == -1, "no refill at the start"
    assert state["current"] == 1 and state["phase"] == "START_POSITIONS"
    play(state, {"choose_start": {"row": 7, "col": 3, "facing": "NORTH"}})
    play(state, {"choose_start": {"row": 1, "col": 0, "facing": "EAST"}})
    assert state["ships"] == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]]
    assert all(p["supply"] == SHIPPING_CRATES - 1 for p in state["seats"])
    # The start player now begins with phase I: one crate on the x1 ship.
    assert state["current"] == 0 and state["phase"] == "MOVE"
    assert state["seats"][0]["score"] == 1
    check_conservation(state)


def test_the_agreed_start_player_places_first_and_takes_the_first_turn() -> None:
    # Three players agree that seat 2 starts: seat 2 loads the lowest ship and chooses first,
    # then play goes to the left (seat 0, then seat 1), and seat 2 takes the first turn.
    state = new_state(players=3, start_player=2)
    assert ENGINE.to_act(state) == [2] and ENGINE.view(state, None)["start_player"] == 2
    assert ENGINE.legal_moves(state, 0) == []
    first = play(state, {"choose_start": {"row": 0, "col": 1, "facing": "SOUTH"}})
    assert first[0]["start_chosen"] == {"seat": 2, "row": 0, "col": 1, "facing": "SOUTH", "ship": 0}
    assert state["current"] == 0
    play(state, {"choose_start": {"row": 7, "col": 3, "facing": "NORTH"}})
    assert state["current"] == 1
    play(state, {"choose_start": {"row": 1, "col": 0, "facing": "EAST"}})
    assert state["ships"] == [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]]
    assert state["current"] == 2 and state["phase"] == "MOVE" and state["turn_number"] == 1
    assert state["seats"][2]["score"] == 1, "phase I of the first turn: one crate on the x1 ship"


def test_without_an_agreement_the_seed_draws_the_start_player() -> None:
    options = ENGINE.validate_options(4, {})
    assert options["start_player"] == -1
    from services.common.engine import GameConfig

    config = GameConfig(players=4, options=options)
    drawn = {seed: ENGINE.setup(config, Rng(seed))["start_player"] for seed in range(40)}
    assert set(drawn.values()) == {0, 1, 2, 3}, "every seat can be drawn"
    again = ENGINE.setup(config, Rng(7))
    assert again["start_player"] == drawn[7] and again["current"] == drawn[7], "the same seed, the same start player"


@pytest.mark.parametrize("start", [4, -2, True, "1"])
def test_a_start_player_that_is_not_a_seat_is_refused(start: object) -> None:
    with pytest.raises(BadConfig) as refusal:
        ENGINE.validate_options(4, {"start_player": start})
    assert refusal.value.code == "bad_start_player"


# ---- phase I ---------------------------------------------------------------------------


def test_phase_one_scores_each_ship_separately() -> None:
    state = started(TWO)
    to_load_phase(state)
    state["ships"] = [[0, 1], [2, 0], [1, 3]]  # multipliers 1, 2, 3
    state["seats"][1]["supply"] = SHIPPING_CRATES - 4
    state["seats"][0]["supply"] = SHIPPING_CRATES - 3
    before = state["seats"][1]["score"]
    events = play(state, {"end_turn": {}})
    assert {"crates_scored": {"seat": 1, "points": 1 * 1 + 3 * 3, "score": before + 10}} in events


def test_reaching_100_in_phase_one_ends_the_game_before_the_turn() -> None:
    state = started(TWO)
    to_load_phase(state)
    state["ships"] = [[0, 0], [0, 1], [0, 1]]
    state["seats"][1]["score"] = 96
    set_hand(state, 1, kinds("GREEN", [3, 1]))  # 4 halves: -4 at the end
    state["seats"][0]["score"] = 99
    set_hand(state, 0, [])
    events = play(state, {"end_turn": {}})
    ended = events[-1]["game_ended"]
    assert state["phase"] == "GAME_OVER" and ENGINE.to_act(state) == []
    assert ended["ended_by"] == 1
    # 96 + 2 + 3 = 101, minus 4 for the half crates left: below 100 and below seat 0.
    scores = {s["seat"]: s for s in ended["scores"]}
    assert scores[1]["score"] == 101 and scores[1]["penalty"] == 4 and scores[1]["final_score"] == 97
    assert ended["winners"] == [0]
    result = ENGINE.result(state)
    assert result is not None and result.winners == [0] and result.scores == [99.0, 97.0]
    # Phase II never happened for the seat that ended the game.
    assert not any("collector_moved" in e for e in events)


def test_tie_is_a_shared_victory() -> None:
    state = started(TWO)
    to_load_phase(state)
    state["ships"] = [[0, 0], [0, 0], [0, 1]]
    state["seats"][0]["supply"] = SHIPPING_CRATES
    state["seats"][1]["supply"] = SHIPPING_CRATES - 1
    state["seats"][1]["score"] = 97
    set_hand(state, 1, kinds("BLACK", [1]))  # 97 + 3 = 100, then -1
    state["seats"][0]["score"] = 99
    set_hand(state, 0, [])
    play(state, {"end_turn": {}})
    result = ENGINE.result(state)
    assert result is not None and result.winners == [0, 1] and result.ranking == [1, 1]


# ---- phase II ----------------------------------------------------------------------------


def test_movement_costs_one_per_tile_passed() -> None:
    state = started(TWO)
    score = state["seats"][0]["score"]
    target = state["spaces"][INDIA.index(3, 1)]
    events = play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 3}})
    moved = events[0]["collector_moved"]
    assert moved["cost"] == 2 and state["seats"][0]["score"] == score - 2
    assert (moved["to_row"], moved["to_col"]) == (3, 1)
    assert target in state["seats"][0]["tiles"]
    # The vacated start space is refilled from the bag.
    assert state["spaces"][INDIA.index(0, 1)] >= 0
    assert events[-1]["space_refilled"]["refilled"] is True
    assert state["phase"] == "LOAD"
    check_conservation(state)


def test_cities_and_collectors_cost_two_and_cannot_be_landed_on() -> None:
    state = started(TWO)
    place(state, 0, 2, 1, "EAST")
    place(state, 1, 2, 5, "NORTH")
    moves = ENGINE.legal_moves(state, 0)
    straight = {m["move_collector"]["distance"] for m in moves if m["move_collector"]["turn"] == "STRAIGHT"}
    # (2,2) tile, (2,3) city, (2,4) tile, (2,5) collector, (2,6) (2,7) (2,8) tiles.
    assert straight == {1, 3, 5, 6, 7}
    score = state["seats"][0]["score"]
    events = play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 5}})
    # tile 1 + city 2 + tile 1 + collector 2
    assert events[0]["collector_moved"]["cost"] == 6
    assert state["seats"][0]["score"] == score - 6


def test_quarter_turns_are_free_and_turning_back_costs_two_even_below_zero() -> None:
    state = started(TWO)
    place(state, 0, 2, 1, "EAST")
    state["seats"][0]["score"] = 1
    events = play(state, {"move_collector": {"turn": "BACK", "distance": 1}})
    assert events[0]["collector_moved"]["facing"] == "WEST"
    assert state["seats"][0]["score"] == -1, "scores may go below zero"
    state2 = started(TWO)
    place(state2, 0, 2, 1, "EAST")
    score = state2["seats"][0]["score"]
    events = play(state2, {"move_collector": {"turn": "LEFT", "distance": 1}})
    assert events[0]["collector_moved"]["facing"] == "NORTH"
    assert state2["seats"][0]["score"] == score


def test_taking_three_halves_gives_an_action_tile_only_while_supply_lasts() -> None:
    state = started(TWO)
    set_tile(state, 1, 1, tile_id("WHITE", 3))
    state["action_supply"] = []
    for player in state["seats"]:
        player["actions"] = []
    state["seats"][1]["actions"] = list(range(10))
    events = play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 1}})
    assert events[1]["tile_taken"]["action_tile_offered"] is False
    assert state["seats"][0]["actions"] == []
    assert state["phase"] == "LOAD", "no action tile left: nothing to decide"
    assert "space_refilled" in events[-1]
    check_conservation(state)


def test_a_player_may_leave_the_action_tile_in_the_supply() -> None:
    # Seat 0 walks onto a green three-halves tile. It may take an action tile, but does not
    # want one: the tile stays in the supply, and only then is the vacated space refilled.
    state = started(TWO)
    set_tile(state, 1, 1, tile_id("GREEN", 3))
    supply = len(state["action_supply"])
    held = list(state["seats"][0]["actions"])
    events = play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 1}})
    assert events[-1]["tile_taken"]["action_tile_offered"] is True
    assert state["phase"] == "ACTION_TILE" and ENGINE.to_act(state) == [0]
    assert state["spaces"][INDIA.index(0, 1)] == -1, "the start space is refilled after the decision"
    assert ENGINE.explain_illegal(state, 0, lay_out("GREEN", three=1)).code == "wrong_phase"
    events = play(state, {"decline_action_tile": {}})
    assert events[0] == {"action_tile_declined": {"seat": 0}}
    assert events[1]["space_refilled"]["refilled"] is True and state["spaces"][INDIA.index(0, 1)] >= 0
    assert state["seats"][0]["actions"] == held and len(state["action_supply"]) == supply
    assert state["phase"] == "LOAD"
    assert ENGINE.explain_illegal(state, 0, {"take_action_tile": {}}).code == "wrong_phase"
    check_conservation(state)


def test_no_reachable_tile_means_staying_put() -> None:
    state = started(TWO)
    for space in INDIA.tile_spaces:
        if state["spaces"][space] >= 0:
            state["bag"].append(state["spaces"][space])
            state["spaces"][space] = -1
    assert ENGINE.legal_moves(state, 0) == [{"stay_put": {}}]
    assert ENGINE.explain_illegal(state, 0, {"move_collector": {"turn": "STRAIGHT", "distance": 1}}).code == (
        "must_stay_put"
    )
    events = play(state, {"stay_put": {}})
    assert events == [{"collector_stayed": {"seat": 0}}]
    assert state["phase"] == "LOAD"


def test_empty_bag_leaves_the_space_empty_and_crossing_it_costs_one_like_a_tile() -> None:
    state = started(TWO)
    state["warehouse"].extend(state["bag"])
    state["bag"] = []
    play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 1}})
    assert state["spaces"][INDIA.index(0, 1)] == -1
    view = ENGINE.view(state, None)
    space = next(s for s in view["spaces"] if (s["row"], s["col"]) == (0, 1))
    assert space["kind"] == "EMPTY" and space["collector"] == -1
    check_conservation(state)
    # Later (0,3) is left empty too. Seat 1, on (0,2) facing east, cannot stop on the hole at
    # (0,3), and passing it on the way to (0,4) costs 1, as a tile would.
    state["phase"] = "MOVE"
    state["current"] = 1
    place(state, 1, 0, 2, "EAST")
    state["warehouse"].extend(state["bag"])
    state["bag"] = []
    state["warehouse"].append(state["spaces"][INDIA.index(0, 3)])
    state["spaces"][INDIA.index(0, 3)] = -1
    assert {"move_collector": {"turn": "STRAIGHT", "distance": 1}} not in ENGINE.legal_moves(state, 1)
    score = state["seats"][1]["score"]
    events = play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 2}})
    assert events[0]["collector_moved"]["cost"] == 1
    assert state["seats"][1]["score"] == score - 1
    check_conservation(state)


# ---- phase III -----------------------------------------------------------------------------


def loading_state(hand: list[int], row: int = 4, col: int = 1) -> dict:
    """Seat 0 in phase III standing at (row, col), holding ``hand``."""
    state = started(TWO)
    to_load_phase(state)
    place(state, 0, row, col, "NORTH")
    set_hand(state, 0, hand)
    return state


def lay_out_and_load(state: dict, laid: dict, crates: int) -> list[dict]:
    """Seat 0 lays out ``laid`` (a :func:`lay_out` move) and loads ``crates`` of it: the load's events."""
    play(state, laid)
    return play(state, {"load": {"crates": crates}})


def by_a_city_with_ships(hand: list[int], ships: list[list[int]]) -> dict:
    """Seat 0 in phase III next to a city at (4, 5) holding ``hand``, the ships holding ``ships``
    (crates per seat) and each seat's supply the rest of its shipping crates."""
    state = loading_state(hand, row=4, col=5)
    state["ships"] = ships
    for seat, player in enumerate(state["seats"]):
        player["supply"] = SHIPPING_CRATES - sum(ship[seat] for ship in ships)
    return state


def test_half_crates_combine_across_tiles_of_one_variety() -> None:
    # One three-halves tile and three one-half tiles of a variety make three whole crates.
    hand = kinds("BLACK", [3, 1, 1, 1]) + kinds("GREEN", [1])
    state = loading_state(hand)
    moves = ENGINE.legal_moves(state, 0)
    assert lay_out("BLACK", one=3, three=1) in moves
    assert lay_out("BLACK", one=1, three=1) in moves
    assert lay_out("BLACK", one=2, three=1) not in moves, "an open half crate"
    assert all(m["lay_out"]["variety"] != "GREEN" for m in moves if "lay_out" in m), "a lone half never ships"
    assert ENGINE.explain_illegal(state, 0, lay_out("BLACK", one=2, three=1)).code == "open_half_crate"
    assert ENGINE.explain_illegal(state, 0, lay_out("BLACK", one=4)).code == "not_enough_tiles"
    events = play(state, lay_out("BLACK", one=3, three=1))
    assert events[0]["tiles_laid_out"]["crates"] == 3
    assert state["seats"][0]["tiles"] == kinds("GREEN", [1])


def test_away_from_a_city_one_crate_fewer_is_loaded() -> None:
    state = loading_state(kinds("RED", [2, 2, 2]), row=4, col=1)
    assert not INDIA.next_to_city(INDIA.index(4, 1))
    events = lay_out_and_load(state, lay_out("RED", two=3), 2)
    assert events[0]["ship_loaded"]["loaded"] == 2
    assert state["ships"][-1][0] == 2


def test_next_to_a_city_diagonally_all_crates_are_loaded() -> None:
    state = loading_state(kinds("RED", [2, 2, 2]), row=4, col=5)  # city (5,4) is diagonal
    assert INDIA.next_to_city(INDIA.index(4, 5))
    events = lay_out_and_load(state, lay_out("RED", two=3), 3)
    assert events[0]["ship_loaded"]["loaded"] == 3


def test_a_single_crate_away_from_a_city_cannot_ship_without_no_rotting() -> None:
    state = loading_state(kinds("WHITE", [2]))
    state["action_supply"].extend(state["seats"][0]["actions"])
    state["seats"][0]["actions"] = []
    assert ENGINE.legal_moves(state, 0) == [{"end_turn": {}}]
    assert ENGINE.explain_illegal(state, 0, lay_out("WHITE", two=1)).code == "nothing_to_load"
    # With an action tile it may: no-rotting first, then load.
    state["seats"][0]["actions"] = [state["action_supply"].pop()]
    play(state, lay_out("WHITE", two=1))
    assert ENGINE.legal_moves(state, 0) == [{"play_action": {"action": "NO_ROTTING"}}, {"take_back": {}}]
    assert ENGINE.explain_illegal(state, 0, {"load": {"crates": 1}}).code == "nothing_to_load"
    play(state, {"play_action": {"action": "NO_ROTTING"}})
    events = play(state, {"load": {"crates": 1}})
    assert events[0]["ship_loaded"]["loaded"] == 1
    assert state["seats"][0]["actions"] == []
    check_conservation(state)


def test_lowest_ship_leaves_crates_go_home_ships_move_down() -> None:
    state = by_a_city_with_ships(kinds("BLACK", [2, 2]), [[2, 1], [0, 1], [1, 0]])
    events = lay_out_and_load(state, lay_out("BLACK", two=2), 2)
    assert events[0]["ship_loaded"]["returned"] == [2, 1]
    assert state["ships"] == [[0, 1], [1, 0], [2, 0]]
    assert state["seats"][0]["supply"] == SHIPPING_CRATES - 3
    check_conservation(state)


def test_crates_are_borrowed_from_own_ships_when_the_supply_runs_short() -> None:
    # Seat 0 lays out seven green crates next to a city, but only two crates are in front of its
    # screen: it has 3 on the x1 ship and 5 on the x2 ship once the lowest ship has left. It
    # chooses where the five missing crates come from: three from the x2 ship, then two from x1.
    hand = kinds("GREEN", [3, 3, 2, 2, 2, 2])  # 14 halves: 7 crates
    state = by_a_city_with_ships(hand, [[0, 1], [3, 0], [5, 0]])
    play(state, lay_out("GREEN", two=4, three=2))
    assert {"load": {"crates": 7}} in ENGINE.legal_moves(state, 0)
    events = play(state, {"load": {"crates": 7}})
    assert events == [{"ship_sailed": {"seat": 0, "returned": [0, 1], "loaded": 2, "to_borrow": 5}}]
    assert state["phase"] == "BORROW" and state["ships"] == [[3, 0], [5, 0], [2, 0]]
    assert ENGINE.view(state, 1)["shipment"]["to_borrow"] == 5
    assert ENGINE.legal_moves(state, 0) == [{"borrow_crate": {"ship": 0}}, {"borrow_crate": {"ship": 1}}]
    assert ENGINE.explain_illegal(state, 0, {"borrow_crate": {"ship": 2}}).code == "no_crate_there"
    assert play(state, {"borrow_crate": {"ship": 1}}) == [{"crate_borrowed": {"seat": 0, "ship": 1, "to_borrow": 4}}]
    play(state, {"borrow_crate": {"ship": 1}})
    play(state, {"borrow_crate": {"ship": 1}})
    play(state, {"borrow_crate": {"ship": 0}})
    events = play(state, {"borrow_crate": {"ship": 0}})
    assert events[0] == {"crate_borrowed": {"seat": 0, "ship": 0, "to_borrow": 0}}
    loaded = events[1]["ship_loaded"]
    assert loaded["loaded"] == 7 and loaded["borrowed"] == 5 and loaded["returned"] == [0, 1]
    assert state["ships"] == [[1, 0], [2, 0], [7, 0]]
    assert state["seats"][0]["supply"] == 0
    check_conservation(state)


def test_borrowing_from_a_single_ship_needs_no_choice() -> None:
    # First the leaving ship brings seat 0's two crates home: with them the supply covers all four.
    state = by_a_city_with_ships(kinds("RED", [2, 2, 2, 2]), [[2, 0], [0, 1], [6, 0]])
    events = lay_out_and_load(state, lay_out("RED", two=4), 4)
    assert events[0]["ship_loaded"]["loaded"] == 4 and events[0]["ship_loaded"]["borrowed"] == 0
    assert state["ships"] == [[0, 1], [6, 0], [4, 0]]
    # With one crate in front of the screen, the other three can only come from the one ship
    # holding seat 0's crates: no question is asked.
    state = by_a_city_with_ships(kinds("RED", [2, 2, 2, 2]), [[0, 0], [0, 1], [9, 0]])
    events = lay_out_and_load(state, lay_out("RED", two=4), 4)
    assert events[0]["ship_loaded"]["borrowed"] == 3 and state["ships"] == [[0, 1], [6, 0], [4, 0]]
    check_conservation(state)


def test_a_player_may_load_fewer_crates_than_laid_out() -> None:
    # Next to a city, four black crates are laid out. Loading all four would mean moving crates over
    # from the x3 ship, so the player loads only the two in front of the screen.
    state = by_a_city_with_ships(kinds("BLACK", [2, 2, 2, 2]), [[0, 1], [0, 0], [8, 0]])
    play(state, lay_out("BLACK", two=4))
    loads = [m["load"]["crates"] for m in ENGINE.legal_moves(state, 0) if "load" in m]
    assert loads == [1, 2, 3, 4]
    assert ENGINE.explain_illegal(state, 0, {"load": {"crates": 5}}).code == "bad_crates"
    assert ENGINE.explain_illegal(state, 0, {"load": {"crates": 0}}).code == "bad_crates"
    events = play(state, {"load": {"crates": 2}})
    loaded = events[0]["ship_loaded"]
    assert loaded["loaded"] == 2 and loaded["borrowed"] == 0 and loaded["quantity_points"] == 0
    assert state["ships"] == [[0, 0], [8, 0], [2, 0]] and state["seats"][0]["supply"] == 0
    assert state["warehouse"] == kinds("BLACK", [2, 2, 2, 2]), "all laid-out tiles are discarded"
    check_conservation(state)


def test_laid_out_tiles_go_to_the_warehouse_and_the_older_stack_to_the_bag() -> None:
    state = loading_state(kinds("RED", [1, 1]), row=4, col=5)
    old_stack = [state["bag"].pop(), state["bag"].pop()]
    state["warehouse"] = list(old_stack)
    bag_before = len(state["bag"])
    events = lay_out_and_load(state, lay_out("RED", one=2), 1)
    assert state["warehouse"] == kinds("RED", [1, 1])
    assert len(state["bag"]) == bag_before + 2 and set(old_stack) <= set(state["bag"])
    assert events[0]["ship_loaded"]["returned_to_bag"] == 2
    check_conservation(state)


def test_demand_bonus_counts_markers_between_after_moving_the_lower_one_up() -> None:
    state = loading_state(kinds("GREEN", [2]), row=4, col=5)
    state["chute"] = ["BLACK", "GREEN", "WHITE", "BLACK", "RED", "GREEN", "RED", "WHITE"]
    play(state, lay_out("GREEN", two=1))
    score = state["seats"][0]["score"]
    events = play(state, {"load": {"crates": 1}})
    assert state["chute"] == ["GREEN", "BLACK", "GREEN", "WHITE", "BLACK", "RED", "RED", "WHITE"]
    assert events[0]["ship_loaded"]["demand_points"] == 1
    assert state["seats"][0]["score"] == score + 1


def test_demand_bonus_of_a_variety_just_shipped_is_zero() -> None:
    state = loading_state(kinds("WHITE", [2]), row=4, col=5)
    state["chute"] = ["WHITE", "BLACK", "GREEN", "WHITE", "RED", "GREEN", "RED", "BLACK"]
    events = lay_out_and_load(state, lay_out("WHITE", two=1), 1)
    assert events[0]["ship_loaded"]["demand_points"] == 0


def test_quantity_bonus_from_four_crates_loaded() -> None:
    state = loading_state(kinds("BLACK", [2, 2, 2, 2]), row=4, col=5)
    state["chute"] = ["BLACK", "BLACK", "GREEN", "WHITE", "RED", "GREEN", "RED", "WHITE"]
    events = lay_out_and_load(state, lay_out("BLACK", two=4), 4)
    assert events[0]["ship_loaded"]["quantity_points"] == 4
    assert events[0]["ship_loaded"]["demand_points"] == 0


def test_quantity_bonus_counts_loaded_crates_not_laid_out_ones() -> None:
    # Four crates laid out away from a city: three loaded, so no quantity bonus.
    state = loading_state(kinds("BLACK", [2, 2, 2, 2]), row=4, col=1)
    events = lay_out_and_load(state, lay_out("BLACK", two=4), 3)
    assert events[0]["ship_loaded"]["loaded"] == 3
    assert events[0]["ship_loaded"]["quantity_points"] == 0


def test_double_demand_doubles_only_the_demand_bonus() -> None:
    state = loading_state(kinds("RED", [2, 2, 2, 2]), row=4, col=1)
    state["seats"][0]["actions"] = [state["action_supply"].pop(), state["action_supply"].pop()]
    state["chute"] = ["BLACK", "GREEN", "RED", "WHITE", "BLACK", "GREEN", "RED", "WHITE"]
    play(state, lay_out("RED", two=4))
    play(state, {"play_action": {"action": "DOUBLE_DEMAND"}})
    assert {"play_action": {"action": "DOUBLE_DEMAND"}} not in ENGINE.legal_moves(state, 0)
    assert ENGINE.explain_illegal(state, 0, {"play_action": {"action": "DOUBLE_DEMAND"}}).code == (
        "action_already_played"
    )
    play(state, {"play_action": {"action": "NO_ROTTING"}})
    score = state["seats"][0]["score"]
    events = play(state, {"load": {"crates": 4}})
    loaded = events[0]["ship_loaded"]
    # RED lower marker moves up: RED, BLACK, GREEN, RED -> 2 between, doubled to 4; 4 crates -> +4.
    assert loaded["loaded"] == 4 and loaded["demand_points"] == 4 and loaded["quantity_points"] == 4
    assert state["seats"][0]["score"] == score + 8
    assert len(state["action_supply"]) == 10
    check_conservation(state)


def test_an_action_tile_gained_this_turn_can_be_played() -> None:
    state = started(TWO)
    state["seats"][0]["actions"] = []
    set_tile(state, 1, 1, tile_id("BLACK", 3))
    set_hand(state, 0, kinds("BLACK", [1]))
    play(state, {"move_collector": {"turn": "STRAIGHT", "distance": 1}})
    play(state, {"take_action_tile": {}})
    assert len(state["seats"][0]["actions"]) == 1
    play(state, lay_out("BLACK", one=1, three=1))
    assert {"play_action": {"action": "NO_ROTTING"}} in ENGINE.legal_moves(state, 0)


def test_a_laid_out_shipment_may_be_taken_back_before_loading() -> None:
    # Seat 0 lays out three black crates and plays double demand, then changes its mind before
    # loading: the tiles and the action tile go back behind the screen, nothing on the wharf or
    # the chute moved. It lays out two crates instead; a second take-back that turn is refused.
    hand = kinds("BLACK", [2, 2, 2])
    state = loading_state(hand, row=4, col=5)
    state["seats"][0]["actions"] = [state["action_supply"].pop()]
    ships, chute = [list(ship) for ship in state["ships"]], list(state["chute"])
    play(state, lay_out("BLACK", two=3))
    play(state, {"play_action": {"action": "DOUBLE_DEMAND"}})
    assert {"take_back": {}} in ENGINE.legal_moves(state, 0)
    events = play(state, {"take_back": {}})
    assert events == [
        {
            "shipment_taken_back": {
                "seat": 0,
                "variety": "BLACK",
                "crates": 3,
                "tile_count": 3,
                "action_tile_count": 1,
            }
        }
    ]
    assert sorted(state["seats"][0]["tiles"]) == sorted(hand) and len(state["seats"][0]["actions"]) == 1
    assert state["shipment"] is None and state["phase"] == "LOAD"
    assert state["ships"] == ships and state["chute"] == chute
    check_conservation(state)
    play(state, lay_out("BLACK", two=2))
    assert {"take_back": {}} not in ENGINE.legal_moves(state, 0)
    assert ENGINE.explain_illegal(state, 0, {"take_back": {}}).code == "already_taken_back"
    play(state, {"load": {"crates": 2}})
    assert state["ships"][-1][0] == 2 and state["seats"][0]["tiles"] == [hand[2]]
    # The next turn may take a shipment back again.
    assert state["taken_back"] is False


def test_reaching_100_by_shipping_ends_the_game_with_penalties() -> None:
    state = loading_state(kinds("BLACK", [2, 2, 2, 2]) + kinds("RED", [1]), row=4, col=5)
    state["seats"][0]["score"] = 95
    state["chute"] = ["GREEN", "BLACK", "WHITE", "BLACK", "RED", "GREEN", "RED", "WHITE"]
    events = lay_out_and_load(state, lay_out("BLACK", two=4), 4)
    assert state["phase"] == "GAME_OVER"
    ended = events[-1]["game_ended"]
    assert ended["ended_by"] == 0
    mine = ended["scores"][0]
    assert mine["score"] == 95 + 1 + 4 and mine["penalty"] == 1 and mine["final_score"] == 99


def test_ending_a_turn_without_shipping_passes_to_the_left() -> None:
    state = started(TWO)
    to_load_phase(state)
    events = play(state, {"end_turn": {}})
    assert events[0] == {"turn_ended": {"seat": 0, "next": 1}}
    assert state["current"] == 1 and state["phase"] == "MOVE"


def test_wrong_phase_and_wrong_seat_are_explained() -> None:
    state = started(TWO)
    assert ENGINE.explain_illegal(state, 1, {"end_turn": {}}).code == "not_your_turn"
    assert ENGINE.explain_illegal(state, 0, {"end_turn": {}}).code == "wrong_phase"
    assert ENGINE.explain_illegal(state, 0, {"fly": {}}).code == "unknown_move"
    assert ENGINE.explain_illegal(state, 0, {"move_collector": {"turn": "UP", "distance": 1}}).code == "bad_turn"
    assert ENGINE.explain_illegal(state, 0, {"stay_put": {}}).code == "must_move"
    assert ENGINE.explain_illegal(state, 0, {"move_collector": {"turn": "STRAIGHT", "distance": 40}}).code == (
        "bad_distance"
    )


# ---- content ------------------------------------------------------------------------------


def test_tile_counts_match_the_rulebook() -> None:
    from collections import Counter

    from services.darjeeling.content import TILES

    counts = Counter((t.variety, t.halves) for t in TILES)
    assert len(TILES) == 112
    expected_singles = {"BLACK": 21, "GREEN": 19, "WHITE": 17, "RED": 15}
    for variety, singles in expected_singles.items():
        assert (counts[(variety, 1)], counts[(variety, 2)], counts[(variety, 3)]) == (singles, 7, 3)


@pytest.mark.parametrize(("region", "cities"), [("india", 3), ("china", 3), ("sri_lanka", 2)])
def test_region_city_squares(region: str, cities: int) -> None:
    assert len(REGIONS[region].cities) == cities
    # Enough border tiles for five starting collectors.
    border = [s for s in REGIONS[region].tile_spaces if REGIONS[region].start_facings(s)]
    assert len(border) >= 5
