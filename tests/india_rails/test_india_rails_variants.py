"""The rulebook's optional rules, each switched on by its own option."""

from __future__ import annotations

import copy

from india_rails_fixtures import ENGINE, lay, neighbours, new_match, place, refused_options, set_turn

from services.bots.roster import bots_for
from services.common.rng import Rng
from services.common.runner import Match, check_move_is_illegal
from services.india_rails.cards import resolve_event
from services.india_rails.content import BOARD, DEMAND_CARDS, EVENT_CARDS


def _line_from(start: int, length: int) -> list[int]:
    path = [start]
    while len(path) <= length:
        nxt = next(v for v, e in BOARD.adjacency[path[-1]]
                   if v not in path and not BOARD.city_at[v] and not BOARD.river[e] and not BOARD.strait[e])
        path.append(nxt)
    return path


def test_options_are_validated() -> None:
    assert refused_options(2, {"fast_trains": "yes"}) == "bad_option_type"
    assert refused_options(2, {"time_limit_rounds": -1}) == "bad_time_limit"
    assert refused_options(7, {}) == "bad_player_count"
    merged = ENGINE.validate_options(2, {"fast_game": True})
    assert merged["fast_game_start"] and merged["fast_game_no_tax"] and merged["fast_game_five_cards"]


def test_fast_trains_run_12_and_16_mileposts() -> None:
    state = set_turn(new_match(2, seed=1, fast_trains=True), 0, "operations")
    assert state["players"][0]["trains"][0]["left"] == 12
    assert ENGINE.view(state, 0)["players"][0]["trains"][0]["speed"] == 12
    state["players"][0]["trains"][0]["loco"] = "super_freight"
    assert ENGINE.view(state, 0)["players"][0]["trains"][0]["speed"] == 16


def test_open_contracts_take_a_discarded_hand_and_anyone_may_fill_them() -> None:
    match = new_match(2, seed=1, open_contracts=True)
    state = set_turn(match, 0, "operations")
    old = list(state["players"][0]["hand"])
    match.play(0, {"discard_hand": {}})
    assert match.state["open_contracts"] == old
    state = set_turn(match, 1, "operations")
    card = old[0]
    demand = DEMAND_CARDS[card]["demands"][0]
    train = place(state, 1, BOARD.cities[demand["city"]].anchor)
    train["loads"] = [[demand["load"], "Nepal" if demand["load"] == "Pilgrims" else ""]]
    state["tray"][demand["load"]] -= 1
    move = {"deliver": {"train": 0, "slot": 0, "card": card, "demand": 0, "open_contract": True}}
    cash = state["players"][1]["cash"]
    match.play(1, move)
    assert match.state["players"][1]["cash"] == cash + demand["payout"]
    assert card not in match.state["open_contracts"] and card in match.state["discard"]


def test_field_warehousing_keeps_a_dropped_load_for_four_turns() -> None:
    match = new_match(2, seed=1, field_warehousing=True)
    state = set_turn(match, 0, "operations")
    patna = BOARD.cities["Patna"].anchor
    train = place(state, 0, patna)
    train["loads"] = [["Tea", ""]]
    state["tray"]["Tea"] -= 1
    match.play(0, {"drop_load": {"train": 0, "slot": 0}})
    assert match.state["warehouse"][0]["load"] == "Tea"
    assert {"pick_up": {"train": 0, "load": "Tea", "from_warehouse": True}} not in ENGINE.legal_moves(match.state, 0)
    match.play(0, {"end_operations": {}})
    match.play(0, {"end_turn": {}})
    state = set_turn(match, 1, "operations")
    place(state, 1, patna)
    assert {"pick_up": {"train": 0, "load": "Tea", "from_warehouse": True}} in ENGINE.legal_moves(state, 1)
    for _ in range(4):
        state = set_turn(match, 0, "build")
        assert state["warehouse"]
        match.play(0, {"end_turn": {}})
    assert not match.state["warehouse"] and match.state["tray"]["Tea"] == 3


def test_cost_to_move_charges_1m_a_turn_on_own_track() -> None:
    match = new_match(2, seed=1, cost_to_move=True)
    state = match.state
    start = BOARD.cities["Nagpur"].anchor
    path = _line_from(start, 4)
    lay(state, 0, path)
    set_turn(match, 0, "operations")
    place(state, 0, start)
    cash = state["players"][0]["cash"]
    match.play(0, {"move_train": {"train": 0, "to_milepost": path[1]}})
    match.play(0, {"move_train": {"train": 0, "to_milepost": path[2]}})
    assert match.state["players"][0]["cash"] == cash - 1


def test_cost_to_load_uses_a_milepost_of_movement() -> None:
    match = new_match(2, seed=1, cost_to_load=True)
    state = set_turn(match, 0, "operations")
    place(state, 0, BOARD.cities["Patna"].anchor)
    match.play(0, {"pick_up": {"train": 0, "load": "Steel", "from_warehouse": False}})
    assert match.state["players"][0]["trains"][0]["left"] == 8
    match.state["players"][0]["trains"][0]["left"] = 0
    assert not [m for m in ENGINE.legal_moves(match.state, 0) if "pick_up" in m or "drop_load" in m]


def test_reshuffle_on_tax_removes_the_card_and_reshuffles() -> None:
    match = new_match(2, seed=1, reshuffle_on_tax=True)
    state = match.state
    tax = next(c for c, spec in EVENT_CARDS.items() if spec["kind"] == "tax")
    state["deck"].remove(tax)
    state["discard"] = [state["deck"].pop() for _ in range(5)]
    size = len(state["deck"]) + len(state["discard"])
    resolve_event(state, tax, 0, Rng(2), [])
    assert tax in state["removed"] and not state["discard"] and len(state["deck"]) == size


def test_crossgrading_costs_5m_and_leaves_15m_for_track() -> None:
    match = new_match(2, seed=1, crossgrading=True)
    state = set_turn(match, 0, "build")
    state["players"][0]["trains"][0]["loco"] = "fast_freight"
    match.play(0, {"crossgrade_train": {"train": 0, "loco": "heavy_freight"}})
    after = match.state
    assert after["players"][0]["trains"][0]["loco"] == "heavy_freight" and after["turn"]["spent"] == 5
    assert not [m for m in ENGINE.legal_moves(after, 0) if "crossgrade_train" in m or "upgrade_train" in m]


def test_backtracking_reverses_anywhere_at_the_cost_of_the_turn() -> None:
    match = new_match(2, seed=1, mercy_backtracking=True)
    state = match.state
    path = _line_from(BOARD.cities["Nagpur"].anchor, 5)
    lay(state, 0, path)
    set_turn(match, 0, "operations")
    place(state, 0, path[3], prev=path[2])
    assert {"move_train": {"train": 0, "to_milepost": path[2]}} not in ENGINE.legal_moves(state, 0)
    match.play(0, {"backtrack": {"train": 0}})
    assert match.state["current"] == 1 and match.state["players"][0]["trains"][0]["prev"] == -1
    state = set_turn(match, 0, "operations")
    assert {"move_train": {"train": 0, "to_milepost": path[2]}} in ENGINE.legal_moves(state, 0)


def test_backtracking_on_someone_elses_segment_pays_their_use_fee() -> None:
    match = new_match(2, seed=1, mercy_backtracking=True)
    state = match.state
    path = _line_from(BOARD.cities["Nagpur"].anchor, 5)
    lay(state, 1, path[:4])
    lay(state, 0, path[3:])
    set_turn(match, 0, "operations")
    # The train came in over seat 1's segment, though its own track also meets this milepost.
    place(state, 0, path[3], prev=path[2])
    state["players"][0]["cash"] = 3
    assert {"backtrack": {"train": 0}} not in ENGINE.legal_moves(state, 0)  # no cash for the fee
    state["players"][0]["cash"] = 30
    cash = [p["cash"] for p in state["players"]]
    events = match.play(0, {"backtrack": {"train": 0}})
    assert [e["fee_paid"]["payee"] for e in events if "fee_paid" in e] == [1]
    assert [p["cash"] for p in match.state["players"]] == [cash[0] - 4, cash[1] + 4]
    # Backtracking on its own segment costs nothing.
    state = set_turn(match, 0, "operations")
    place(state, 0, path[4], prev=path[3])
    events = match.play(0, {"backtrack": {"train": 0}})
    assert not [e for e in events if "fee_paid" in e]


def test_additional_trains_give_a_freight_and_a_fast_freight_that_both_move() -> None:
    match = new_match(2, seed=1, additional_trains=True, four_card_hands=True)
    state = match.state
    assert [t["loco"] for t in state["players"][0]["trains"]] == ["freight", "fast_freight"]
    assert all(len(p["hand"]) == 4 for p in state["players"])
    state = set_turn(match, 0, "operations", trains_placed=False)
    assert [t["left"] for t in state["players"][0]["trains"]] == [9, 12]
    places = {m["place_train"]["train"] for m in ENGINE.legal_moves(state, 0) if "place_train" in m}
    assert places == {0, 1}


def _offer(seller: int, a: int, b: int, price: int, give: tuple[int, int] = (-1, -1)) -> dict:
    return {"offer_track": {"seller": seller, "a": a, "b": b, "price": price, "give_a": give[0], "give_b": give[1]}}


def test_track_is_sold_for_whatever_price_the_seller_accepts_in_the_buyers_turn() -> None:
    match = new_match(2, seed=1, track_trading=True)
    state = match.state
    delhi = BOARD.cities["Delhi"]
    outpost = delhi.mileposts[1]
    out = next(v for v in neighbours(outpost) if v not in delhi.mileposts)
    beyond = next(v for v in neighbours(out) if v != outpost and v not in delhi.mileposts)
    lay(state, 1, [outpost, out, beyond])
    set_turn(match, 0, "build")
    state["players"][0]["cash"] = 30
    # Instead of building, the buyer may name any whole price up to his cash, for the segment that
    # touches a major city (the one beyond it touches nothing of his yet).
    far = BOARD.edges[BOARD.edge_between(out, beyond)]
    assert _offered_segments(match, 0) == {BOARD.edges[BOARD.edge_between(outpost, out)]}
    prices = {m["offer_track"]["price"] for m in ENGINE.legal_moves(state, 0)
              if "offer_track" in m and m["offer_track"]["give_a"] == -1}
    assert prices == set(range(1, 31))
    a, b = BOARD.edges[BOARD.edge_between(outpost, out)]
    match.play(0, _offer(1, a, b, 3))
    assert ENGINE.to_act(match.state) == [1] and match.state["phase"] == "offer"
    events = match.play(1, {"answer_offer": {"accept": False}})
    assert events[-1]["track_sold"]["accepted"] is False and match.state["current"] == 0
    # A better offer in the same turn; the seller agrees and the segment changes colour.
    match.play(0, _offer(1, a, b, 12))
    match.play(1, {"answer_offer": {"accept": True}})
    eid = BOARD.edge_between(a, b)
    after = match.state
    assert eid in after["players"][0]["track"] and eid not in after["players"][1]["track"]
    assert after["players"][0]["cash"] == 18 and after["players"][1]["cash"] == 62
    # The purchase replaced the turn's building, but the buyer may go on making offers (two of the
    # turn's three are used): the segment just bought brings the one beyond it within reach, for any
    # price up to the cash left or in exchange for the segment just bought.
    legal = ENGINE.legal_moves(after, 0)
    assert not [m for m in legal if "build_track" in m]
    assert _offered_segments(match, 0) == {far}
    offers = [m["offer_track"] for m in legal if "offer_track" in m]
    assert {o["price"] for o in offers if o["give_a"] == -1} == set(range(1, 19))
    assert [(o["give_a"], o["give_b"]) for o in offers if o["give_a"] != -1] == [(a, b)]
    match.play(0, _offer(1, far[0], far[1], 5))
    match.play(1, {"answer_offer": {"accept": True}})
    after = match.state
    assert BOARD.edge_between(*far) in after["players"][0]["track"] and after["players"][1]["track"] == []
    assert after["players"][0]["cash"] == 13 and after["players"][1]["cash"] == 67
    # The third offer was the turn's last: nothing more to offer or build, only the end of the turn.
    legal = ENGINE.legal_moves(after, 0)
    assert [m for m in legal if "build_track" in m or "offer_track" in m] == [] and {"end_turn": {}} in legal


def _offered_segments(match: Match, seat: int) -> set[tuple[int, int]]:
    """The segments ``seat`` may make an offer for now."""
    return {(m["offer_track"]["a"], m["offer_track"]["b"]) for m in ENGINE.legal_moves(match.state, seat)
            if "offer_track" in m}


def _neighbours_track(match: Match) -> list[int]:
    """Seat 1's segment out of Delhi and seat 0's segment on from it, in seat 0's building turn;
    the three mileposts."""
    delhi = BOARD.cities["Delhi"]
    path = [delhi.mileposts[1], *_line_from(delhi.mileposts[1], 3)[1:]]
    lay(match.state, 1, path[:2])
    lay(match.state, 0, path[1:3])
    set_turn(match, 0, "build")
    return path


def test_track_may_be_traded_for_track_with_no_money() -> None:
    match = new_match(2, seed=1, track_trading=True)
    state = match.state
    path = _neighbours_track(match)
    wanted = BOARD.edges[BOARD.edge_between(path[0], path[1])]
    given = BOARD.edges[BOARD.edge_between(path[1], path[2])]
    swap = _offer(1, wanted[0], wanted[1], 0, given)
    assert swap in ENGINE.legal_moves(state, 0)
    cash = [p["cash"] for p in state["players"]]
    match.play(0, swap)
    match.play(1, {"answer_offer": {"accept": True}})
    after = match.state
    assert after["players"][0]["track"] == [BOARD.edge_between(*wanted)]
    assert after["players"][1]["track"] == [BOARD.edge_between(*given)]
    assert [p["cash"] for p in after["players"]] == cash


def test_refusals_carry_stable_codes() -> None:
    match = new_match(2, seed=1)
    seat = match.state["current"]
    assert check_move_is_illegal(match, 1 - seat, {"end_turn": {}}).code == "not_your_turn"
    assert check_move_is_illegal(match, seat, {"end_operations": {}}).code == "wrong_phase"
    assert check_move_is_illegal(match, seat, {"fly": {}}).code in ("illegal_move", "malformed_move")


def test_the_heuristic_bot_sells_track_for_three_times_its_cost_and_never_swaps() -> None:
    match = new_match(2, seed=1, track_trading=True)
    path = _neighbours_track(match)
    eid = BOARD.edge_between(path[0], path[1])
    a, b = BOARD.edges[eid]
    cost = min(BOARD.build_cost[eid])
    bot = bots_for(ENGINE)["heuristic"]
    given = BOARD.edges[BOARD.edge_between(path[1], path[2])]
    for offer, accepted in ((_offer(1, a, b, 3 * cost), True), (_offer(1, a, b, 3 * cost - 1), False),
                            (_offer(1, a, b, 0, given), False)):
        trial = new_match(2, seed=1, track_trading=True)
        trial.snapshot.state = copy.deepcopy(match.state)
        trial.play(0, offer)
        assert bot.choose(ENGINE, ENGINE.seen(trial.state, 1), Rng(1)) == {"answer_offer": {"accept": accepted}}
