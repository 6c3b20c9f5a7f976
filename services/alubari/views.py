"""The State proto view: everything public, nothing hidden (the contract deck's order below its top card's back).

The bag's contents are shown by kind: every cube that goes into the bag or comes out of it does so
in view of the table, so they follow from the public history (``seeds/alubari/README.md``, item 19).
The view carries every public fact the rules read, so :mod:`services.alubari.hidden` can rebuild
a full state from it.
"""

from __future__ import annotations

from typing import Any

from services.alubari import actions, railway, tracks
from services.alubari.content import (
    AREAS,
    BOARD,
    CHAI_POINTS,
    CONTRACTS,
    CUBES,
    EQUIPMENT,
    RONDEL,
    STATIONS,
    TRACK,
    per_players,
    station_kind,
)

State = dict[str, Any]

COST_KEYS = ("iron_ore", "stone", "rubble", "steel", "chai", "tea_leaves")


def cost_view(cost: dict[str, int]) -> dict[str, int]:
    """A Cost message."""
    return {key: int(cost.get(key, 0)) for key in COST_KEYS}


def contract_view(card_id: int) -> dict[str, Any]:
    """A Contract message (face-up card)."""
    card = CONTRACTS[card_id]
    effect = card["effect"]
    return {
        "id": card_id,
        "weather": card["weather"],
        "areas": list(card["areas"]),
        "effect": {"kind": effect["kind"], "resource": effect.get("resource", ""), "amount": int(effect["amount"])},
        "requirements": [{"kind": r["kind"], "count": int(r["count"])} for r in card["requirements"]],
        "points": int(card["points"]),
    }


def equipment_view(item: int) -> dict[str, Any]:
    """An Equipment message."""
    card = EQUIPMENT[item]
    return {"id": item, "name": card["name"], "ability": card["ability"], "cost": cost_view(card["cost"]),
            "maintenance": cost_view(card["maintenance"]), "chai": int(card["chai"])}


def player_view(state: State, seat: int) -> dict[str, Any]:
    """A Player message (everything a player holds is public)."""
    player = state["players"][seat]
    mods = player["mods"]
    return {
        "seat": seat,
        "workers": player["workers"],
        "temp_worker": player["temp"],
        "markers": player["markers"],
        "chai": player["chai"],
        "chai_points": CHAI_POINTS[player["chai"]],
        "iron_ore": player["iron_ore"],
        "stone": player["stone"],
        "rubble": player["rubble"],
        "steel": player["steel"],
        "tea_leaves": player["tea_leaves"],
        "equipment": [equipment_view(item) for item in player["equipment"]],
        "contracts": [{"contract": contract_view(h["id"]), "used": h["used"]} for h in player["contracts"]],
        "effects": {"stockyard": mods["stockyard"], "excavation": mods["excavation"],
                    "lay_track": mods["lay_track"], "foundry": mods["foundry"], "free_chai_bonus": list(mods["free"])},
        "sits_out": player["sits_out"],
        "garratt_used": player["garratt_used"],
    }


def board_view(state: State) -> dict[str, Any]:
    """Estates, railway, towns and action areas."""
    open_towns = set(railway.open_towns(state))
    fog_areas = {"D"} | (set() if state["building_card"] else {"B"})
    return {
        "estates": [
            {"slot": e["slot"], "card_id": e["card"], "side": e["side"], "name": e["name"],
             "spaces": [{"index": i, "rubble": s["rubble"], "start_rubble": s["start_rubble"], "vp": s["vp"],
                         "owner": s["owner"], "borrower": s["borrower"]} for i, s in enumerate(e["spaces"])]}
            for e in state["estates"]
        ],
        "track": [
            {"index": i, "from_station": t["from"], "to_station": t["to"], "river": t["river"], "vp": t["vp"],
             "owner": state["track"][i]}
            for i, t in enumerate(TRACK)
        ],
        "towns": [
            {"name": town["name"], "open": index in open_towns,
             "spaces": [{"index": k, "cost": cost_view(space["cost"]), "vp": int(space.get("vp", 0)),
                         "bonus": cost_view(space.get("bonus", {})), "kind": station_kind(space["cost"]),
                         "owner": state["stations"][index][k]} for k, space in enumerate(town["spaces"])]}
            for index, town in enumerate(STATIONS)
        ],
        "areas": [
            {"area": area, "kind": actions.area_kind(state, area),
             "spaces": [{"number": k + 1, "seat": seat,
                         "fog": state["fog"] and area in fog_areas and k == len(spaces) - 1}
                        for k, seat in enumerate(spaces)]}
            for area, spaces in state["areas"].items()
        ],
    }


def view(state: State, seat: int | None, to_act: list[int]) -> dict[str, Any]:
    """The proto3 JSON of ``State`` as ``seat`` (or a spectator) may see it."""
    rates = state["rates"]
    worker = state["worker"]
    window = state["resolve"]["window"] if state["stage"] == "CONTRACTS" else None
    top = tracks.deck_top_weather(state)
    result: dict[str, Any] = {
        "round": state["round"],
        "stage": state["stage"],
        "players": state["n"],
        "viewer": -1 if seat is None else seat,
        "to_act": list(to_act),
        "start_player": state["start_player"],
        "weather_track": [w or "NO_WEATHER" for w in state["weather"]],
        "current_weather": state["weather"][0] or "NO_WEATHER",
        "fog": state["fog"],
        "weather_pool": {k.lower(): v for k, v in state["weather_pool"].items()},
        "work_rates": {"excavation": rates["excavation"], "lay_track": rates["lay_track"],
                       "crop_harvest": tracks.crop_value(state), "crop_harvest_space": rates["crop"],
                       "crop_harvest_end": tracks.CROP_END},
        "chai_track_max": state["chai_max"],
        "stockyard": {cube: state["stockyard"][cube] for cube in CUBES},
        "bag_count": sum(state["bag"].values()),
        "rondel": [{"space": i + 1, "kind": RONDEL[i]["kind"], "has_cube": occupied}
                   for i, occupied in enumerate(state["rondel"])],
        "supply": dict(state["supply"]),
        "engine_shed": [{"equipment": equipment_view(e["id"]), "chai": e["chai"]} for e in state["shed"]],
        "post_office": [{"slot": k, "empty": card is None, **({"contract": contract_view(card)} if card else {})}
                        for k, card in enumerate(state["post"])],
        "deck_count": len(state["deck"]),
        "deck_top_weather": top or "NO_WEATHER",
        "discard_count": len(state["discard"]),
        "building_card": state["building_card"],
        "player_states": [player_view(state, s) for s in range(state["n"])],
        "ending": {"out_of_markers": state["ending"]["out_of_markers"],
                   "extra_round_seat": state["ending"]["extra_round_seat"], "reason": state["ending"]["reason"]},
        "final_scores": [dict(row) for row in (state["final"] or [])],
        "restock_count": int(per_players(BOARD["restock_count"], state["n"])),
        "maintenance_due": [{"seat": seat, "equipment_id": item} for seat, item in state["maintenance"]],
        "bag": dict(state["bag"]),
        "discard": list(state["discard"]),
        "last_event_space": state["rondel_last"] + 1,
        "events_this_round": state["events_this_round"],
        "event_cubes_pending": state["event_cubes_pending"],
        "first_player": int(state["options"].get("first_player", 0)),
    }
    result.update(board_view(state))
    if worker is not None:
        result["worker"] = {key: worker[key] for key in ("seat", "area", "kind", "stage", "count", "limit")}
        result["worker"]["space"] = worker["space"] + 1
        result["worker"]["boosted"] = worker["boost"]
        result["worker"]["chai_cube_taken"] = worker["chai_cube"]
        result["worker"]["free_chai_bonus"] = actions.free_boost(state, worker["seat"], worker["area"])
    if window is not None:
        result["contract_window"] = {"area": AREAS[state["resolve"]["area"]], "seats": list(window)}
    return result
