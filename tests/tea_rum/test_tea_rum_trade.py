"""The trade scale, step by step, as in the rulebook's example with Nicolas."""

from __future__ import annotations

from tea_rum_helpers import actor, at_worker_choice, give_action, moves_of, nicolas_at_the_scale, set_warehouse

from services.common.runner import check_move_is_illegal


def _scale(match, seat):  # type: ignore[no-untyped-def]
    return match.state["players"][seat]["pending"][0]


def test_nicolas_buys_cannons_and_wheat_and_sells_ore_and_wood() -> None:
    match, nicolas = nicolas_at_the_scale()

    # Buy 2 cannons and 3 wheat: 7 + 7 + 2 + 2 + 2 = $20.
    for resource in ("cannon", "cannon", "wheat", "wheat", "wheat"):
        match.play(nicolas, {"trade_buy": {"resource": resource}})
    view = match.engine.view(match.state, nicolas)["decision"]["trade"]
    assert view["buy_value"] == 20

    # Wheat may not go on the buying plate; cannons may: 6 + 6 + 2 + 2 + 2 = $18.
    assert {"side": "buy", "resource": "wheat"} not in moves_of(match, nicolas, "trade_plate")
    match.play(nicolas, {"trade_plate": {"side": "buy", "resource": "cannon"}})
    assert match.engine.view(match.state, nicolas)["decision"]["trade"]["buy_value"] == 18

    # A type being bought cannot be sold in the same trade.
    assert {"resource": "cannon"} not in moves_of(match, nicolas, "trade_sell")
    assert {"resource": "wheat"} not in moves_of(match, nicolas, "trade_sell")

    # Sell 2 ore and 1 wood: 4 + 4 + 3 = $11, and with the ore on the +1 plate 5 + 5 + 3 = $13.
    for resource in ("ore", "ore", "wood"):
        match.play(nicolas, {"trade_sell": {"resource": resource}})
    assert match.engine.view(match.state, nicolas)["decision"]["trade"]["sell_value"] == 11
    assert {"resource": "ore"} not in moves_of(match, nicolas, "trade_buy")
    match.play(nicolas, {"trade_plate": {"side": "sell", "resource": "ore"}})
    scale = match.engine.view(match.state, nicolas)["decision"]["trade"]
    assert scale["sell_value"] == 13
    assert scale["balance"] == 5

    # Nicolas adds $5 and the scale balances at $18 = $18.
    events = match.play(nicolas, {"trade_confirm": {}})
    traded = next(e["traded"] for e in events if "traded" in e)
    assert traded["buy_value"] == traded["sell_value"] + traded["coins_paid"] == 18
    assert traded["coins_paid"] == 5
    player = match.state["players"][nicolas]
    assert player["money"] == 4
    assert player["res"]["cannon"] == 2 and player["res"]["wheat"] == 3
    assert player["res"]["ore"] == 0 and player["res"]["wood"] == 0


def test_cannons_never_go_on_the_selling_plate() -> None:
    match = at_worker_choice(4)
    seat = actor(match)
    set_warehouse(match, seat, cannon=2)
    give_action(match, seat, "trade")
    match.play(seat, {"trade_sell": {"resource": "cannon"}})
    assert moves_of(match, seat, "trade_plate") == []
    check_move_is_illegal(match, seat, {"trade_plate": {"side": "sell", "resource": "cannon"}})
    match.play(seat, {"trade_sell": {"resource": "cannon"}})
    money = match.state["players"][seat]["money"]
    match.play(seat, {"trade_confirm": {}})
    assert match.state["players"][seat]["money"] == money + 14


def test_buying_is_limited_by_money_after_sales() -> None:
    match = at_worker_choice(3)
    seat = actor(match)
    set_warehouse(match, seat)
    match.state["players"][seat]["money"] = 3
    give_action(match, seat, "trade")
    assert {"resource": "ore"} not in moves_of(match, seat, "trade_buy")
    assert {"resource": "wood"} in moves_of(match, seat, "trade_buy")
    check_move_is_illegal(match, seat, {"trade_buy": {"resource": "cannon"}})
