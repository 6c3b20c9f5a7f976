"""Setup and the round: restock contracts, weather, stockyard and events, workers, resolution, the end."""

from __future__ import annotations

from typing import Any

from services.alubari import actions, contracts, estates, railway, rondel, tracks
from services.alubari.content import (
    AREAS,
    BOARD,
    CHAI_POINTS,
    CONTRACTS,
    CUBE_BOX,
    CUBES,
    EQUIPMENT,
    ESTATE_CARDS,
    GAME_MARKERS,
    MARKERS_PER_PLAYER,
    PRINTED_ESTATE,
    STATIONS,
    TOTAL_LEAVES,
    TOTAL_RUBBLE,
    TOTAL_STEEL,
    TRACK,
    WEATHER_KINDS,
    per_players,
)
from services.alubari.scoring import final_scores
from services.common.rng import Rng

State = dict[str, Any]
Events = list[dict[str, Any]]

BASE_WORKERS = BOARD["components"]["workers_per_player"] - 1


# ---- setup --------------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], rng: Rng) -> State:
    """The board, bag, decks and players ready for round 1."""
    state: State = {
        "n": players,
        "options": dict(options),
        "round": 1,
        "stage": "PLACE",
        "current": 0,
        "start_player": int(options.get("first_player", 0)) % players,
        "temp_queue": [],
        "weather": [None, None, None],
        "weather_pool": {kind: BOARD["components"]["weather_markers"][kind] for kind in WEATHER_KINDS},
        "rates": {
            "excavation": BOARD["work_rates"]["excavation"]["start"],
            "lay_track": BOARD["work_rates"]["lay_track"]["start"],
            "crop": BOARD["work_rates"]["crop_harvest"]["start"],
        },
        "fog": False,
        "chai_max": len(CHAI_POINTS) - 1 - per_players(BOARD["chai_track"]["blocked_spaces"], players),
        "stockyard": dict.fromkeys(CUBES, 0),
        "bag": {"iron_ore": 0, "stone": 0, "chai": 0, "event": 0},
        "box": dict(CUBE_BOX),
        "rondel": [False] * len(rondel.RONDEL),
        "rondel_last": -1,
        "events_this_round": 0,
        "event_cubes_pending": 0,
        "maintenance": [],
        "supply": {"rubble": TOTAL_RUBBLE, "steel": TOTAL_STEEL, "tea_leaves": TOTAL_LEAVES,
                   "game_markers": GAME_MARKERS},
        "estates": [],
        "track": [railway.NOBODY] * len(TRACK),
        "stations": [
            [railway.BLOCKED if s.get("blocked_below_players", 0) > players else railway.NOBODY for s in t["spaces"]]
            for t in STATIONS
        ],
        "shed": [],
        "deck": [],
        "discard": [],
        "post": [None, None, None],
        "building_card": False,
        "areas": {area: [-1] * n for area, n in per_players(BOARD["action_areas"]["spaces"], players).items()},
        "players": [new_player() for _ in range(players)],
        "resolve": {"area": 0, "window": None, "space": 0},
        "worker": None,
        "ending": {"out_of_markers": -1, "extra_round_seat": -1, "reason": ""},
        "final": None,
    }
    events: Events = []
    _deal_estates(state, rng)
    _deal_contracts(state, rng, events)
    _fill_engine_shed(state, rng)
    _fill_bag(state, rng)
    state["stage"] = "PLACE"
    state["current"] = state["start_player"]
    return state


def new_player() -> dict[str, Any]:
    """A player's pieces: two workers ready, one in the Tea House, 19 markers (one is on the chai track)."""
    return {
        "workers": BASE_WORKERS, "temp": "TEA_HOUSE", "markers": MARKERS_PER_PLAYER - 1, "chai": 0,
        "iron_ore": 0, "stone": 0, "rubble": 0, "steel": 0, "tea_leaves": 0,
        "equipment": [], "contracts": [], "mods": fresh_mods(), "garratt_used": False, "sits_out": False,
    }


def fresh_mods() -> dict[str, Any]:
    """Contract effects that last until the end of the round."""
    return {"stockyard": 0, "excavation": 0, "lay_track": 0, "foundry": 0, "free": []}


def _deal_estates(state: State, rng: Rng) -> None:
    slots = per_players(BOARD["estate_slots"], state["n"])
    cards = list(range(len(ESTATE_CARDS)))
    rng.shuffle(cards)
    faces: list[tuple[int, int, dict[str, Any]]] = []
    if not state["options"].get("cover_alubari", False):
        faces.append((0, 0, PRINTED_ESTATE))
    for card in cards:
        if len(faces) >= slots:
            break
        side = rng.randbelow(2)
        faces.append((ESTATE_CARDS[card]["id"], side, ESTATE_CARDS[card]["sides"][side]))
    for slot, (card_id, side, face) in enumerate(faces):
        spaces = [{"rubble": s["rubble"], "start_rubble": s["rubble"], "vp": s["vp"], "owner": railway.NOBODY,
                   "borrower": -1} for s in face["spaces"]]
        state["estates"].append({"slot": slot, "card": card_id, "side": side, "name": face["name"], "spaces": spaces})
        state["supply"]["rubble"] -= sum(s["rubble"] for s in spaces)


def _deal_contracts(state: State, rng: Rng, events: Events) -> None:
    deck = sorted(CONTRACTS)
    rng.shuffle(deck)
    state["deck"] = deck
    post = state["post"]
    post[0] = contracts.draw_card(state, rng, events)
    post[1] = contracts.draw_card(state, rng, events)
    _weather_from_top(state, 1)
    post[2] = contracts.draw_card(state, rng, events)
    _weather_from_top(state, 2)


def _weather_from_top(state: State, position: int) -> None:
    top = tracks.deck_top_weather(state)
    if top is not None:
        state["weather_pool"][top] -= 1
        state["weather"][position] = top


def _fill_engine_shed(state: State, rng: Rng) -> None:
    chosen = rng.sample(sorted(EQUIPMENT), BOARD["engine_shed_size"]["count"])
    for item in sorted(chosen):
        chai = int(EQUIPMENT[item]["chai"])
        state["box"]["chai"] -= chai
        state["shed"].append({"id": item, "chai": chai})


def _fill_bag(state: State, rng: Rng) -> None:
    table = per_players(BOARD["supply_table"], state["n"])
    for cube in CUBES:
        state["bag"][cube] = table[cube]
        state["box"][cube] -= table[cube]
    for _ in range(per_players(BOARD["initial_stockyard_draw"], state["n"])):
        drawn = draw_from_bag(state, rng)
        if drawn is None:
            break
        state["stockyard"][drawn] += 1
    state["bag"]["event"] = table["event"]
    state["box"]["event"] -= table["event"]


def draw_from_bag(state: State, rng: Rng) -> str | None:
    """One cube at random from the bag (its contents are hidden; only the count is public)."""
    bag = state["bag"]
    total = sum(bag.values())
    if total == 0:
        return None
    pick = rng.randbelow(total)
    for cube in (*CUBES, "event"):
        if pick < bag[cube]:
            bag[cube] -= 1
            return cube
        pick -= bag[cube]
    return None


# ---- phases 1-3 -----------------------------------------------------------------------------------


def start_round(state: State, rng: Rng, events: Events) -> None:
    """Phases 1-3 of a new round, then Phase 4 begins."""
    state["round"] += 1
    events.append({"round_started": {"round": state["round"]}})
    contracts.restock_post(state, rng, events)
    contracts.ensure_deck(state, rng, events)  # its top card's back gives the new weather disc
    tracks.adjust_weather(state, events)
    restock_stockyard(state, rng, events)
    if place_event_cubes(state, events):
        begin_assignment(state, events)


def restock_stockyard(state: State, rng: Rng, events: Events) -> None:
    """Phase 3: draw cubes into the stockyard; the event cubes drawn wait to be placed."""
    drawn = dict.fromkeys(CUBES, 0)
    event_cubes = 0
    for _ in range(per_players(BOARD["restock_count"], state["n"])):
        cube = draw_from_bag(state, rng)
        if cube is None:
            break
        if cube == "event":
            event_cubes += 1
        else:
            state["stockyard"][cube] += 1
            drawn[cube] += 1
    events.append({"stockyard_restocked": {**drawn, "event_cubes": event_cubes}})
    state["event_cubes_pending"] = event_cubes


def place_event_cubes(state: State, events: Events) -> bool:
    """Place the drawn event cubes one at a time, each event resolving at once.

    Returns False when an Equipment maintenance decision interrupts (the rest wait for it).
    """
    while state["event_cubes_pending"] > 0:
        state["event_cubes_pending"] -= 1
        rondel.place_event_cube(state, events)
        if state["maintenance"]:
            state["stage"] = "MAINTENANCE"
            state["current"] = state["maintenance"][0][0]
            return False
    return True


def maintenance_decided(state: State, paid: bool, events: Events) -> None:
    """One Equipment maintained or given up; then the next decision, or the rest of Phase 3."""
    rondel.settle_maintenance(state, paid, events)
    if state["maintenance"]:
        state["current"] = state["maintenance"][0][0]
    elif place_event_cubes(state, events):
        begin_assignment(state, events)


# ---- phase 4 ----------------------------------------------------------------------------------------


def turn_order(state: State) -> list[int]:
    """Seats clockwise from the starting player."""
    n = state["n"]
    return [(state["start_player"] + k) % n for k in range(n)]


def begin_assignment(state: State, events: Events) -> None:
    """Phase 4 opens with the temporary-worker decisions (the Line Inspection Train's one is free)."""
    for seat, player in enumerate(state["players"]):
        free = state["events_this_round"] and "LINE_INSPECTION" in railway.owned_abilities(state, seat)
        if free and not player["sits_out"] and _release_temp(player):
            events.append({"temp_worker_taken": {"seat": seat, "payment": "FREE_LINE_INSPECTION"}})
    state["temp_queue"] = [s for s in turn_order(state) if temp_choices(state, s)]
    state["stage"] = "TEMP_WORKER"
    continue_assignment(state)


def _release_temp(player: dict[str, Any]) -> bool:
    if player["temp"] != "TEA_HOUSE":
        return False
    player["temp"] = "IN_PLAY"
    player["workers"] += 1
    return True


def temp_choices(state: State, seat: int) -> list[dict[str, Any]]:
    """How ``seat`` may bring in its third worker now (empty if it cannot)."""
    player = state["players"][seat]
    if player["sits_out"] or player["temp"] != "TEA_HOUSE" or not player["equipment"]:
        return []
    moves: list[dict[str, Any]] = []
    if player["chai"] > 0:
        moves.append({"temp_worker": {"payment": "PAY_CHAI"}})
    if "SHUNTER" in railway.owned_abilities(state, seat) and player["rubble"] >= 2:
        moves.append({"temp_worker": {"payment": "PAY_RUBBLE"}})
    if moves:
        moves.append({"decline_temp_worker": {}})
    return moves


def apply_temp(state: State, seat: int, payment: str | None, events: Events) -> None:
    """Settle one temporary-worker decision."""
    player = state["players"][seat]
    if payment == "PAY_CHAI":
        player["chai"] -= 1
    elif payment == "PAY_RUBBLE":
        player["rubble"] -= 2
        state["supply"]["rubble"] += 2
    if payment:
        _release_temp(player)
        events.append({"temp_worker_taken": {"seat": seat, "payment": payment}})
    state["temp_queue"].remove(seat)
    continue_assignment(state)


def continue_assignment(state: State) -> None:
    """Ask the next temporary-worker decision, or start placing workers."""
    queue = state["temp_queue"]
    if queue:
        state["current"] = queue[0]
        return
    state["stage"] = "PLACE"
    state["current"] = state["start_player"]
    if state["players"][state["current"]]["workers"] <= 0:
        next_placer(state)


def open_spaces(state: State) -> list[tuple[str, int]]:
    """Empty action spaces a worker may go to (fog closes the last space of B and D)."""
    result = []
    for area in AREAS:
        spaces = state["areas"][area]
        fogged = state["fog"] and (area == "D" or (area == "B" and not state["building_card"]))
        for index, occupant in enumerate(spaces):
            if occupant >= 0 or (fogged and index == len(spaces) - 1):
                continue
            result.append((area, index))
    return result


def place_worker(state: State, seat: int, area: str, index: int, events: Events) -> None:
    """One worker from the seat's supply onto an action space."""
    state["areas"][area][index] = seat
    state["players"][seat]["workers"] -= 1
    events.append({"worker_placed": {"seat": seat, "area": area, "space": index + 1}})
    next_placer(state)


def next_placer(state: State) -> None:
    """The next seat clockwise that still has workers, or the start of resolution."""
    n = state["n"]
    if open_spaces(state):
        for step in range(1, n + 1):
            seat = (state["current"] + step) % n
            if state["players"][seat]["workers"] > 0:
                state["current"] = seat
                return
    state["stage"] = "RESOLVE"
    state["resolve"] = {"area": 0, "window": turn_order(state), "space": 0}


# ---- phase 5 -------------------------------------------------------------------------------------------


def run_resolution(state: State, rng: Rng, events: Events) -> None:
    """Resolve areas A to G: first each area's contract window, then its spaces in number order."""
    res = state["resolve"]
    while res["area"] < len(AREAS):
        area = AREAS[res["area"]]
        if res["window"] is not None:
            window = res["window"]
            while window and (
                state["players"][window[0]]["sits_out"] or not contracts.usable_contracts(state, window[0], area)
            ):
                window.pop(0)
            if window:
                state["stage"] = "CONTRACTS"
                state["current"] = window[0]
                return
            res["window"] = None
        spaces = state["areas"][area]
        while res["space"] < len(spaces):
            index = res["space"]
            res["space"] += 1
            seat = spaces[index]
            if seat < 0:
                continue
            if actions.start_worker(state, seat, area, index, rng, events):
                state["stage"] = "WORKER"
                state["current"] = seat
                return
            if last_marker_ending(state, rng, events):
                return
        res["area"] += 1
        res["space"] = 0
        res["window"] = turn_order(state)
    end_round(state, rng, events)


def last_marker_ending(state: State, rng: Rng, events: Events) -> bool:
    """Act the moment a player places their last scoring marker.  Returns True if it did.

    Solo: the game ends.  Two players: the round stops there and the opponent's round alone
    begins at once.
    """
    ending = state["ending"]
    if ending["out_of_markers"] < 0:
        return False
    if state["n"] == 1:
        finish_game(state, events, "LAST_MARKER")
        return True
    if ending["extra_round_seat"] >= 0:
        return False
    start_extra_round(state, rng, events)
    return True


def after_worker_step(state: State, rng: Rng, events: Events, more: bool) -> None:
    """Continue resolution once the current worker has no decisions left."""
    if last_marker_ending(state, rng, events):
        return
    if more:
        return
    run_resolution(state, rng, events)


def contract_done(state: State, rng: Rng, events: Events) -> None:
    """The seat uses no more contracts in this window."""
    state["resolve"]["window"].pop(0)
    run_resolution(state, rng, events)


def contract_used(state: State, seat: int, card: int, rng: Rng, events: Events) -> None:
    """A contract played in the window; the seat may play another."""
    contracts.play_contract(state, seat, card, events)
    if last_marker_ending(state, rng, events):
        return
    run_resolution(state, rng, events)


# ---- end of round and of the game ---------------------------------------------------------------------


def end_round(state: State, rng: Rng, events: Events) -> None:
    """Tidy up, check the end of the game, and start the next round if it goes on."""
    tidy_round(state, events)
    if state["ending"]["extra_round_seat"] >= 0:
        finish_game(state, events, "EXTRA_ROUND_PLAYED")
        return
    if railway.track_remaining(state) == 0:
        finish_game(state, events, "RAILWAY_COMPLETE")
        return
    start_round(state, rng, events)


def tidy_round(state: State, events: Events) -> None:
    """Workers come home, round effects lapse; the Building card arrives once the estates are clear."""
    if not state["building_card"] and estates.rubble_left(state) == 0:
        state["building_card"] = True
        events.append({"building_card_placed": {}})
    for area in AREAS:
        size = BOARD["action_areas"]["extra_building_card_spaces"] if area == "B" and state["building_card"] else None
        state["areas"][area] = [-1] * (size or len(state["areas"][area]))
    for player in state["players"]:
        player["workers"] = BASE_WORKERS
        player["temp"] = "TEA_HOUSE"
        player["mods"] = fresh_mods()
        player["garratt_used"] = False
    state["events_this_round"] = 0


def start_extra_round(state: State, rng: Rng, events: Events) -> None:
    """Two players: the current round stops at once and the opponent plays one round alone.

    Whatever was still to resolve in the current round is not resolved; the player who placed the
    last marker sits that round out.  It comes even if the railway was completed in the round cut
    short, and the game ends after it.
    """
    ending = state["ending"]
    state["worker"] = None
    state["resolve"] = {"area": len(AREAS), "window": None, "space": 0}
    tidy_round(state, events)
    other = 1 - ending["out_of_markers"]
    ending["extra_round_seat"] = other
    state["players"][1 - other]["sits_out"] = True
    state["players"][1 - other]["workers"] = 0
    events.append({"final_round": {"seat": other}})
    start_round(state, rng, events)


def finish_game(state: State, events: Events, reason: str) -> None:
    """The game is over: final scoring."""
    state["stage"] = "OVER"
    state["current"] = -1
    state["worker"] = None
    state["ending"]["reason"] = reason
    state["final"] = final_scores(state)
    events.append({"game_over": {"reason": reason, "scores": [row["total"] for row in state["final"]]}})
