"""Determinization: a full Alubari state rebuilt from one seat's view, the contract deck's order sampled.

Alubari keeps no secret of one seat from another; what nobody sees is the contract deck's order.
The back of its top card (the weather icon) is public, and so is everything else the rules read:
every holding, the board, the bag's contents by kind (every cube goes in and comes out in view),
the discard pile (each card in it lay face up in the Post Office), the rondel's last event space.

Sampling: the deck is every contract nobody shows (not in the Post Office, a hand or the discard
pile), shuffled, with a random one of those showing the public weather on top.  The cube box (out
of play, read by no rule) follows from what is in play.  What a view shows only through the step
being decided (the temporary-worker queue, where resolution stands) is rebuilt from the rules that
produce it.
"""

from __future__ import annotations

from typing import Any

from services.alubari import rounds
from services.alubari.content import AREAS, CONTRACTS, CUBE_BOX, CUBES
from services.common.engine import Seen, State, View
from services.common.rng import Rng

MOD_KEYS = ("stockyard", "excavation", "lay_track", "foundry")
WORKER_KEYS = ("seat", "area", "kind", "stage", "count", "limit")


def determinize(seen: Seen, rng: Rng) -> State:
    """A state ``seen.seat`` cannot tell from the real one (see the module docstring)."""
    view = seen.view
    n = view["players"]
    to_act = list(view["to_act"])
    state: State = {
        "n": n,
        "options": {"cover_alubari": _covered(view), "first_player": view.get("first_player", 0)},
        "round": view["round"],
        "stage": view["stage"],
        "current": to_act[0] if to_act else -1,
        "start_player": view["start_player"],
        "temp_queue": [],
        "weather": [None if w == "NO_WEATHER" else w for w in view["weather_track"]],
        "weather_pool": {kind.upper(): count for kind, count in view["weather_pool"].items()},
        "rates": {"excavation": view["work_rates"]["excavation"], "lay_track": view["work_rates"]["lay_track"],
                  "crop": view["work_rates"]["crop_harvest_space"]},
        "fog": view["fog"],
        "chai_max": view["chai_track_max"],
        "stockyard": {cube: view["stockyard"][cube] for cube in CUBES},
        "bag": {kind: view["bag"].get(kind, 0) for kind in (*CUBES, "event")},
        "rondel": [space["has_cube"] for space in view["rondel"]],
        "rondel_last": view.get("last_event_space", 0) - 1,
        "events_this_round": view.get("events_this_round", 0),
        "event_cubes_pending": view.get("event_cubes_pending", 0),
        "maintenance": [[due["seat"], due["equipment_id"]] for due in view["maintenance_due"]],
        "supply": dict(view["supply"]),
        "estates": [_estate(estate) for estate in view["estates"]],
        "track": [space["owner"] for space in view["track"]],
        "stations": [[space["owner"] for space in town["spaces"]] for town in view["towns"]],
        "shed": [{"id": entry["equipment"]["id"], "chai": entry["chai"]} for entry in view["engine_shed"]],
        "discard": list(view.get("discard", [])),
        "post": [None if slot["empty"] else slot["contract"]["id"] for slot in view["post_office"]],
        "building_card": view["building_card"],
        "areas": {area["area"]: [space["seat"] for space in area["spaces"]] for area in view["areas"]},
        "players": [_player(player) for player in view["player_states"]],
        "resolve": _resolve(view),
        "worker": _worker(view),
        "ending": dict(view["ending"]),
        "final": [dict(row) for row in view["final_scores"]] if view["stage"] == "OVER" else None,
    }
    state["box"] = _box(state)
    state["deck"] = _deck(view, state, rng)
    if state["stage"] == "TEMP_WORKER":
        state["temp_queue"] = _temp_queue(state)
    return state


def _covered(view: View) -> bool:
    """The ``cover_alubari`` option: the printed Alubari estate (card 0) is not in the first slot."""
    return bool(view["estates"][0]["card_id"] != 0)


def _estate(estate: dict[str, Any]) -> dict[str, Any]:
    spaces = [{"rubble": s["rubble"], "start_rubble": s["start_rubble"], "vp": s["vp"], "owner": s["owner"],
               "borrower": s["borrower"]} for s in estate["spaces"]]
    return {"slot": estate["slot"], "card": estate["card_id"], "side": estate["side"], "name": estate["name"],
            "spaces": spaces}


def _player(player: dict[str, Any]) -> dict[str, Any]:
    effects = player["effects"]
    return {
        "workers": player["workers"], "temp": player["temp_worker"], "markers": player["markers"],
        "chai": player["chai"], "iron_ore": player["iron_ore"], "stone": player["stone"],
        "rubble": player["rubble"], "steel": player["steel"], "tea_leaves": player["tea_leaves"],
        "equipment": [item["id"] for item in player["equipment"]],
        "contracts": [{"id": held["contract"]["id"], "used": held["used"]} for held in player["contracts"]],
        "mods": {**{key: effects[key] for key in MOD_KEYS}, "free": list(effects["free_chai_bonus"])},
        "garratt_used": player.get("garratt_used", False), "sits_out": player["sits_out"],
    }


def _worker(view: View) -> dict[str, Any] | None:
    """The worker being resolved (only while its seat decides one of its steps)."""
    shown = view.get("worker")
    if shown is None or view["stage"] != "WORKER":
        return None
    worker = {key: shown[key] for key in WORKER_KEYS}
    worker.update(space=shown["space"] - 1, boost=shown["boosted"], chai_cube=shown.get("chai_cube_taken", False))
    return worker


def _resolve(view: View) -> dict[str, Any]:
    """Where Phase 5 stands: the area and space being resolved, or the contract window's seats.

    Outside resolution the engine keeps what the last resolution left (read by nothing before the
    next one resets it): the first round's start, the cut of a two-player extra round, or the end
    of area G with the turn order of that moment.
    """
    window = view.get("contract_window")
    if view["stage"] == "CONTRACTS" and window is not None:
        return {"area": AREAS.index(window["area"]), "window": list(window["seats"]), "space": 0}
    worker = view.get("worker")
    if view["stage"] == "WORKER" and worker is not None:
        return {"area": AREAS.index(worker["area"]), "window": None, "space": worker["space"]}
    if view["round"] == 1:
        return {"area": 0, "window": None, "space": 0}
    if view["ending"]["extra_round_seat"] >= 0:
        return {"area": len(AREAS), "window": None, "space": 0}
    n = view["players"]
    return {"area": len(AREAS), "window": [(view["start_player"] + k) % n for k in range(n)], "space": 0}


def _box(state: State) -> dict[str, int]:
    """Cubes left in the game box: every cube of the game less those in play (chai on shed Equipment too)."""
    box: dict[str, int] = {}
    for cube in ("iron_ore", "stone"):
        held = sum(player[cube] for player in state["players"])
        box[cube] = CUBE_BOX[cube] - state["bag"][cube] - state["stockyard"][cube] - held
    on_shed = sum(entry["chai"] for entry in state["shed"])
    box["chai"] = CUBE_BOX["chai"] - state["bag"]["chai"] - state["stockyard"]["chai"] - on_shed
    on_rondel = sum(1 for occupied in state["rondel"] if occupied)
    box["event"] = CUBE_BOX["event"] - state["bag"]["event"] - on_rondel - state["event_cubes_pending"]
    return box


def _deck(view: View, state: State, rng: Rng) -> list[int]:
    """The contracts nobody shows, shuffled, one with the public weather on top (the list's end)."""
    shown = {card for card in state["post"] if card is not None} | set(state["discard"])
    shown |= {held["id"] for player in state["players"] for held in player["contracts"]}
    deck = [card for card in sorted(CONTRACTS) if card not in shown]
    rng.shuffle(deck)
    top = view["deck_top_weather"]
    if not deck or top == "NO_WEATHER":
        return deck
    tops = [k for k, card in enumerate(deck) if CONTRACTS[card]["weather"] == top]
    pick = tops[rng.randbelow(len(tops))]
    deck[pick], deck[-1] = deck[-1], deck[pick]
    return deck


def _temp_queue(state: State) -> list[int]:
    """Seats still to decide on their third worker: the one asked now, then the later ones who can."""
    order = rounds.turn_order(state)
    current = state["current"]
    later = order[order.index(current) + 1:]
    return [current, *(seat for seat in later if rounds.temp_choices(state, seat))]
