"""The action areas A-G: what one worker may do there, step by step, and each chai bonus."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.alubari import contracts, estates, railway, tracks
from services.alubari.content import BOARD, CUBES, EQUIPMENT, STATIONS, TOWN_INDEX, TOWN_NAMES
from services.alubari.supply import gain_chai, gain_from_supply, markers_placed, pay
from services.common.rng import Rng

State = dict[str, Any]
Move = dict[str, Any]
Body = dict[str, Any]
Events = list[dict[str, Any]]

LIMITS = BOARD["base_limits"]
BONUS = BOARD["chai_bonus"]

KIND_BY_AREA = {
    "A": "STOCKYARD", "B": "EXCAVATION", "C": "FOUNDRY", "D": "LAY_TRACK",
    "E": "BUILDING", "F": "POST_OFFICE", "G": "CHAIWALA",
}


def area_kind(state: State, area: str) -> str:
    """What an area does now (B becomes a Building area once every estate is clear)."""
    if area == "B" and state["building_card"]:
        return "BUILDING"
    return KIND_BY_AREA[area]


def abilities(state: State, seat: int) -> set[str]:
    """Abilities of the seat's Equipment."""
    return railway.owned_abilities(state, seat)


# ---- what is possible -----------------------------------------------------------------------


def steel_cost(state: State, seat: int) -> int:
    """Iron ore needed to make one steel bar (the Blast Furnace saves one)."""
    return int(LIMITS["make_steel_iron"]) - (1 if "BLAST_FURNACE" in abilities(state, seat) else 0)


def foundry_options(state: State, seat: int) -> list[Move]:
    """Foundry mini-actions ``seat`` can afford now."""
    player = state["players"][seat]
    moves: list[Move] = []
    if player["iron_ore"] >= steel_cost(state, seat) and state["supply"]["steel"] > 0:
        moves.append({"foundry": {"mini_action": "MAKE_STEEL", "stone_source": "NO_SOURCE"}})
    if player["rubble"] >= LIMITS["make_stone_rubble"]:
        if state["stockyard"]["stone"] > 0:
            moves.append({"foundry": {"mini_action": "MAKE_STONE", "stone_source": "FROM_STOCKYARD"}})
        if state["bag"]["stone"] > 0:
            moves.append({"foundry": {"mini_action": "MAKE_STONE", "stone_source": "FROM_BAG"}})
    if player["stone"] > 0 and state["supply"]["rubble"] >= LIMITS["smash_stone_rubble"]:
        moves.append({"foundry": {"mini_action": "SMASH_STONE", "stone_source": "NO_SOURCE"}})
    return moves


def equipment_cost(item: int) -> dict[str, int]:
    """The price printed on an Equipment card."""
    return {k: v for k, v in EQUIPMENT[item]["cost"].items() if v}


def building_options(state: State, seat: int) -> list[Move]:
    """Station spaces and Equipment ``seat`` can pay for now."""
    player = state["players"][seat]
    moves: list[Move] = [
        {"build_station": {"town": TOWN_NAMES[town], "space": space}}
        for town, space in railway.buildable_stations(state, seat)
    ]
    for entry in state["shed"]:
        if railway.can_pay(player, equipment_cost(entry["id"])):
            moves.append({"buy_equipment": {"equipment_id": entry["id"]}})
    return moves


def chaiwala_options(state: State, seat: int) -> list[Move]:
    """Take leaves (not on the leftmost crop space) or convert leaves into chai one for one."""
    player = state["players"][seat]
    moves: list[Move] = []
    if state["rates"]["crop"] > 0:
        moves.append({"chaiwala_take_leaves": {}})
    room = state["chai_max"] - player["chai"]
    moves.extend({"chaiwala_convert": {"leaves": n}} for n in range(1, min(player["tea_leaves"], room) + 1))
    return moves


def stockyard_options(state: State, worker: dict[str, Any]) -> list[Move]:
    """Cubes the worker may still take, and the choice to stop."""
    moves: list[Move] = []
    if worker["count"] < worker["limit"]:
        for cube in CUBES:
            if state["stockyard"][cube] <= 0:
                continue
            if cube == "chai" and worker["chai_cube"]:
                continue
            moves.append({"take_cube": {"cube": cube.upper()}})
    if moves:
        moves.append({"end_action": {}})
    return moves


def boost_allowed(kind: str) -> bool:
    """Every area but the Chaiwala has a chai bonus."""
    return kind != "CHAIWALA"


def action_possible(state: State, seat: int, kind: str) -> bool:
    """Whether a worker there can do anything at all (else its action is lost)."""
    player = state["players"][seat]
    if kind == "STOCKYARD":
        return sum(state["stockyard"].values()) > 0
    if kind == "EXCAVATION":
        return estates.rubble_left(state) > 0
    if kind == "FOUNDRY":
        return bool(foundry_options(state, seat))
    if kind == "LAY_TRACK":
        return player["steel"] > 0 and player["markers"] > 0 and railway.track_remaining(state) > 0
    if kind == "BUILDING":
        return bool(building_options(state, seat))
    if kind == "POST_OFFICE":
        if any(card is not None for card in state["post"]):
            return True
        can_boost = player["chai"] > 0 or "F" in player["mods"]["free"]
        return can_boost and bool(state["deck"] or state["discard"])
    return bool(chaiwala_options(state, seat))


# ---- a worker's steps -------------------------------------------------------------------------


def start_worker(state: State, seat: int, area: str, space: int, rng: Rng, events: Events) -> bool:
    """Begin resolving one worker.  Returns True if it needs a decision from its seat."""
    kind = area_kind(state, area)
    worker = {"seat": seat, "area": area, "space": space, "kind": kind, "stage": "BOOST",
              "boost": False, "count": 0, "limit": 0, "chai_cube": False}
    state["worker"] = worker
    player = state["players"][seat]
    if kind == "STOCKYARD" and space == len(state["areas"]["A"]) - 1:
        state["start_player"] = seat
        events.append({"start_player_changed": {"seat": seat}})
    if not action_possible(state, seat, kind):
        events.append({"action_lost": {"seat": seat, "area": area, "space": space + 1}})
        state["worker"] = None
        return False
    if kind == "STOCKYARD" and "TOY_TRAIN" in abilities(state, seat):
        gain_from_supply(state, seat, "tea_leaves", 1)  # only a worker that does take action A
    if boost_allowed(kind) and (free_boost(state, seat, area) or player["chai"] > 0):
        return True
    return begin_action(state, rng, events)


def free_boost(state: State, seat: int, area: str) -> bool:
    """Whether a played free-chai-bonus contract covers ``area`` for ``seat`` this round."""
    return area in state["players"][seat]["mods"]["free"]


def boost_moves(_state: State) -> list[Move]:
    """Take the stronger action (for one chai, or free under a played contract), or not."""
    return [{"chai_boost": {"use": True}}, {"chai_boost": {"use": False}}]


def apply_boost(state: State, use: bool, rng: Rng, events: Events) -> bool:
    """Settle the chai decision and start the action.  Returns True if a decision follows."""
    worker = state["worker"]
    seat = worker["seat"]
    if use:
        paid = not free_boost(state, seat, worker["area"])
        if paid:
            state["players"][seat]["chai"] -= 1
        worker["boost"] = True
        events.append({"chai_boost": {"seat": seat, "area": worker["area"], "paid": paid}})
    return begin_action(state, rng, events)


def begin_action(state: State, rng: Rng, events: Events) -> bool:
    """Run the automatic actions, set up the stepwise ones.  Returns True if a decision follows."""
    worker = state["worker"]
    worker["stage"] = "ACT"
    seat, kind, boost = worker["seat"], worker["kind"], worker["boost"]
    mods = state["players"][seat]["mods"]
    if kind == "EXCAVATION":
        amount = state["rates"]["excavation"] + mods["excavation"] + (BONUS["excavation_extra"] if boost else 0)
        amount += 1 if "EXCAVATOR" in abilities(state, seat) else 0
        estates.excavate(state, seat, amount, events)
        return finish_worker(state)
    if kind == "LAY_TRACK":
        do_lay_track(state, seat, boost, events)
        return finish_worker(state)
    if kind == "STOCKYARD":
        extra = BONUS["stockyard_extra_cubes"] if boost else 0
        worker["limit"] = LIMITS["stockyard_cubes"] + mods["stockyard"] + extra
    elif kind == "FOUNDRY":
        worker["limit"] = (
            LIMITS["foundry_mini_actions"] + mods["foundry"] + (BONUS["foundry_extra_mini_actions"] if boost else 0)
        )
    elif kind == "BUILDING":
        worker["limit"] = 1 + (BONUS["building_extra_builds"] if boost else 0)
    elif kind == "POST_OFFICE":
        worker["limit"] = 1
        if boost:
            contracts.refresh_post(state, rng, events)
    else:
        worker["limit"] = 1
    return needs_decision(state)


def do_lay_track(state: State, seat: int, boost: bool, events: Events) -> None:
    """Lay track at the work rate (+2 with chai), one steel bar and one marker per space."""
    player = state["players"][seat]
    rate = state["rates"]["lay_track"] + player["mods"]["lay_track"] + (BONUS["lay_track_extra"] if boost else 0)
    rate += 1 if "TROLLEY" in abilities(state, seat) else 0
    count = min(rate, player["steel"], player["markers"])
    laid, rivers = railway.lay_track(state, seat, count, events)
    player["steel"] -= laid
    state["supply"]["steel"] += laid
    markers_placed(state, seat, laid)
    if rivers:
        gain_chai(state, seat, rivers)
    if laid and "GARRATT" in abilities(state, seat) and not player["garratt_used"]:
        player["garratt_used"] = True
        gain_chai(state, seat, 1)


def worker_moves(state: State) -> list[Move]:
    """Every legal step of the worker being resolved."""
    worker = state["worker"]
    if worker["stage"] == "BOOST":
        return boost_moves(state)
    seat, kind = worker["seat"], worker["kind"]
    if kind == "STOCKYARD":
        return stockyard_options(state, worker)
    if worker["count"] >= worker["limit"]:
        return []
    if kind == "FOUNDRY":
        options = foundry_options(state, seat)
        return [*options, {"end_action": {}}] if options else []
    if kind == "BUILDING":
        options = building_options(state, seat)
        if options and worker["count"] > 0:
            options.append({"end_action": {}})
        return options
    if kind == "POST_OFFICE":
        return [{"take_contract": {"slot": slot}} for slot, card in enumerate(state["post"]) if card is not None]
    return chaiwala_options(state, seat)


def needs_decision(state: State) -> bool:
    """True if the current worker has choices left; otherwise it is finished."""
    if worker_moves(state):
        return True
    return finish_worker(state)


def finish_worker(state: State) -> bool:
    """The worker's action is over."""
    state["worker"] = None
    return False


def apply_worker_move(state: State, move: Move, rng: Rng, events: Events) -> bool:
    """Apply one step of the current worker.  Returns True if the worker still has decisions."""
    worker = state["worker"]
    seat = worker["seat"]
    kind = next(iter(move))
    body = move[kind]
    if kind == "chai_boost":
        return apply_boost(state, bool(body.get("use", False)), rng, events)
    if kind == "end_action":
        return finish_worker(state)
    worker["count"] += 1
    step = WORKER_STEPS.get(kind)
    if step is not None:
        step(state, seat, body, events)
    return needs_decision(state)


def stockyard_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Stockyard: take one cube, remembering a chai cube (a worker may take only one)."""
    take_cube(state, seat, body["cube"].lower(), events)
    if body["cube"] == "CHAI":
        state["worker"]["chai_cube"] = True


def foundry_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Foundry: one mini-action."""
    foundry(state, seat, body["mini_action"], body.get("stone_source", "NO_SOURCE"), events)


def build_station_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Building: one station space."""
    build_station(state, seat, TOWN_INDEX[body["town"]], int(body.get("space", 0)), events)


def buy_equipment_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Building: one Equipment from the Engine shed."""
    buy_equipment(state, seat, int(body["equipment_id"]), events)


def post_office_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Post Office: take one face-up contract."""
    take_contract(state, seat, int(body.get("slot", 0)), events)


def chaiwala_take_leaves_step(state: State, seat: int, _body: Body, events: Events) -> None:
    """Chaiwala: take tea leaves worth the crop value (+1 with the Withering Shed)."""
    bonus = 1 if "WITHERING_SHED" in abilities(state, seat) else 0
    gained = gain_from_supply(state, seat, "tea_leaves", int(tracks.crop_value(state)) + bonus)
    events.append({"chaiwala": {"seat": seat, "leaves_taken": gained, "chai_made": 0}})


def chaiwala_convert_step(state: State, seat: int, body: Body, events: Events) -> None:
    """Chaiwala: turn tea leaves into chai one for one."""
    converted = int(body["leaves"])
    pay(state, seat, {"tea_leaves": converted})
    gain_chai(state, seat, converted)
    events.append({"chaiwala": {"seat": seat, "leaves_taken": 0, "chai_made": converted}})


WorkerStep = Callable[[State, int, Body, Events], None]

# Only these steps count against the worker's limit; the chai decision and end_action do not.
WORKER_STEPS: dict[str, WorkerStep] = {
    "take_cube": stockyard_step,
    "foundry": foundry_step,
    "build_station": build_station_step,
    "buy_equipment": buy_equipment_step,
    "take_contract": post_office_step,
    "chaiwala_take_leaves": chaiwala_take_leaves_step,
    "chaiwala_convert": chaiwala_convert_step,
}


def take_cube(state: State, seat: int, cube: str, events: Events) -> None:
    """One cube from the stockyard; chai is recorded on the chai track and its cube returns to the bag."""
    state["stockyard"][cube] -= 1
    if cube == "chai":
        state["bag"]["chai"] += 1
        gain_chai(state, seat, 1)
    else:
        state["players"][seat][cube] += 1
    events.append({"cube_taken": {"seat": seat, "cube": cube.upper()}})


def foundry(state: State, seat: int, mini: str, source: str, events: Events) -> None:
    """One Foundry mini-action."""
    player = state["players"][seat]
    if mini == "MAKE_STEEL":
        pay(state, seat, {"iron_ore": steel_cost(state, seat)})
        gain_from_supply(state, seat, "steel", 1)
    elif mini == "MAKE_STONE":
        pay(state, seat, {"rubble": LIMITS["make_stone_rubble"]})
        origin = state["stockyard"] if source == "FROM_STOCKYARD" else state["bag"]
        origin["stone"] -= 1
        player["stone"] += 1
    else:
        pay(state, seat, {"stone": 1})
        gain_from_supply(state, seat, "rubble", LIMITS["smash_stone_rubble"])
    events.append({"foundry_used": {"seat": seat, "mini_action": mini, "stone_source": source}})


def build_station(state: State, seat: int, town: int, space: int, events: Events) -> None:
    """Pay for a station space, put a marker on it and take any immediate bonus."""
    pay(state, seat, railway.station_cost(state, seat, town, space))
    state["stations"][town][space] = seat
    markers_placed(state, seat, 1)
    for resource, amount in STATIONS[town]["spaces"][space].get("bonus", {}).items():
        gain_from_supply(state, seat, resource, amount)
    events.append({"station_built": {"owner": seat, "town": TOWN_NAMES[town], "spaces": [space]}})


def buy_equipment(state: State, seat: int, item: int, events: Events) -> None:
    """Pay for an Equipment from the Engine shed; chai cubes on it move the chai marker and leave play."""
    pay(state, seat, equipment_cost(item))
    entry = next(e for e in state["shed"] if e["id"] == item)
    state["shed"].remove(entry)
    state["players"][seat]["equipment"].append(item)
    state["box"]["chai"] += entry["chai"]
    gain_chai(state, seat, entry["chai"])
    events.append({"equipment_bought": {"seat": seat, "equipment_id": item, "chai": entry["chai"]}})


def take_contract(state: State, seat: int, slot: int, events: Events) -> None:
    """Take a face-up contract; the gap stays open until the next restock."""
    card = state["post"][slot]
    state["post"][slot] = None
    state["players"][seat]["contracts"].append({"id": card, "used": False})
    events.append({"contract_taken": {"seat": seat, "contract_id": card, "slot": slot}})
