"""Decisions the rulebook leaves to the player: the warehouse at any time, real trades only,
rows that can be carried out, and the end of the game in the rulebook's order."""

from __future__ import annotations

import copy

import pytest
from tea_rum_helpers import (
    ENGINE,
    actor,
    at_worker_choice,
    give_action,
    moves_of,
    nicolas_at_the_scale,
    set_warehouse,
    start,
)

from services.common.rng import Rng
from services.common.runner import Match, check_move_is_illegal
from services.tea_rum import rounds

ALL_TOKENS = [0, 1, 2, 3, 4, 5]


def _tokens(match: Match, seat: int) -> list[int]:
    return sorted(m["token"] for m in moves_of(match, seat, "expand_warehouse"))


def _discards(match: Match, seat: int) -> list[str]:
    return sorted(m["resource"] for m in moves_of(match, seat, "discard_resource"))


# ---- the warehouse may be expanded, and a resource discarded, at any time ---------------------


def test_nicolas_unlocks_storage_in_the_middle_of_his_trade() -> None:
    match, nicolas = nicolas_at_the_scale()
    for resource in ("cannon", "cannon", "wheat", "wheat", "wheat"):
        match.play(nicolas, {"trade_buy": {"resource": resource}})
    # The $18 he is buying needs his $9 plus all his ore and wood sold ($13 with the ore on the plate):
    # he can spare $2 for a token, not $3, and can discard nothing he must sell.
    assert _tokens(match, nicolas) == [0, 1, 2, 3, 4]
    assert _discards(match, nicolas) == []
    check_move_is_illegal(match, nicolas, {"expand_warehouse": {"token": 5}})
    check_move_is_illegal(match, nicolas, {"discard_resource": {"resource": "ore"}})

    match.play(nicolas, {"expand_warehouse": {"token": 0}})
    for resource in ("ore", "ore", "wood"):
        match.play(nicolas, {"trade_sell": {"resource": resource}})
    match.play(nicolas, {"trade_plate": {"side": "buy", "resource": "cannon"}})
    match.play(nicolas, {"trade_plate": {"side": "sell", "resource": "ore"}})
    match.play(nicolas, {"trade_confirm": {}})
    player = match.state["players"][nicolas]
    assert player["money"] == 9 - 1 - 5
    assert player["expansions"][0] and player["res"]["cannon"] == 2 and player["res"]["wheat"] == 3


def test_expanding_and_discarding_are_open_at_every_decision() -> None:
    match = start(4, seed=3)
    seat = actor(match)
    set_warehouse(match, seat, wood=1, ore=1)
    match.state["players"][seat]["money"] = 2
    assert match.state["phase"] == "ships"
    assert _tokens(match, seat) == [0, 1, 2, 3, 4] and _discards(match, seat) == ["ore", "wood"]

    match = at_worker_choice(3, seed=5)
    seat = actor(match)
    set_warehouse(match, seat, wheat=1)
    match.state["players"][seat]["money"] = 1
    assert _tokens(match, seat) == [0, 1, 2] and _discards(match, seat) == ["wheat"]  # choosing a worker
    give_action(match, seat, "build")
    assert _tokens(match, seat) == [0, 1, 2] and _discards(match, seat) == ["wheat"]  # in the middle of an action
    # A discard frees space whenever the player likes; the wheat goes back to the supply.
    supply = match.state["supply"]["wheat"]
    match.play(seat, {"discard_resource": {"resource": "wheat"}})
    assert match.state["players"][seat]["res"]["wheat"] == 0 and match.state["supply"]["wheat"] == supply + 1
    assert actor(match) == seat and moves_of(match, seat, "skip_action") == [{}]  # still building


def test_a_barrel_arriving_at_income_into_a_full_warehouse() -> None:
    match = at_worker_choice(3, seed=2)
    state = match.state
    seat = state["first"]
    state["players"][seat]["buildings"] = ["distillery"]  # a barrel at every income
    set_warehouse(match, seat, wood=6)
    state["phase"], state["actor"] = "end_round", -1
    rounds.advance(state, Rng(3), [])
    assert state["round"] == 2 and actor(match) == seat
    assert ENGINE.view(state, seat)["decision"]["kind"] == "overflow"
    assert _tokens(match, seat) == ALL_TOKENS and _discards(match, seat) == ["barrel", "wood"]
    match.play(seat, {"expand_warehouse": {"token": 5}})
    player = match.state["players"][seat]
    assert player["res"]["barrel"] == 1 and player["res"]["wood"] == 6


# ---- a trade must trade something ----------------------------------------------------------


def test_an_empty_trade_cannot_be_confirmed() -> None:
    match = at_worker_choice(3)
    seat = actor(match)
    set_warehouse(match, seat, wood=1)
    match.state["players"][seat]["money"] = 0
    give_action(match, seat, "trade")
    assert moves_of(match, seat, "trade_confirm") == []
    check_move_is_illegal(match, seat, {"trade_confirm": {}})
    assert moves_of(match, seat, "skip_action") == []  # a trade is possible, so it is not skipped
    match.play(seat, {"trade_sell": {"resource": "wood"}})
    assert moves_of(match, seat, "trade_confirm") == [{}]
    match.play(seat, {"trade_confirm": {}})
    assert match.state["players"][seat]["money"] == 3


def test_a_trade_with_nothing_to_sell_or_afford_can_only_be_skipped() -> None:
    match = at_worker_choice(3)
    seat = actor(match)
    set_warehouse(match, seat)
    match.state["players"][seat]["money"] = 1  # the cheapest good, wheat, costs $2
    give_action(match, seat, "trade")
    trade_kinds = {"trade_sell", "trade_buy", "trade_plate", "trade_confirm"}
    assert not any(next(iter(m)) in trade_kinds for m in ENGINE.legal_moves(match.state, seat))
    events = match.play(seat, {"skip_action": {}})
    assert {"action_skipped": {"seat": seat, "action": "trade"}} in events


# ---- a trade gained from a card or the reputation track may be declined ---------------------


def _at_a_card_trade(source: str) -> tuple[Match, int]:
    """A seat (wood and $5) whose queue awaits a trade gained from the reputation track or a captain."""
    match = at_worker_choice(3, seed=4)
    seat = actor(match)
    player = match.state["players"][seat]
    set_warehouse(match, seat, wood=2)
    player["money"] = 5
    if source == "reputation":  # the Governor's alternative (1 star) reaches step 10: a free trade
        player["reputation"] = 9
        match.play(seat, {"worker_action": {"board": "governor", "option": 0, "alternative": True}})
    else:  # captain 18, hired on the Tavern's row: its instant effect is a trade, then a star
        match.state["captains"][0] = 18
        player["money"] = 11
        row = next(m for m in moves_of(match, seat, "worker_action") if m["board"] == "tavern" and not m["alternative"])
        match.play(seat, {"worker_action": row})
        match.play(seat, {"hire_captain": {"captain": 18}})
    assert ENGINE.view(match.state, seat)["decision"]["kind"] == "trade"
    assert not ENGINE.view(match.state, seat)["decision"]["trade"]["from_row"]
    return match, seat


@pytest.mark.parametrize("source", ["reputation", "captain"])
def test_a_trade_gained_from_a_card_can_be_skipped(source: str) -> None:
    match, seat = _at_a_card_trade(source)
    legal = ENGINE.legal_moves(match.state, seat)
    assert {"skip_action": {}} in legal and {"trade_sell": {"resource": "wood"}} in legal
    before = copy.deepcopy(match.state)

    events = match.play(seat, {"skip_action": {}})

    assert events[0] == {"action_skipped": {"seat": seat, "action": "trade"}}
    assert not any("traded" in e for e in events)
    player, was = match.state["players"][seat], before["players"][seat]
    assert all(task["task"] != "trade" for task in player["pending"])
    # The game goes on: the captain's star is still gained (and the reward of its track step), and
    # the warehouse and money change by nothing else; the turn passes to the next seat.
    star = {"reputation_advanced": {"seat": seat, "step": was["reputation"] + 1}}
    assert (star in events) == (source == "captain")
    gained = {k: sum(e["gained"]["amount"] for e in events if e.get("gained", {}).get("kind") == k)
              for k in [*was["res"], "coins"]}
    assert player["res"] == {r: n + gained[r] for r, n in was["res"].items()}
    assert player["money"] == was["money"] + gained["coins"]
    assert match.state["supply"] == {r: n - gained[r] for r, n in before["supply"].items()}
    assert match.state["stage"] == "choose" and actor(match) != seat
    assert ENGINE.legal_moves(match.state, actor(match))


def test_a_card_trade_can_be_declined_after_putting_goods_on_the_scale() -> None:
    match, seat = _at_a_card_trade("reputation")
    match.play(seat, {"trade_sell": {"resource": "wood"}})
    match.play(seat, {"trade_buy": {"resource": "ore"}})
    assert {"skip_action": {}} in ENGINE.legal_moves(match.state, seat)
    match.play(seat, {"skip_action": {}})
    player = match.state["players"][seat]
    assert player["res"]["wood"] == 2 and player["res"]["ore"] == 0 and player["money"] == 5


# ---- a row is offered only if its action can be carried out ---------------------------------


def _fixed_rows(match: Match) -> None:
    """Top rows (4 workers): Governor contract / 2 blue, Harbour trade + star, Tavern captain + $2,
    Builders build + star."""
    for board, prefix in zip(match.state["boards"], ("governor", "harbour", "tavern", "builders"), strict=True):
        board["tiles"] = [f"{prefix}_{x}" for x in ("a", "b", "d", "c")] if prefix == "governor" else [
            f"{prefix}_{x}" for x in ("a", "b", "c", "d")]


def test_a_row_that_cannot_be_carried_out_is_not_offered_but_the_alternative_is() -> None:
    match = at_worker_choice(4, seed=2)
    seat = actor(match)
    _fixed_rows(match)
    set_warehouse(match, seat)
    match.state["players"][seat]["money"] = 0
    # Removing from a full board uses row 4.  With no goods and no money no contract, trade,
    # captain or building is possible: only the "2 blue" side of the Governor's "/" and the
    # four alternatives remain.
    offered = moves_of(match, seat, "worker_action")
    assert sorted((m["board"], m["option"], m["alternative"]) for m in offered) == [
        ("builders", 0, True), ("governor", 0, True), ("governor", 1, False), ("harbour", 0, True),
        ("tavern", 0, True),
    ]
    check_move_is_illegal(match, seat, {"worker_action": {"board": "harbour", "option": 0, "alternative": False}})

    # With one ore to sell, the Harbour's trade row becomes possible.
    set_warehouse(match, seat, ore=1)
    offered = moves_of(match, seat, "worker_action")
    assert {"board": "harbour", "option": 0, "alternative": False} in offered
    match.play(seat, {"worker_action": {"board": "harbour", "option": 0, "alternative": False}})
    assert moves_of(match, seat, "trade_sell") == [{"resource": "ore"}]
    assert moves_of(match, seat, "skip_action") == []  # the row was chosen to trade: no skipping it


# ---- the end of the game: every captain first, then every allegiance proof -------------------


def test_all_captains_are_activated_before_any_allegiance_is_proved() -> None:
    match = at_worker_choice(3, seed=13)
    state = match.state
    first = state["first"]
    second, third = (first + 1) % 3, (first + 2) % 3
    for p in state["players"]:
        p.update(pending=[], captains=[], allegiance=0, allegiance_done=False)
    # The first player swore allegiance 10 (a barrel, a tobacco and a cannon) and has a captain
    # wanting one cannon; the second has a captain and a cannon, and allegiance 9 ($20).
    state["players"][first].update(allegiance=10, captains=[{"id": 1, "face_up": True}])
    set_warehouse(match, first, barrel=1, tobacco=1, cannon=1)
    state["players"][second].update(allegiance=9, money=25, captains=[{"id": 3, "face_up": True}])
    set_warehouse(match, second, cannon=1)
    set_warehouse(match, third)
    state["phase"], state["stage"], state["actor"] = "final", "captains", -1
    rounds.advance(state, Rng(2), [])

    assert actor(match) == first
    assert ENGINE.view(match.state, first)["decision"]["kind"] == "final_captains"
    assert moves_of(match, first, "activate_captain") == [{"captain": 1}]
    assert moves_of(match, first, "prove_allegiance") == []  # proofs come after every activation
    match.play(first, {"finish_final": {}})  # keeps the cannon for the allegiance

    assert actor(match) == second
    match.play(second, {"activate_captain": {"captain": 3}})  # +3 blue; no captain left to activate

    # Every activation is over: now the proofs, in turn order; the third player has none to make.
    assert actor(match) == first and match.state["stage"] == "allegiances"
    assert ENGINE.view(match.state, first)["decision"]["kind"] == "final_allegiance"
    assert moves_of(match, first, "activate_captain") == []
    match.play(first, {"prove_allegiance": {}})
    assert match.state["players"][first]["allegiance_done"]
    assert actor(match) == second
    match.play(second, {"finish_final": {}})  # proving is the player's choice
    assert match.state["phase"] == "exchange" and not match.state["players"][second]["allegiance_done"]
