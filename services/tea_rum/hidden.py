"""Determinization: a full Tea & Rum state rebuilt from one seat's view, hidden parts sampled.

What a seat cannot see: the VP in another player's closed chest, another player's secret end-game
exchange, the order (and, for later rounds, the choice) of the captain deck, the contract deck's
order, the automa's undrawn tokens and the face-down victory type cards; and the queue of things
another player still has to resolve (the view shows only the decision awaited and its length).

Sampling: the captain deck takes, for each round still to come, random captains of that round's
pile (the game keeps only some of each pile); the contract deck is the contracts nobody shows,
shuffled; the automa bag is the tokens not drawn yet, shuffled; the face-down victory cards are
random cards of those not revealed.  A closed chest holds random VP from what the round makes
plausible (blue at least the chest threshold); a secret exchange is taken as not made yet (the
owner may still be exchanging, or have exchanged nothing).  Another player's queue is left empty
when it is not the one awaited (queued income waiting for the turn order); the awaited queue of
another player keeps its head and fills its length with gains of nothing.
"""

from __future__ import annotations

from typing import Any

from services.common.engine import Seen, State, View
from services.common.rng import Rng
from services.tea_rum.content import CONTENT, RESOURCES

ROUNDS: int = CONTENT.rules["rounds"]
NOTHING: dict[str, Any] = {"task": "gain", "gain": {"kind": "coins", "amount": 0, "options": []}}


def determinize(seen: Seen, rng: Rng) -> State:
    """A state ``seen.seat`` cannot tell from the real one (see the module docstring)."""
    view = seen.view
    n = view["num_players"]
    state: State = {
        "n": n,
        "options": {},
        "round": view["round"],
        "phase": view["phase"],
        "first": view["first_player"],
        "actor": view["actor"],
        "players": [_player(view, p, seen.seat, rng) for p in view["players"]],
        "supply": dict(view["supply"]),
        "buildings": {b["building"]: b["copies"] for b in view["buildings"]},
        "contracts": [c["contract"] for c in view["contracts"]],
        "allegiances": [{"id": a["allegiance"], "taken_by": a["taken_by"]} for a in view["allegiances"]],
        "captains": [c["captain"] for c in view["captains"]],
        "boards": [{"tiles": [row["tile"] for row in b["rows"]], "workers": list(b["workers"])}
                   for b in view["action_boards"]],
        "rounds": [{"wish": r["wish"], "side": r["reward_colour"]} for r in view["rounds"]],
        "ships": [{"id": s["ship"], "taken": s["taken"]} for s in view["ships"]],
        "ship_turn": view["ship_turn"],
        "order": list(view["action_order"]),
        "turn": view["action_turn"],
        "stage": view["stage"],
        "label_a": next((p["seat"] for p in view["players"] if p["label"] == "A"), -1),
        "victory_cards": [r["victory_type"] for r in view["rounds"] if r["victory_type"]],
        "final": view.get("final"),
    }
    state["captain_deck"] = _captain_deck(view, n, rng)
    state["contract_deck"] = _contract_deck(view, state, rng)
    state["automa"], state["victory_hidden"] = _automa(view, state, rng)
    _awaited_queue(view, state, seen.seat)
    return state


def _player(view: View, p: dict[str, Any], seat: int, rng: Rng) -> dict[str, Any]:
    own = p["seat"] == seat or view["phase"] == "over"
    blue, red = (p["blue_vp"], p["red_vp"]) if not p["vp_hidden"] else _chest(view, rng)
    return {
        "seat": p["seat"],
        "money": p["money"],
        "population": p["population"],
        "reputation": p["reputation"],
        "blue": blue,
        "red": red,
        "chest": p["chest"],
        "res": {r: p["warehouse"][r] for r in RESOURCES},
        "expansions": [t["bought"] for t in p["expansion_tokens"]],
        "buildings": list(p["buildings"]),
        "captains": [{"id": c["captain"], "face_up": c["face_up"]} for c in p["captains"]],
        "contracts": list(p["contracts"]),
        "allegiance": p["allegiance"],
        "allegiance_done": p["allegiance_fulfilled"],
        "endowment": p["endowment"],
        "pending": [_task(task) for task in p["queue"]] if own else [],
        "ships_passed": p["ships_passed"],
        "final_done": p["final_done"],
        # Another player's secret exchange: done once it no longer has to act, its amounts unknown (none).
        "exchange_done": p["exchange_done"] if own else (view["phase"] == "exchange"
                                                         and p["seat"] not in view["to_act"]),
        "exchanged": {"blue": p["exchanged_blue"], "red": p["exchanged_red"]} if own else {"blue": 0, "red": 0},
    }


def _chest(view: View, rng: Rng) -> tuple[int, int]:
    """Plausible VP in a closed chest: blue from the threshold up, a few more each round."""
    threshold: int = CONTENT.rules["chest_threshold"]["blue"]
    spread = 3 * view["round"] + 1
    return threshold + rng.randbelow(spread), rng.randbelow(spread)


def _task(task: dict[str, Any]) -> dict[str, Any]:
    """A ``QueuedTask`` view entry back as the engine's task."""
    kind = task["kind"]
    if kind == "gain":
        return {"task": "gain", "gain": task["gain"]}
    if kind == "choose":
        return {"task": "choose", "options": task["options"]}
    if kind == "trade":
        return {"task": "trade", "sell": _sparse(task["sell"]), "buy": _sparse(task["buy"]),
                "sell_plate": task["sell_plate"], "buy_plate": task["buy_plate"],
                "from_row": task.get("from_row", False)}
    if kind in ("build", "contract", "captain"):
        return {"task": kind, "discount": task["discount"]}
    return {"task": kind}


def _sparse(counts: dict[str, int]) -> dict[str, int]:
    return {r: n for r, n in counts.items() if n}


def _captain_deck(view: View, n: int, rng: Rng) -> list[int]:
    """Random captains of each round still to come, as many as the game keeps per round."""
    keep: int = CONTENT.rules["captains_per_round"][str(n)]
    rounds_left = view["captain_deck_count"] // keep
    deck: list[int] = []
    for rnd in range(ROUNDS - rounds_left + 1, ROUNDS + 1):
        pile = sorted(c for c, card in CONTENT.captains.items() if card["round"] == rnd)
        rng.shuffle(pile)
        deck += pile[:keep]
    return deck


def _contract_deck(view: View, state: State, rng: Rng) -> list[int]:
    shown = {c for c in state["contracts"] if c} | {c for p in state["players"] for c in p["contracts"]}
    deck = [c for c in sorted(CONTENT.contracts) if c not in shown]
    rng.shuffle(deck)
    return deck[: view["contract_deck_count"]]


def _automa(view: View, state: State, rng: Rng) -> tuple[dict[str, Any], list[str]]:
    """The automa's undrawn tokens and the face-down victory cards (2 players only)."""
    if "automa" not in view:
        return {"bag": [], "drawn": []}, []
    shown = view["automa"]
    bag = list(CONTENT.rules["automa"]["tokens"])
    for token in shown["drawn"]:
        bag.remove(token)
    rng.shuffle(bag)
    cards = list(CONTENT.rules["automa"]["victory_type_cards"])
    for card in state["victory_cards"]:
        cards.remove(card)
    rng.shuffle(cards)
    automa = {"bag": bag[: shown["tokens_left"]], "drawn": list(shown["drawn"])}
    return automa, cards[: shown["victory_cards_face_down"]]


def _awaited_queue(view: View, state: State, seat: int) -> None:
    """Another player's awaited queue: the decision shown, then gains of nothing up to its length."""
    decision = view.get("decision")
    actor = view["actor"]
    if decision is None or actor < 0 or actor == seat or view["phase"] == "over":
        return
    if decision["kind"] in ("worker", "after_action", "ship", "final_captains", "final_allegiance", "overflow"):
        head: list[dict[str, Any]] = []
    else:
        head = [_task({**decision, "gain": None, "sell": decision.get("trade", {}).get("sell", {}),
                       "buy": decision.get("trade", {}).get("buy", {}),
                       "sell_plate": decision.get("trade", {}).get("sell_plate", ""),
                       "buy_plate": decision.get("trade", {}).get("buy_plate", ""),
                       "from_row": decision.get("trade", {}).get("from_row", False)})]
    filler = [dict(NOTHING) for _ in range(decision["queued"] - len(head))]
    state["players"][actor]["pending"] = head + filler
