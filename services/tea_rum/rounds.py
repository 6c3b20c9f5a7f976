"""Setup and the flow of a game: five rounds of six phases, then the end of the game.

:func:`advance` runs everything automatic (income, reveals, the automa, wishes,
population, end of round, the final sale and scoring) until some seat must decide.
"""

from __future__ import annotations

from typing import Any

from services.common.rng import Rng
from services.tea_rum.actions import AUTOMA, board_key
from services.tea_rum.automa import action_order, automa_turn, fresh_tokens
from services.tea_rum.content import CONTENT, RESOURCES
from services.tea_rum.effects import Events, State, add_vp, check_allegiances, gain_tasks, settle
from services.tea_rum.players import activatable_captains, can_prove_by_paying, continuous, new_player, wish_totals
from services.tea_rum.reach import early_governor
from services.tea_rum.scoring import final_result

ROUNDS = CONTENT.rules["rounds"]


# ---- setup -----------------------------------------------------------------------


def _buildings(n: int, rng: Rng) -> dict[str, int]:
    """The building stock: copies per type, without the types removed from the game."""
    copies = CONTENT.rules["building_copies"][str(n)]
    stock = dict.fromkeys(CONTENT.building_order, copies)
    if CONTENT.rules["remove_one_type_per_colour"][str(n)]:
        colours = sorted({b["colour"] for b in CONTENT.buildings.values()})
        for colour in colours:
            kinds = [b for b in CONTENT.building_order if CONTENT.buildings[b]["colour"] == colour]
            del stock[rng.choice(kinds)]
    return stock


def _captain_deck(n: int, rng: Rng) -> list[int]:
    keep = CONTENT.rules["captains_per_round"][str(n)]
    deck: list[int] = []
    for rnd in range(1, ROUNDS + 1):
        pile = [c for c, card in CONTENT.captains.items() if card["round"] == rnd]
        rng.shuffle(pile)
        deck += pile[:keep]
    return deck


def _action_boards(n: int, rng: Rng) -> list[dict[str, Any]]:
    boards = []
    for board in CONTENT.boards:
        tiles = list(board["tiles"])
        rng.shuffle(tiles)
        if n < 4:
            # The tile whose 2-3 player face is blank goes on the top row, which 3 workers never reach.
            blank = [t for t in tiles if CONTENT.tiles[t]["two_three"] is None]
            tiles = [t for t in tiles if t not in blank] + blank
        boards.append({"tiles": tiles, "workers": []})
    return boards


def setup_state(n: int, options: dict[str, Any], rng: Rng) -> State:
    """A new game for ``n`` players, up to the first decision."""
    key = board_key({"n": n})
    stock = _buildings(n, rng)
    contract_deck = sorted(CONTENT.contracts)
    rng.shuffle(contract_deck)
    spaces = len(CONTENT.rules["contract_spaces"][key])
    allegiance_ids = sorted(CONTENT.allegiances)
    rng.shuffle(allegiance_ids)
    allegiance_ids = allegiance_ids[: CONTENT.rules["allegiance_spaces"][key]]
    deck = _captain_deck(n, rng)
    per_round = CONTENT.rules["captains_per_round"][str(n)]
    sides = [rng.choice(["blue", "red"]) for _ in range(ROUNDS)]
    wish_cards = sorted(CONTENT.wishes)
    rng.shuffle(wish_cards)
    state: State = {
        "n": n,
        "options": dict(options),
        "round": 1,
        "phase": "income",
        "first": 0,
        "actor": -1,
        "players": [new_player(s) for s in range(n)],
        "supply": dict(CONTENT.supply),
        "buildings": stock,
        "contracts": contract_deck[:spaces],
        "contract_deck": contract_deck[spaces:],
        "allegiances": [{"id": a, "taken_by": -1} for a in allegiance_ids],
        "captains": deck[:per_round],
        "captain_deck": deck[per_round:],
        "boards": _action_boards(n, rng),
        "rounds": [{"wish": wish_cards[r], "side": sides[r]} for r in range(ROUNDS)],
        "ships": [],
        "ship_turn": 0,
        "order": [],
        "turn": 0,
        "stage": "choose",
        "label_a": -1,
        "automa": {"bag": [], "drawn": []},
        "victory_cards": [],
        "victory_hidden": [],
        "final": None,
    }
    workers = list(range(n)) + ([AUTOMA] if n == 2 else [])
    for board in state["boards"]:
        board["workers"] = list(workers)
    _endowments(state, rng)
    if n == 2:
        state["label_a"] = state["first"]
        cards = list(CONTENT.rules["automa"]["victory_type_cards"])
        rng.shuffle(cards)
        state["victory_hidden"] = cards[:ROUNDS]
    return state


def _endowments(state: State, rng: Rng) -> None:
    ids = sorted(CONTENT.endowments)
    rng.shuffle(ids)
    scratch: Events = []
    for player, eid in zip(state["players"], ids, strict=False):
        card = CONTENT.endowments[eid]
        player["endowment"] = eid
        player["money"] += card["coins"]
        player["pending"] = gain_tasks(card["gains"])
        settle(state, player, scratch)
    money = [p["money"] for p in state["players"]]
    state["first"] = money.index(min(money))


# ---- the flow --------------------------------------------------------------------


def turn_order(state: State) -> list[int]:
    """Seats from the first player, clockwise."""
    n = state["n"]
    return [(state["first"] + i) % n for i in range(n)]


def _seat_with_decision(state: State, events: Events) -> int | None:
    order = turn_order(state)
    if state["phase"] in ("actions", "final") and state["actor"] >= 0:
        order = [state["actor"], *[s for s in order if s != state["actor"]]]
    for seat in order:
        if not settle(state, state["players"][seat], events):
            return seat
    return None


def advance(state: State, rng: Rng, events: Events) -> None:
    """Run automatic steps until a seat must decide or the game is over."""
    while state["phase"] != "over":
        check_allegiances(state, events)
        if early_governor(state) is not None:
            _decide_early(state, events)
            return
        seat = _seat_with_decision(state, events)
        if seat is not None:
            state["actor"] = seat
            return
        if PHASES[state["phase"]](state, rng, events):
            return


def _decide_early(state: State, events: Events) -> None:
    """End a 2-player game whose Governor is already certain (the rulebook's early decision)."""
    state["final"] = final_result(state, events, early=True)
    state["phase"] = "over"
    state["actor"] = -1


def _income(state: State, rng: Rng, events: Events) -> bool:
    if state["n"] == 2:
        colour = state["victory_hidden"].pop(0)
        state["victory_cards"].append(colour)
    events.append({"round_started": {"round": state["round"],
                                     "victory_type": state["victory_cards"][-1] if state["n"] == 2 else ""}})
    if state["n"] == 2:
        state["automa"] = {"bag": fresh_tokens(rng), "drawn": []}
    for seat in turn_order(state):
        p = state["players"][seat]
        coins = p["population"] + continuous(p, "income_coins")
        p["money"] += coins
        events.append({"income": {"seat": seat, "coins": coins}})
        for r in RESOURCES:
            n = continuous(p, f"income_{r}")
            if n:
                p["pending"] += gain_tasks([{"kind": r, "amount": n, "options": []}])
    count = CONTENT.rules["ships_per_round"][str(state["n"])]
    ships = sorted(rng.sample(sorted(CONTENT.ships), count))
    state["ships"] = [{"id": s, "taken": False} for s in ships]
    events.append({"ships_revealed": {"ships": ships}})
    for p in state["players"]:
        p["ships_passed"] = False
    state["ship_turn"] = state["first"]
    state["phase"] = "ships"
    return False


def ship_price(player: dict[str, Any], ship: int) -> int:
    """A ship's cost for this player after ship discounts."""
    return max(0, CONTENT.ships[ship]["cost"] - continuous(player, "ship_discount"))


def affordable_ships(state: State, player: dict[str, Any]) -> list[int]:
    """Face-up ships the player can pay for."""
    return [s["id"] for s in state["ships"] if not s["taken"] and player["money"] >= ship_price(player, s["id"])]


def _ships(state: State, rng: Rng, events: Events) -> bool:
    n = state["n"]
    for i in range(n):
        seat = (state["ship_turn"] + i) % n
        p = state["players"][seat]
        if p["ships_passed"]:
            continue
        if not affordable_ships(state, p):
            p["ships_passed"] = True
            events.append({"ships_passed": {"seat": seat}})
            continue
        state["ship_turn"] = seat
        state["actor"] = seat
        return True
    state["phase"] = "actions"
    state["order"] = action_order(state)
    state["turn"] = 0
    state["stage"] = "choose"
    state["actor"] = -1
    return False


def _actions(state: State, rng: Rng, events: Events) -> bool:
    while state["turn"] < len(state["order"]):
        who = state["order"][state["turn"]]
        if who == AUTOMA:
            automa_turn(state, rng, events)
            state["turn"] += 1
            continue
        state["actor"] = who
        if state["stage"] == "choose":
            return True
        if activatable_captains(state["players"][who]):
            return True
        end_turn(state)
    state["phase"] = "wishes"
    state["actor"] = -1
    return False


def end_turn(state: State) -> None:
    """The next worker turn of the action phase."""
    state["turn"] += 1
    state["stage"] = "choose"


def wish_ranking(totals: list[int]) -> tuple[list[int], list[int]]:
    """Seats rewarded first and second; ties for first share it and leave no second; 0 never scores."""
    scoring = [(t, s) for s, t in enumerate(totals) if t > 0]
    if not scoring:
        return [], []
    top = max(t for t, _ in scoring)
    firsts = [s for t, s in scoring if t == top]
    if len(firsts) > 1:
        return firsts, []
    rest = [(t, s) for t, s in scoring if t < top]
    if not rest:
        return firsts, []
    runner = max(t for t, _ in rest)
    return firsts, [s for t, s in rest if t == runner]


def _wishes(state: State, rng: Rng, events: Events) -> bool:
    rnd = state["rounds"][state["round"] - 1]
    symbols = CONTENT.wishes[rnd["wish"]]["symbols"]
    reward = CONTENT.wish_rewards[state["round"]]
    totals = [sum(wish_totals(p)[s] for s in symbols) for p in state["players"]]
    firsts, seconds = wish_ranking(totals)
    events.append({"wishes_scored": {"round": state["round"], "totals": totals, "first": firsts,
                                     "second": seconds, "colour": rnd["side"]}})
    for seat in turn_order(state):
        amount = reward["first"] if seat in firsts else reward["second"] if seat in seconds else 0
        if amount:
            add_vp(state, state["players"][seat], rnd["side"], amount, events)
    state["phase"] = "population"
    return False


def _population(state: State, rng: Rng, events: Events) -> bool:
    top = CONTENT.rules["population"]["max"]
    for p in state["players"]:
        p["population"] = min(top, p["population"] + 1)
        events.append({"gained": {"seat": p["seat"], "kind": "population", "amount": 1}})
    state["phase"] = "end_round"
    return False


def _end_round(state: State, rng: Rng, events: Events) -> bool:
    if state["round"] == ROUNDS:
        state["phase"] = "final"
        state["stage"] = "captains"
        state["actor"] = -1
        return False
    kept = [c for c in state["contracts"] if c]
    spaces = [0] * (len(state["contracts"]) - len(kept)) + kept
    for i, cid in enumerate(spaces):
        if not cid and state["contract_deck"]:
            spaces[i] = state["contract_deck"].pop(0)
    state["contracts"] = spaces
    per_round = CONTENT.rules["captains_per_round"][str(state["n"])]
    added = state["captain_deck"][:per_round]
    state["captain_deck"] = state["captain_deck"][per_round:]
    state["captains"] += added
    state["first"] = (state["first"] + 1) % state["n"]
    events.append({"round_ended": {"round": state["round"], "contracts": spaces, "captains_added": added,
                                   "first_player": state["first"]}})
    state["round"] += 1
    state["phase"] = "income"
    return False


# The end of the game, in the rulebook's order: every captain activation, then every proof.
FINAL_STAGES = {"captains": activatable_captains, "allegiances": can_prove_by_paying}


def _final(state: State, rng: Rng, events: Events) -> bool:
    while True:
        has_decision = FINAL_STAGES[state["stage"]]
        for seat in turn_order(state):
            p = state["players"][seat]
            if not p["final_done"] and has_decision(p):
                state["actor"] = seat
                return True
        for p in state["players"]:
            p["final_done"] = False
        if state["stage"] == "allegiances":
            break
        state["stage"] = "allegiances"
    _final_sale(state, events)
    state["phase"] = "exchange"
    state["actor"] = -1
    return False


def _final_sale(state: State, events: Events) -> None:
    """Everything left in the warehouses is sold at base price."""
    for p in state["players"]:
        coins = sum(CONTENT.prices[r] * n for r, n in p["res"].items())
        for r, n in p["res"].items():
            state["supply"][r] += n
            p["res"][r] = 0
        p["money"] += coins
        events.append({"final_sale": {"seat": p["seat"], "coins": coins}})


def _exchange(state: State, rng: Rng, events: Events) -> bool:
    if any(not p["exchange_done"] for p in state["players"]):
        return True
    state["final"] = final_result(state, events)
    state["phase"] = "over"
    return True


PHASES = {
    "income": _income,
    "ships": _ships,
    "actions": _actions,
    "wishes": _wishes,
    "population": _population,
    "end_round": _end_round,
    "final": _final,
    "exchange": _exchange,
}

__all__ = ["advance", "end_turn", "setup_state", "turn_order", "wish_ranking"]
