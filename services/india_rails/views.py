"""What a seat sees: the public board, its own cash (others' only after a tax card), the turn record."""

from __future__ import annotations

from typing import Any

from services.common.engine import State, View
from services.india_rails import basics
from services.india_rails import cards as deck
from services.india_rails import operations as ops
from services.india_rails import track as tracks
from services.india_rails.content import (
    BOARD,
    demand_card_json,
    event_card_json,
)

MAP_ID = "india-rails-lattice-v1"


def view(state: State, seat: int | None) -> View:
    """The public board plus the viewer's own cash (others' cash only after a tax card)."""
    players = []
    for s, p in enumerate(state["players"]):
        hidden = not state["cash_public"] and s != seat
        players.append({
            "seat": s, "cash": 0 if hidden else p["cash"], "cash_hidden": hidden,
            "trains": [_train_view(state, t) for t in p["trains"]],
            "hand": [demand_card_json(c) for c in p["hand"]],
            "track": [{"a": BOARD.edges[e][0], "b": BOARD.edges[e][1]} for e in p["track"]],
            "turns_taken": p["turns"], "lost_turns": p["lost"], "debt": p["debt"], "borrowed": p["debt"] // 2,
            "connected": tracks.connected_majors(p["track"]), "declared": p["declared"],
            "fees_owed_to": [payee for payee, _ in p["owed"]],
        })
    turn = state["turn"]
    view: View = {
        "phase": state["phase"], "current": state["current"], "first_player": state["first"],
        "building_round": state["building_round"], "round": state["round"], "players": players,
        "deck_count": len(state["deck"]), "discard_count": len(state["discard"]),
        "active_events": [{"card": event_card_json(a["card"]), "drawn_by": a["drawer"], "expires": a["expires"]}
                          for a in state["active"]],
        "tray": [{"load": load, "available": count} for load, count in sorted(state["tray"].items())],
        "loco_cards": [{"loco": loco, "available": max(0, count)}
                       for loco, count in basics.loco_cards_left(state).items()],
        "open_contracts": [demand_card_json(c) for c in state["open_contracts"]],
        "warehouse": [{"milepost": w["at"], "load": {"load": w["load"], "origin_region": w["origin"]},
                       "dropped_by": w["by"], "expires": w["expires"]} for w in state["warehouse"]],
        "cash_public": state["cash_public"],
        "turn": {"spent": turn["spent"], "major_segments": turn["major_segments"], "upgraded": turn["upgraded"],
                 "crossgraded": turn["crossgraded"], "acted": turn["acted"],
                 "fees_paid_to": list(turn["fees_paid"]), "bought_track": turn["bought"],
                 "moved_own": turn["moved_own"], "offers": turn["offers"],
                 "dropped": [{"milepost": at, "load": load} for at, load in turn["dropped"]]},
        "win_cash": state["win_cash"], "winners": list(state["winners"]), "options": dict(state["options"]),
        "pending": [dict(c) for c in state["pending"]],
        "reserved": [{"segment": {"a": BOARD.edges[r["eid"]][0], "b": BOARD.edges[r["eid"]][1]},
                      "owner": r["owner"], "card": r["card"], "open": r["open"], "armed": r["armed"]}
                     for r in state["reserved"]],
        "finish_reason": state["finish_reason"], "map_id": MAP_ID,
        "last_progress": state.get("last_progress", 0), "turn_aborted": state["abort_turn"],
        "removed_count": len(state["removed"]),
    }
    if state["offer"]:
        view["offer"] = dict(state["offer"])
        view["offer_buyer"] = state["current"]
    return view


def _train_view(state: State, train: dict[str, Any]) -> dict[str, Any]:
    return {"loco": train["loco"], "milepost": train["at"], "previous": train["prev"],
            "loads": [deck.load_json(load) for load in train["loads"]], "movement_left": train["left"],
            "speed": ops.speed(state, train["loco"]), "capacity": ops.capacity(train["loco"])}

