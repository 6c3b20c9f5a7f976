"""Determinization: a full India Rails state rebuilt from one seat's view, hidden parts sampled.

What a seat cannot see: the other players' cash (until a tax card makes all cash public), the
order of the draw deck, and which cards lie in the discard pile and out of the game (their counts
are public).  Hands, track, trains, loads, events, the tray, the warehouse and the turn so far are
public, and the view carries them all.

Sampling: the cards nobody shows (all cards less hands, open contracts, active events and the tax
cards a variant removes) are shuffled and dealt to the deck, the discard pile and the removed
cards by their counts.  Hidden cash is drawn uniformly from 0 to twice the seat's own cash: the
view gives no better evidence, and no legal move of the seat depends on it.
"""

from __future__ import annotations

from typing import Any

from services.common.engine import Seen, State, View
from services.common.rng import Rng
from services.india_rails.content import BOARD, DEMAND_CARDS, EVENT_CARDS
from services.india_rails.operations import TRACK_FEE


def determinize(seen: Seen, rng: Rng) -> State:
    """A state ``seen.seat`` cannot tell from the real one (see the module docstring)."""
    view = seen.view
    options = dict(view["options"])
    own_cash = view["players"][seen.seat]["cash"]
    state: State = {
        "options": options,
        "players": [_player(p, rng, own_cash) for p in view["players"]],
        "tray": {t["load"]: t["available"] for t in view["tray"]},
        "active": [{"card": a["card"]["id"], "drawer": a["drawn_by"], "expires": a["expires"]}
                   for a in view["active_events"]],
        "reserved": [{"eid": BOARD.edge_between(r["segment"]["a"], r["segment"]["b"]), "owner": r["owner"],
                      "card": r["card"], "open": r["open"], "armed": r["armed"]} for r in view["reserved"]],
        "pending": [dict(choice) for choice in view["pending"]],
        "abort_turn": view["turn_aborted"],
        "open_contracts": [card["id"] for card in view["open_contracts"]],
        "warehouse": [{"at": w["milepost"], "load": w["load"]["load"], "origin": w["load"]["origin_region"],
                       "by": w["dropped_by"], "expires": w["expires"]} for w in view["warehouse"]],
        "offer": dict(view["offer"]) if "offer" in view else None,
        "cash_public": view["cash_public"],
        "win_cash": view["win_cash"],
        "over": view["phase"] == "over",
        "winners": list(view["winners"]),
        "finish_reason": view["finish_reason"],
        "ranking": [],  # only read once the game is over, when nothing is left to decide
        "round": view["round"],
        "building_round": view["building_round"],
        "last_progress": view["last_progress"],
        "initial_rounds": 3 if options["fast_game_start"] else 2,
        "turn": _turn(view["turn"]),
        "first": view["first_player"],
        "current": view["current"],
        "phase": view["phase"],
    }
    state["order"] = _order(state)
    state["pos"] = state["order"].index(state["current"]) if state["current"] in state["order"] else 0
    _deal_cards(state, view, rng)
    return state


def _player(player: dict[str, Any], rng: Rng, own_cash: int) -> dict[str, Any]:
    cash = rng.randbelow(2 * max(own_cash, 1) + 1) if player["cash_hidden"] else player["cash"]
    return {
        "cash": cash,
        "debt": player["debt"],
        "owed": [[payee, TRACK_FEE] for payee in player["fees_owed_to"]],
        "trains": [{"loco": t["loco"], "at": t["milepost"], "prev": t["previous"],
                    "loads": [[load["load"], load["origin_region"]] for load in t["loads"]], "left": t["movement_left"]}
                   for t in player["trains"]],
        "hand": [card["id"] for card in player["hand"]],
        "track": [BOARD.edge_between(s["a"], s["b"]) for s in player["track"]],
        "turns": player["turns_taken"],
        "lost": player["lost_turns"],
        "declared": player["declared"],
    }


def _turn(turn: dict[str, Any]) -> dict[str, Any]:
    return {
        "spent": turn["spent"], "major_segments": turn["major_segments"], "upgraded": turn["upgraded"],
        "crossgraded": turn["crossgraded"], "acted": turn["acted"], "fees_paid": list(turn["fees_paid_to"]),
        "moved_own": turn["moved_own"], "dropped": [[d["milepost"], d["load"]] for d in turn["dropped"]],
        "bought": turn["bought_track"], "offers": turn["offers"],
    }


def _order(state: State) -> list[int]:
    """Turn order: from the first player, reversed in odd initial building rounds (the switchback)."""
    n = len(state["players"])
    forward = [(state["first"] + i) % n for i in range(n)]
    if state["phase"] == "initial_build" and state["building_round"] % 2 == 1:
        return forward[::-1]
    return forward


def _deal_cards(state: State, view: View, rng: Rng) -> None:
    """Deck, discard pile and removed cards share the cards nobody shows."""
    shown = set(state["open_contracts"]) | {a["card"] for a in state["active"]}
    for player in state["players"]:
        shown |= set(player["hand"])
    known_removed = sorted(c for c, spec in EVENT_CARDS.items() if spec["kind"] == "tax") \
        if state["options"]["fast_game_no_tax"] else []
    pool = [c for c in [*sorted(DEMAND_CARDS), *sorted(EVENT_CARDS)] if c not in shown and c not in known_removed]
    rng.shuffle(pool)
    deck_count, discard_count = view["deck_count"], view["discard_count"]
    state["deck"] = pool[:deck_count]
    state["discard"] = pool[deck_count:deck_count + discard_count]
    state["removed"] = known_removed + pool[deck_count + discard_count:]
