"""The operations phase: running trains, paying for other players' track, loads and deliveries."""

from __future__ import annotations

from typing import Any

from services.common.engine import Move, State
from services.india_rails.cards import active_cards
from services.india_rails.content import (
    BOARD,
    CITY_MILEPOSTS,
    COSTS,
    DEMAND_CARDS,
    LOCOS,
    PILGRIM_CITIES,
    strike_mileposts,
)
from services.india_rails.track import flooded_rivers, owners, storm_blocked

TRACK_FEE = int(COSTS["track_fee"])
MOVE_FEE = int(COSTS["move_fee_own_track"])


def speed(state: State, loco: str) -> int:
    """Mileposts a loco may run in one turn (fast-trains option raises it)."""
    spec = LOCOS["types"][loco]
    return int(spec["fast_trains_speed"] if state["options"]["fast_trains"] else spec["speed"])


def capacity(loco: str) -> int:
    """Loads a loco may carry."""
    return int(LOCOS["types"][loco]["capacity"])


def struck(state: State) -> set[int]:
    """City mileposts where no load may be picked up or delivered now."""
    return {m for card in active_cards(state, "strike") for m in strike_mileposts(card)}


def start_trains(state: State, seat: int) -> None:
    """Give each train its full movement for the turn."""
    for train in state["players"][seat]["trains"]:
        train["left"] = speed(state, train["loco"])


class OperationsContext:
    """What the move listing needs, computed once."""

    def __init__(self, state: State, seat: int) -> None:
        self.state = state
        self.seat = seat
        self.player = state["players"][seat]
        self.owner = owners(state)
        self.flooded = flooded_rivers(state)
        self.storm = storm_blocked(state)
        self.struck = struck(state)
        self.options = state["options"]
        self.turn = state["turn"]


def step_problem(ctx: OperationsContext, train: dict[str, Any], to: int) -> tuple[str, str] | None:
    """Why the train may not run to the neighbouring milepost ``to``, or ``None``."""
    at = train["at"]
    if at < 0:
        return "train_not_placed", "place the train in a city first"
    eid = BOARD.edge_between(at, to)
    if eid < 0:
        return "not_adjacent", "trains run one milepost at a time to a neighbour"
    if train["left"] <= 0:
        return "no_movement_left", "the train has no movement left this turn"
    return _passage_problem(ctx, train, eid, to) or _use_fee_problem(ctx, eid)


def _passage_problem(ctx: OperationsContext, train: dict[str, Any], eid: int, to: int) -> tuple[str, str] | None:
    """Trains run on built track or red areas, not over flooded rivers or into sandstorms; they reverse in cities."""
    if eid not in BOARD.red_area and ctx.owner.get(eid) is None:
        return "no_track", "there is no track between those mileposts"
    if BOARD.river[eid] and BOARD.river[eid] in ctx.flooded:
        return "river_flooded", f"the {BOARD.river[eid]} is in flood"
    if to in ctx.storm:
        return "sandstorm", "a sandstorm covers that milepost"
    if to == train["prev"] and not BOARD.city_at[train["at"]]:
        return "no_reverse", "a train may reverse only in a city"
    return None


def _use_fee_problem(ctx: OperationsContext, eid: int) -> tuple[str, str] | None:
    """Another player's track costs a use fee; own track and red areas may cost 1M under cost-to-move."""
    owner = ctx.owner.get(eid)
    if eid not in BOARD.red_area and owner != ctx.seat:
        return _track_fee_problem(ctx, owner)
    return _move_cost_problem(ctx)


def _track_fee_problem(ctx: OperationsContext, owner: int | None) -> tuple[str, str] | None:
    """The 4M fee is owed once per owner per turn; without late fees the mover must have the cash now."""
    paid = owner in ctx.turn["fees_paid"]
    if not paid and ctx.player["cash"] < TRACK_FEE and not ctx.options["mercy_late_fees"]:
        return "cannot_pay_fee", "not enough cash to pay the 4M track fee"
    return None


def _move_cost_problem(ctx: OperationsContext) -> tuple[str, str] | None:
    """With the cost-to-move rule the first run on own track each turn costs 1M, paid in cash."""
    if ctx.options["cost_to_move"] and not ctx.turn["moved_own"] and ctx.player["cash"] < MOVE_FEE:
        return "cannot_pay_move_cost", "not enough cash to pay 1M to move on your own track"
    return None


def movement_moves(ctx: OperationsContext, t: int, train: dict[str, Any]) -> list[Move]:
    """Every legal one-milepost step of train ``t``."""
    if train["at"] < 0 or train["left"] <= 0:
        return []
    return [
        {"move_train": {"train": t, "to_milepost": v}}
        for v, _ in BOARD.adjacency[train["at"]]
        if step_problem(ctx, train, v) is None
    ]


def placement_moves(ctx: OperationsContext, t: int, train: dict[str, Any]) -> list[Move]:
    """Where an unplaced train may start: any city milepost."""
    if train["at"] >= 0:
        return []
    return [{"place_train": {"train": t, "milepost": m}} for m in CITY_MILEPOSTS]


def load_cost_ok(ctx: OperationsContext, train: dict[str, Any]) -> bool:
    """With the cost-to-load rule each pick-up or drop uses a milepost of movement."""
    return not ctx.options["cost_to_load"] or train["left"] >= 1


def pickup_moves(ctx: OperationsContext, t: int, train: dict[str, Any]) -> list[Move]:
    """Loads the train may pick up where it stands."""
    at = train["at"]
    if at < 0 or not BOARD.city_at[at] or at in ctx.struck:
        return []
    if len(train["loads"]) >= capacity(train["loco"]) or not load_cost_ok(ctx, train):
        return []
    dropped = {(m, load) for m, load in ctx.turn["dropped"]}
    city = BOARD.cities[BOARD.city_at[at]]
    kinds = list(city.goods)
    if at in PILGRIM_CITIES:
        kinds.append("Pilgrims")
    moves: list[Move] = []
    for load in kinds:
        if ctx.state["tray"][load] > 0 and (at, load) not in dropped:
            moves.append({"pick_up": {"train": t, "load": load, "from_warehouse": False}})
    stored = sorted({w["load"] for w in ctx.state["warehouse"] if w["at"] == at})
    for load in stored:
        if (at, load) not in dropped:
            moves.append({"pick_up": {"train": t, "load": load, "from_warehouse": True}})
    return moves


def distinct_slots(train: dict[str, Any]) -> list[int]:
    """One slot per distinct carried load (identical chips are interchangeable)."""
    seen: set[tuple[str, str]] = set()
    slots = []
    for i, load in enumerate(train["loads"]):
        key = (load[0], load[1])
        if key not in seen:
            seen.add(key)
            slots.append(i)
    return slots


def drop_moves(ctx: OperationsContext, t: int, train: dict[str, Any]) -> list[Move]:
    """Loads the train may drop here without payoff (any city)."""
    at = train["at"]
    if at < 0 or not BOARD.city_at[at] or not load_cost_ok(ctx, train):
        return []
    return [{"drop_load": {"train": t, "slot": s}} for s in distinct_slots(train)]


def demand_matches(demand: dict[str, Any], load: list[str], city_name: str) -> bool:
    """Whether a carried load fills a demand in this city (pilgrims must change region)."""
    if demand["city"] != city_name or demand["load"] != load[0]:
        return False
    if load[0] == "Pilgrims":
        return load[1] != BOARD.cities[city_name].region
    return True


def delivery_moves(ctx: OperationsContext, t: int, train: dict[str, Any]) -> list[Move]:
    """Deliveries the train can make here against own demand cards or open contracts."""
    at = train["at"]
    if at < 0 or not BOARD.city_at[at] or at in ctx.struck or not load_cost_ok(ctx, train):
        return []
    name = BOARD.city_at[at]
    moves: list[Move] = []
    sources = [(card, False) for card in ctx.player["hand"]]
    sources += [(card, True) for card in ctx.state["open_contracts"]]
    for slot in distinct_slots(train):
        load = train["loads"][slot]
        for card, open_contract in sources:
            for d, demand in enumerate(DEMAND_CARDS[card]["demands"]):
                if demand_matches(demand, load, name):
                    moves.append({"deliver": {"train": t, "slot": slot, "card": card, "demand": d,
                                              "open_contract": open_contract}})
    return moves
