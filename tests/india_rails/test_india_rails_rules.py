"""India Rails rules as scenarios: building, entry limits, fees, events and winning."""

from __future__ import annotations

import itertools

from india_rails_fixtures import (
    ENGINE,
    building_example,
    city_with_free_edges,
    lay,
    lead_in,
    neighbours,
    new_match,
    place,
    set_turn,
)

from services.common.runner import Match, check_move_is_illegal
from services.india_rails.content import BOARD, CITY_MILEPOSTS, DEMAND_CARDS, EVENT_CARDS, MAJOR_CITIES


def build(a: int, b: int) -> dict[str, dict[str, int]]:
    return {"build_track": {"from_milepost": a, "to_milepost": b}}


def step(to: int, train: int = 0) -> dict[str, dict[str, int]]:
    return {"move_train": {"train": train, "to_milepost": to}}


def card_of(kind: str) -> int:
    return next(c for c, spec in EVENT_CARDS.items() if spec["kind"] == kind)


# ---- preparation and the switchback start ---------------------------------------------


def test_each_player_starts_with_50m_a_freight_and_three_demand_cards() -> None:
    match = new_match(4, seed=3)
    for player in match.state["players"]:
        assert player["cash"] == 50
        assert [t["loco"] for t in player["trains"]] == ["freight"]
        assert len(player["hand"]) == 3 and all(c in DEMAND_CARDS for c in player["hand"])
    assert len(match.state["deck"]) == 136 + 20 - 12


def test_first_player_holds_the_largest_single_payout() -> None:
    for seed in range(5):
        state = new_match(3, seed=seed).state
        best = [sorted((d["payout"] for c in p["hand"] for d in DEMAND_CARDS[c]["demands"]), reverse=True)
                for p in state["players"]]
        assert state["current"] == max(range(3), key=lambda s: (best[s], -s))


def test_switchback_start_runs_forward_then_back_then_normal_turns() -> None:
    match = new_match(3, seed=2)
    first = match.state["current"]
    seen = []
    while match.state["phase"] == "initial_build":
        seen.append(match.state["current"])
        match.play(match.state["current"], {"end_turn": {}})
    forward = [(first + i) % 3 for i in range(3)]
    assert seen == forward + forward[::-1]
    assert match.state["phase"] == "operations" and match.state["current"] == first


def test_fast_game_gives_70m_three_building_turns_and_a_five_card_deal() -> None:
    match = new_match(2, seed=4, fast_game=True)
    state = match.state
    assert all(p["cash"] == 70 and len(p["hand"]) == 5 for p in state["players"])
    assert not any(EVENT_CARDS[c]["kind"] == "tax" for c in state["deck"] if c in EVENT_CARDS)
    first = state["current"]
    seen = []
    while state["phase"] == "initial_build":
        seen.append(state["current"])
        match.play(state["current"], {"end_turn": {}})
        state = match.state
    # After the first two building turns each player discards two demand cards...
    assert seen == [first, 1 - first, 1 - first, first] and state["phase"] == "initial_discard"
    while state["phase"] == "initial_discard":
        seat = state["current"]
        match.play(seat, {"discard_demand": {"card": state["players"][seat]["hand"][0]}})
        state = match.state
    assert all(len(p["hand"]) == 3 for p in state["players"])
    # ...then the third building turn, then normal play.
    seen = []
    while state["phase"] == "initial_build":
        seen.append(state["current"])
        match.play(state["current"], {"end_turn": {}})
        state = match.state
    assert seen == [first, 1 - first] and state["phase"] == "operations" and state["current"] == first


# ---- building -------------------------------------------------------------------------------


def test_rulebook_building_example_costs_ten_million() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    path = building_example()
    lead_in = next(v for v in neighbours(path[0]) if v not in path and not BOARD.city_at[v])
    lay(state, 0, [lead_in, path[0]])
    before = state["players"][0]["cash"]
    for a, b in itertools.pairwise(path):
        match.play(0, build(a, b))
    assert before - match.state["players"][0]["cash"] == 10
    assert match.state["turn"]["spent"] == 10


def test_building_must_start_from_a_major_city_or_own_track() -> None:
    match = new_match(2, seed=1)
    set_turn(match, 0, "build")
    lonely = next(m for m in range(BOARD.count) if BOARD.terrain[m] == "clear"
                  and all(not BOARD.city_at[v] for v in neighbours(m)))
    refusal = check_move_is_illegal(match, 0, build(lonely, neighbours(lonely)[0]))
    assert refusal.code == "not_connected"


def test_spending_limit_is_20m_a_turn_and_there_is_no_credit() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    path = _out_of_delhi(30)
    spent = 0
    for a, b in itertools.pairwise(path):
        cost = BOARD.cost_into(BOARD.edge_between(a, b), b)
        if spent + cost > 20:
            assert check_move_is_illegal(match, 0, build(a, b)).code == "over_budget"
            break
        match.play(0, build(a, b))
        spent += cost
    assert match.state["turn"]["spent"] == spent <= 20
    state = set_turn(match, 0, "build")
    state["players"][0]["cash"] = 0
    a, b = path[len(state["players"][0]["track"])], path[len(state["players"][0]["track"]) + 1]
    assert check_move_is_illegal(match, 0, build(a, b)).code == "no_credit"


def _run_outward(start: int, length: int) -> list[int]:
    """Mileposts leading away from a city, avoiding other cities and rivers."""
    path = [start]
    while len(path) <= length:
        options = [v for v, e in BOARD.adjacency[path[-1]]
                   if v not in path and not BOARD.city_at[v] and not BOARD.river[e] and not BOARD.strait[e]]
        if not options:
            break
        path.append(max(options, key=lambda v: abs(BOARD.x[v] - BOARD.x[start]) + abs(BOARD.y[v] - BOARD.y[start])))
    return path[1:]


def _out_of_delhi(length: int) -> list[int]:
    """A Delhi milepost and a run of up to ``length`` mileposts leading away from it."""
    start = BOARD.cities["Delhi"].mileposts[1]
    return [start, *_run_outward(start, length)]


def _train_at_the_start_of_a_line(match: Match, length: int, owner: int, mover: int = 0) -> list[int]:
    """``owner``'s track along :func:`_out_of_delhi`, ``mover``'s train on its Delhi end, in the
    operations of ``mover``'s turn; the line's mileposts."""
    path = _out_of_delhi(length)
    lay(match.state, owner, path)
    state = set_turn(match, mover, "operations")
    place(state, mover, path[0])
    return path


def test_at_most_two_segments_a_turn_from_major_city_mileposts_but_any_number_into_them() -> None:
    match = new_match(2, seed=1)
    set_turn(match, 0, "build")
    delhi = BOARD.cities["Delhi"]
    outward = []
    for outpost in delhi.mileposts[1:]:
        for v in neighbours(outpost):
            if v not in delhi.mileposts and not BOARD.city_at[v]:
                outward.append((outpost, v))
                break
    match.play(0, build(*outward[0]))
    match.play(0, build(*outward[1]))
    assert check_move_is_illegal(match, 0, build(*outward[2])).code == "major_limit"
    # Building *into* major city mileposts is not limited (5M each).
    state = set_turn(match, 1, "build")
    state["turn"]["major_segments"] = 2
    outside = next(x for x in range(BOARD.count) if not BOARD.city_at[x]
                   and sum(1 for v in neighbours(x) if v in delhi.mileposts) >= 2
                   and all(BOARD.edge_between(x, v) not in state["players"][0]["track"] for v in neighbours(x)))
    targets = [v for v in neighbours(outside) if v in delhi.mileposts]
    lay(state, 1, [next(v for v in neighbours(outside) if not BOARD.city_at[v]), outside])
    before = state["players"][1]["cash"]
    for target in targets:
        match.play(1, build(outside, target))
    spent = before - match.state["players"][1]["cash"]
    assert spent == sum(BOARD.cost_into(BOARD.edge_between(outside, t), t) for t in targets) >= 10


def test_no_track_in_the_red_area_and_one_track_per_pair_of_mileposts() -> None:
    match = new_match(2, seed=1)
    set_turn(match, 0, "build")
    madras = BOARD.cities["Madras"]
    assert check_move_is_illegal(match, 0, build(madras.mileposts[0], madras.mileposts[1])).code == "red_area"
    outpost = madras.mileposts[1]
    out = next(v for v in neighbours(outpost) if v not in madras.mileposts)
    lay(match.state, 1, [outpost, out])
    assert check_move_is_illegal(match, 0, build(outpost, out)).code == "right_of_way"


def test_small_city_takes_two_players_and_each_at_most_three_segments() -> None:
    match = new_match(4, seed=1)
    city = BOARD.cities[city_with_free_edges("small", 5)].anchor
    around = [v for v in neighbours(city) if not BOARD.city_at[v]]
    state = match.state
    lay(state, 1, [around[0], city])
    lay(state, 2, [around[1], city])
    lay(state, 3, lead_in(around[2], city))
    set_turn(match, 3, "build")
    assert check_move_is_illegal(match, 3, build(around[2], city)).code == "city_full"
    lay(state, 1, [around[3], city])
    lay(state, 1, [around[4], city])
    lay(state, 1, lead_in(around[2], city))
    set_turn(match, 1, "build")
    assert check_move_is_illegal(match, 1, build(around[2], city)).code == "city_entry_limit"


def test_medium_city_takes_three_players() -> None:
    match = new_match(4, seed=1)
    city = BOARD.cities[city_with_free_edges("medium", 5)].anchor
    around = [v for v in neighbours(city) if not BOARD.city_at[v]]
    state = match.state
    for seat in range(3):
        lay(state, seat, [around[seat], city])
    lay(state, 3, lead_in(around[3], city))
    set_turn(match, 3, "build")
    assert check_move_is_illegal(match, 3, build(around[3], city)).code == "city_full"


def test_track_may_not_leave_a_small_city_without_room_for_a_second_player() -> None:
    match = new_match(2, seed=1)
    city = BOARD.cities["Cochin"].anchor  # a small coastal city with three ways in
    spokes = neighbours(city)
    assert len(spokes) == 3 and BOARD.cities["Cochin"].size == "small"
    state = match.state
    lay(state, 1, [spokes[0], city, spokes[1]])
    set_turn(match, 1, "build")
    lay(state, 1, [next(v for v in neighbours(spokes[2]) if v != city), spokes[2]])
    assert check_move_is_illegal(match, 1, build(spokes[2], city)).code == "blocking"


# ---- operations -----------------------------------------------------------------------------


def test_a_train_starts_in_any_city_at_the_beginning_and_is_never_placed_again() -> None:
    # Track is built from a major city, but the train may begin in any city: here a small one.
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "operations", trains_placed=False)
    legal = ENGINE.legal_moves(state, 0)
    places = {m["place_train"]["milepost"] for m in legal if "place_train" in m}
    assert places == set(CITY_MILEPOSTS)
    # Before the train is on the board the turn can only open with placing it (or a new hand).
    assert {m_kind for m in legal for m_kind in m} == {"place_train", "discard_hand"}
    assert check_move_is_illegal(match, 0, {"end_operations": {}}).code == "place_train_first"
    town = next(c for c in BOARD.cities.values() if c.size == "small")
    match.play(0, {"place_train": {"train": 0, "milepost": town.anchor}})
    assert not [m for m in ENGINE.legal_moves(match.state, 0) if "place_train" in m]
    # In a later turn the train runs from where it stands; it is not put down elsewhere.
    state = set_turn(match, 0, "operations")
    move = {"place_train": {"train": 0, "milepost": BOARD.cities["Delhi"].anchor}}
    assert check_move_is_illegal(match, 0, move).code == "train_placed"


def test_renting_track_costs_4m_per_opponent_per_turn_paid_before_use() -> None:
    match = new_match(2, seed=1)
    path = _train_at_the_start_of_a_line(match, 4, owner=1)
    state = match.state
    cash0, cash1 = state["players"][0]["cash"], state["players"][1]["cash"]
    match.play(0, step(path[1]))
    match.play(0, step(path[2]))
    assert match.state["players"][0]["cash"] == cash0 - 4
    assert match.state["players"][1]["cash"] == cash1 + 4
    match.state["players"][0]["cash"] = 3
    state = set_turn(match, 0, "operations")
    assert check_move_is_illegal(match, 0, step(path[3])).code == "cannot_pay_fee"


def test_late_payment_mercy_lets_a_broke_train_run_and_pay_from_the_next_payoff() -> None:
    match = new_match(2, seed=1, mercy_late_fees=True)
    path = _train_at_the_start_of_a_line(match, 3, owner=1)
    match.state["players"][0]["cash"] = 0
    match.play(0, step(path[1]))
    assert match.state["players"][0]["owed"] == [[1, 4]]


def _deliverable(state: dict, seat: int, card_index: int) -> tuple[dict, int]:
    """Load the seat's train for the first demand of one of its cards; return the move and the city milepost."""
    card = state["players"][seat]["hand"][card_index]
    demand = DEMAND_CARDS[card]["demands"][0]
    city = BOARD.cities[demand["city"]]
    state["players"][seat]["trains"][0]["loads"].append([demand["load"], "Nepal"])
    state["tray"][demand["load"]] -= 1
    return {"deliver": {"train": 0, "slot": 0, "card": card, "demand": 0, "open_contract": False}}, city.anchor


def test_a_late_use_fee_is_paid_from_a_payoff_earned_on_the_owners_track() -> None:
    match = new_match(2, seed=1, mercy_late_fees=True)
    state = set_turn(match, 0, "operations")
    state["players"][0]["owed"] = [[1, 4]]
    # A payoff in a city seat 1's track does not reach leaves the debt standing.
    move, city = _deliverable(state, 0, 0)
    place(state, 0, city)
    match.play(0, move)
    assert match.state["players"][0]["owed"] == [[1, 4]]
    # A payoff earned where the train stands on seat 1's track settles it.
    state = set_turn(match, 0, "operations")
    move, city = _deliverable(state, 0, 0)
    lay(state, 1, [city, neighbours(city)[0]])
    place(state, 0, city)
    cash1 = state["players"][1]["cash"]
    events = match.play(0, move)
    assert match.state["players"][0]["owed"] == []
    assert match.state["players"][1]["cash"] == cash1 + 4
    assert [e["fee_paid"]["reason"] for e in events if "fee_paid" in e] == ["late_track_use"]


def test_a_train_reverses_only_in_a_city() -> None:
    match = new_match(2, seed=1)
    path = _train_at_the_start_of_a_line(match, 4, owner=0)
    match.play(0, step(path[1]))
    match.play(0, step(path[2]))
    assert check_move_is_illegal(match, 0, step(path[1])).code == "no_reverse"
    # Back in the major city, reversing is allowed.
    state = set_turn(match, 0, "operations")
    place(state, 0, path[0], prev=path[1])
    assert step(path[1]) in ENGINE.legal_moves(state, 0)


def test_movement_is_limited_by_the_loco_speed() -> None:
    match = new_match(2, seed=1)
    path = _train_at_the_start_of_a_line(match, 12, owner=0)
    for to in path[1:10]:
        match.play(0, step(to))
    assert check_move_is_illegal(match, 0, step(path[10])).code == "no_movement_left"


def test_pick_up_drop_and_deliver_against_one_demand_per_card() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "operations")
    card = state["players"][0]["hand"][0]
    demand = DEMAND_CARDS[card]["demands"][0]
    city = BOARD.cities[demand["city"]]
    train = place(state, 0, city.anchor)
    origin = "Nepal" if demand["load"] == "Pilgrims" else ""
    train["loads"] = [[demand["load"], origin]]
    state["tray"][demand["load"]] -= 1
    cash = state["players"][0]["cash"]
    move = {"deliver": {"train": 0, "slot": 0, "card": card, "demand": 0, "open_contract": False}}
    assert move in ENGINE.legal_moves(state, 0)
    match.play(0, move)
    after = match.state
    assert after["players"][0]["cash"] == cash + demand["payout"]
    assert card not in after["players"][0]["hand"] and len(after["players"][0]["hand"]) == 3
    assert after["tray"][demand["load"]] == state["tray"][demand["load"]] + 1


def test_pilgrims_go_from_an_indian_town_to_a_major_city_of_another_region() -> None:
    from services.india_rails.operations import demand_matches

    demand = {"city": "Delhi", "load": "Pilgrims", "payout": 30}
    assert demand_matches(demand, ["Pilgrims", "South"], "Delhi")
    assert not demand_matches(demand, ["Pilgrims", "Upper Ganges"], "Delhi")
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "operations")
    place(state, 0, BOARD.cities["Nagpur"].anchor)
    picks = [m for m in ENGINE.legal_moves(state, 0) if "pick_up" in m]
    assert {"pick_up": {"train": 0, "load": "Pilgrims", "from_warehouse": False}} in picks
    state = set_turn(match, 0, "operations")
    place(state, 0, BOARD.cities["Lahore"].anchor)
    assert all(m["pick_up"]["load"] != "Pilgrims" for m in ENGINE.legal_moves(state, 0) if "pick_up" in m)


def test_discarding_the_hand_replaces_a_turn() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "operations")
    old = list(state["players"][0]["hand"])
    match.play(0, {"discard_hand": {}})
    after = match.state
    assert after["current"] == 1 and len(after["players"][0]["hand"]) == 3
    assert not set(old) & set(after["players"][0]["hand"])


def test_upgrade_costs_20m_instead_of_building() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    match.play(0, {"upgrade_train": {"train": 0, "loco": "fast_freight"}})
    assert match.state["players"][0]["cash"] == state["players"][0]["cash"] - 20
    assert not [m for m in ENGINE.legal_moves(match.state, 0) if "build_track" in m]


# ---- events ------------------------------------------------------------------------------------


def test_the_deck_has_sand_storms_in_place_of_the_series_weather_cards() -> None:
    from services.india_rails.content import sandstorm_mileposts

    kinds = [spec["kind"] for spec in EVENT_CARDS.values()]
    assert len(kinds) == 20 and kinds.count("sandstorm") == 5
    assert set(kinds) == {"derailment", "flood", "strike", "sandstorm", "tax"}
    for card, spec in EVENT_CARDS.items():
        if spec["kind"] == "sandstorm":
            assert len(sandstorm_mileposts(card)) >= 10, spec["title"]


def test_derailment_costs_a_load_and_the_next_turn() -> None:
    from services.common.rng import Rng
    from services.india_rails.cards import resolve_event

    match = new_match(3, seed=1)
    state = set_turn(match, 0, "operations")
    card = card_of("derailment")
    city = BOARD.cities[EVENT_CARDS[card]["cities"][0]]
    near = place(state, 1, city.anchor)
    near["loads"] = [["Coal", ""], ["Tea", ""]]
    far = place(state, 2, BOARD.cities["Colombo"].anchor)
    far["loads"] = [["Coal", ""]]
    resolve_event(state, card, 0, Rng(1), [])
    assert state["pending"] == [{"seat": 1, "train": 0, "kind": "lost_load"}]
    assert state["players"][1]["lost"] == 1 and state["players"][2]["lost"] == 0
    assert ENGINE.to_act(state) == [1]
    match.play(1, {"choose_lost_load": {"train": 0, "slot": 1}})
    assert match.state["players"][1]["trains"][0]["loads"] == [["Coal", ""]]
    # Seat 1's next turn is skipped.
    match.play(0, {"end_operations": {}})
    match.play(0, {"end_turn": {}})
    assert match.state["current"] == 2 and match.state["players"][1]["turns"] == 1


def test_a_drawer_derailed_by_his_own_draw_loses_the_rest_of_the_turn_and_the_next() -> None:
    match = new_match(2, seed=1, additional_trains=True)
    state = set_turn(match, 0, "operations")
    card = state["players"][0]["hand"][0]
    demand = DEMAND_CARDS[card]["demands"][0]
    derailment = card_of("derailment")
    state["deck"].remove(derailment)
    state["deck"].append(derailment)  # the next card drawn
    delivering = place(state, 0, BOARD.cities[demand["city"]].anchor)
    origin = "Nepal" if demand["load"] == "Pilgrims" else ""
    delivering["loads"] = [[demand["load"], origin]]
    state["tray"][demand["load"]] -= 1
    place(state, 0, BOARD.cities[EVENT_CARDS[derailment]["cities"][0]].anchor, train=1)
    events = match.play(0, {"deliver": {"train": 0, "slot": 0, "card": card, "demand": 0, "open_contract": False}})
    assert any("event_drawn" in e for e in events) and any(e.get("turn_ended") == {"seat": 0} for e in events)
    assert match.state["current"] == 1 and match.state["players"][0]["lost"] == 1
    match.play(1, {"end_operations": {}})
    events = match.play(1, {"end_turn": {}})
    assert {"turn_lost": {"seat": 0}} in events and match.state["current"] == 1


def test_flood_erases_bridges_blocks_crossing_and_lets_the_owner_rebuild_first() -> None:
    from services.common.rng import Rng
    from services.india_rails.cards import resolve_event

    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    card = next(c for c, spec in EVENT_CARDS.items() if spec["kind"] == "flood" and "Ganges" in spec["rivers"])
    bridge = next(e for e, r in enumerate(BOARD.river) if r == "Ganges" and not BOARD.city_at[BOARD.edges[e][0]]
                  and not BOARD.city_at[BOARD.edges[e][1]])
    a, b = BOARD.edges[bridge]
    approach = next(v for v in neighbours(a) if v != b and not BOARD.river[BOARD.edge_between(v, a)])
    lay(state, 0, [approach, a, b])
    resolve_event(state, card, 0, Rng(1), [])
    assert bridge not in state["players"][0]["track"]
    assert check_move_is_illegal(match, 0, build(a, b)).code == "river_flooded"
    # The flood lasts until the end of the drawer's next turn.
    match.play(0, {"end_turn": {}})
    state = set_turn(match, 1, "build")
    lay(state, 1, [next(v for v in neighbours(b) if v != a and not BOARD.city_at[v]), b])
    assert check_move_is_illegal(match, 1, build(b, a)).code == "river_flooded"
    match.play(1, {"end_turn": {}})
    match.play(0, {"end_operations": {}})
    match.play(0, {"end_turn": {}})
    assert not match.state["active"]
    state = set_turn(match, 1, "build")
    assert check_move_is_illegal(match, 1, build(b, a)).code == "bridge_reserved"
    state = set_turn(match, 0, "build")
    state["reserved"][0]["armed"] = True
    assert build(a, b) in ENGINE.legal_moves(state, 0)


def test_sandstorm_erases_track_to_its_desert_mileposts_until_it_ends() -> None:
    from services.common.rng import Rng
    from services.india_rails.cards import resolve_event
    from services.india_rails.content import sandstorm_mileposts

    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    card = card_of("sandstorm")
    storm = sandstorm_mileposts(card)
    assert storm and all(BOARD.terrain[m] == "desert" for m in storm)
    outside = [m for m in range(BOARD.count) if m not in storm and not BOARD.city_at[m]]
    near, desert = next((n, d) for n in outside for d in neighbours(n) if d in storm)
    before = next(v for v in neighbours(near) if v in outside and v != desert)
    lay(state, 0, [before, near, desert])
    events: list[dict] = []
    resolve_event(state, card, 0, Rng(1), events)
    assert state["players"][0]["track"] == [BOARD.edge_between(before, near)]
    assert [e["track_erased"]["reason"] for e in events if "track_erased" in e] == ["sandstorm"]
    assert check_move_is_illegal(match, 0, build(near, desert)).code == "sandstorm"
    # The card leaves play at the end of the drawer's next turn; the owner may then rebuild first.
    match.play(0, {"end_turn": {}})
    match.play(1, {"end_operations": {}})
    match.play(1, {"end_turn": {}})
    match.play(0, {"end_operations": {}})
    match.play(0, {"end_turn": {}})
    assert not match.state["active"]
    state = set_turn(match, 1, "build")
    lay(state, 1, [next(v for v in neighbours(desert) if v != near and v not in storm), desert])
    assert check_move_is_illegal(match, 1, build(desert, near)).code == "bridge_reserved"


def test_excess_profits_tax_makes_cash_public() -> None:
    from services.common.rng import Rng
    from services.india_rails.cards import resolve_event

    match = new_match(2, seed=1)
    state = match.state
    assert ENGINE.view(state, 0)["players"][1]["cash_hidden"]
    state["players"][1]["cash"] = 120
    resolve_event(state, card_of("tax"), 0, Rng(1), [])
    assert state["players"][1]["cash"] == 105 and state["players"][0]["cash"] == 40
    assert ENGINE.view(state, 0)["players"][1]["cash"] == 105


def test_strike_stops_pick_ups_and_deliveries_in_the_struck_cities() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "operations")
    strike = next(c for c, spec in EVENT_CARDS.items() if spec["kind"] == "strike" and spec.get("coastal"))
    state["active"].append({"card": strike, "drawer": 1, "expires": 9})
    place(state, 0, BOARD.cities["Cochin"].anchor)
    assert not [m for m in ENGINE.legal_moves(state, 0) if "pick_up" in m]


# ---- winning ---------------------------------------------------------------------------------------


def _connect_all_majors(state: dict, seat: int) -> None:
    """Lay a chain of own track through all five major cities (cheapest lines on an empty board)."""
    from services.india_rails.bots import static_costs

    centres = [BOARD.cities[name].anchor for name in MAJOR_CITIES]
    for a, b in itertools.pairwise(centres):
        _, parent = static_costs(a)
        path = [b]
        while parent[path[-1]] >= 0:
            path.append(parent[path[-1]])
        for x, y in itertools.pairwise(path):
            eid = BOARD.edge_between(x, y)
            if eid not in BOARD.red_area and eid not in state["players"][seat]["track"]:
                state["players"][seat]["track"].append(eid)


def test_connected_with_250m_wins_at_the_end_of_the_round() -> None:
    match = new_match(3, seed=1)
    state = set_turn(match, 1, "build")
    _connect_all_majors(state, 1)
    state["players"][1]["cash"] = 260
    match.play(1, {"end_turn": {}})
    assert match.state["players"][1]["declared"] and not match.state["over"]
    match.play(2, {"end_operations": {}})
    match.play(2, {"end_turn": {}})
    assert match.state["over"] and ENGINE.result(match.state).winners == [1]
    assert ENGINE.result(match.state).ranking[1] == 1


def test_tie_among_winners_raises_the_target_by_50m() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 0, "build")
    _connect_all_majors(state, 0)
    _connect_all_majors(state, 1)
    state["players"][0]["cash"] = state["players"][1]["cash"] = 270
    match.play(0, {"end_turn": {}})
    match.play(1, {"end_operations": {}})
    match.play(1, {"end_turn": {}})
    assert not match.state["over"] and match.state["win_cash"] == 300


def test_cash_alone_does_not_win() -> None:
    match = new_match(2, seed=1)
    state = set_turn(match, 1, "build")
    state["players"][1]["cash"] = 400
    match.play(1, {"end_turn": {}})
    assert not match.state["over"] and not match.state["players"][1]["declared"]


def test_tournament_time_limit_prefers_a_connected_network_over_cash() -> None:
    match = new_match(2, seed=1, time_limit_rounds=1)
    state = set_turn(match, 0, "build")
    _connect_all_majors(state, 0)
    state["players"][0]["cash"] = 100
    state["players"][1]["cash"] = 200
    match.play(0, {"end_turn": {}})
    match.play(1, {"end_operations": {}})
    match.play(1, {"end_turn": {}})
    result = ENGINE.result(match.state)
    assert match.state["finish_reason"] == "time_limit" and result.winners == [0] and result.ranking == [1, 2]


def _loans(match: Match, seat: int) -> list[int]:
    return [m["borrow"]["amount"] for m in ENGINE.legal_moves(match.state, seat) if "borrow" in m]


def test_a_loan_is_offered_only_when_the_cash_is_short_for_a_move() -> None:
    # The train stands at the edge of Delhi with an opponent's track ahead and 3M: not enough
    # for the 4M use fee. With 30M nothing needs a loan, so none is offered.
    match = new_match(2, seed=1, mercy_borrowing=True)
    path = _train_at_the_start_of_a_line(match, 3, owner=1)
    state = match.state
    state["players"][0]["cash"] = 30
    assert _loans(match, 0) == []
    assert check_move_is_illegal(match, 0, {"borrow": {"amount": 5}}).code == "loan_not_needed"
    state["players"][0]["cash"] = 3
    assert _loans(match, 0) == list(range(1, 21))
    # Borrowing 1M (2M to repay) pays the fee; the loan's own money does not repay it.
    match.play(0, {"borrow": {"amount": 1}})
    assert match.state["players"][0]["cash"] == 4 and match.state["players"][0]["debt"] == 2
    match.play(0, step(path[1]))
    assert match.state["players"][0]["cash"] == 0 and match.state["players"][0]["debt"] == 2
    # At most 20M may be outstanding: in the next turn, short again, 19M more.
    state = set_turn(match, 0, "operations")
    place(state, 0, path[0])
    state["players"][0]["cash"] = 3
    assert _loans(match, 0) == list(range(1, 20))


def test_a_loan_is_repaid_double_from_the_next_income_or_earlier_by_choice() -> None:
    match = new_match(2, seed=1, mercy_borrowing=True)
    state = set_turn(match, 0, "build")
    state["players"][0]["cash"] = 2
    assert _loans(match, 0)  # 2M buys no segment out of a major city (5M): a loan is offered
    match.play(0, {"borrow": {"amount": 10}})
    player = match.state["players"][0]
    assert (player["cash"], player["debt"]) == (12, 20)
    assert {"repay_loan": {}} not in ENGINE.legal_moves(match.state, 0)
    # Income that brings the cash to the debt repays it at once: here a 4M use fee received.
    player["cash"] = 18
    path = _train_at_the_start_of_a_line(match, 2, owner=0, mover=1)
    events = match.play(1, step(path[1]))
    assert [e["loan_repaid"]["amount"] for e in events if "loan_repaid" in e] == [20]
    assert (match.state["players"][0]["cash"], match.state["players"][0]["debt"]) == (2, 0)
    # A player holding the money may also repay whenever he chooses.
    state = set_turn(match, 0, "build")
    state["players"][0]["cash"], state["players"][0]["debt"] = 30, 10
    match.play(0, {"repay_loan": {}})
    assert (match.state["players"][0]["cash"], match.state["players"][0]["debt"]) == (20, 0)


def test_upgrades_are_limited_by_the_12_loco_cards() -> None:
    # Six freights, two each of fast, heavy and super freight: with both fast freight cards out on
    # other trains, a freight can only become a heavy freight.
    match = new_match(4, seed=1)
    state = set_turn(match, 0, "build")
    state["players"][1]["trains"][0]["loco"] = "fast_freight"
    state["players"][2]["trains"][0]["loco"] = "fast_freight"
    ups = {m["upgrade_train"]["loco"] for m in ENGINE.legal_moves(state, 0) if "upgrade_train" in m}
    assert ups == {"heavy_freight"}
    move = {"upgrade_train": {"train": 0, "loco": "fast_freight"}}
    assert check_move_is_illegal(match, 0, move).code == "no_loco_card"
    shown = {c["loco"]: c["available"] for c in ENGINE.view(state, None)["loco_cards"]}
    assert shown == {"freight": 4, "fast_freight": 0, "heavy_freight": 2, "super_freight": 2}
    # When seat 2 upgrades on to a super freight its fast freight card goes back to the bank.
    state["players"][2]["trains"][0]["loco"] = "super_freight"
    match.play(0, {"upgrade_train": {"train": 0, "loco": "fast_freight"}})
    assert match.state["players"][0]["trains"][0]["loco"] == "fast_freight"
