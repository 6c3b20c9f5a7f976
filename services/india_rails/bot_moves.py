"""The India Rails heuristic bot's moves: running the trains (operations) and building along its routes."""

from __future__ import annotations

import itertools
from typing import Any

from services.common.engine import Move, State
from services.india_rails import track as tracks
from services.india_rails.bot_plans import Decision, budget, joining_majors, major_route, plan, reserve
from services.india_rails.bot_routes import INF, dijkstra, first_step, home, path, step_towards
from services.india_rails.content import BOARD, CITY_MILEPOSTS, DEMAND_CARDS, distances_from
from services.india_rails.operations import capacity as ops_capacity
from services.india_rails.operations import demand_matches

# ---- operations -------------------------------------------------------------------


def operate(d: Decision, kinds: dict[str, list[Move]]) -> Move:
    """An operations step: deliver, place the train, pick up, discard a poor hand, drop, run on, or stop."""
    state, seat, player = d.state, d.seat, d.player
    if "deliver" in kinds:
        return max(kinds["deliver"], key=lambda m: DEMAND_CARDS[m["deliver"]["card"]]["demands"][
            m["deliver"]["demand"]]["payout"])
    planned = plan(d)
    if "place_train" in kinds:
        return placement(state, seat, planned, kinds["place_train"])
    wanted = wanted_loads(d)
    for move in kinds.get("pick_up", []):
        if move["pick_up"]["load"] in wanted:
            return move
    if "discard_hand" in kinds and should_discard(state, player, planned):
        return {"discard_hand": {}}
    for move in kinds.get("drop_load", []):
        train = player["trains"][move["drop_load"]["train"]]
        load = train["loads"][move["drop_load"]["slot"]]
        if load[0] not in wanted and len(train["loads"]) >= 2:
            return move
    step = next_step(state, seat, planned, kinds.get("move_train", []))
    if step is not None:
        return step
    return {"end_operations": {}}


def wanted_loads(d: Decision) -> set[str]:
    """Loads worth picking up here: the target's load (pilgrims only from another region)."""
    target = plan(d)["target"]
    if not target or target["source"] < 0:
        return set()
    at = next((t["at"] for t in d.player["trains"] if t["at"] >= 0), -1)
    if at != target["source"] and target["demand"]["load"] == "Pilgrims":
        return set()
    return {target["demand"]["load"]}


def placement(state: State, seat: int, planned: dict[str, Any], moves: list[Move]) -> Move:
    """Start on own track: at the target's source if it is there, else at the nearest own city."""
    target = planned["target"]
    mine = tracks.network(state["players"][seat]["track"])
    allowed = {m["place_train"]["milepost"]: m for m in moves}
    on_track = [m for m in allowed if m in mine]
    if not on_track:
        on_track = list(allowed)
    goal = target["source"] if target and target["source"] >= 0 else (target["dest"] if target else -1)
    if goal < 0:
        return allowed[on_track[0]]
    dist = distances_from(goal)
    return allowed[min(on_track, key=lambda m: (dist[m] if dist[m] >= 0 else INF, m))]


def should_discard(state: State, player: dict[str, Any], planned: dict[str, Any]) -> bool:
    """Discard the hand when it offers no target, only a poor one, or one the budget cannot pay for."""
    target = planned["target"]
    return target is None or planned["score"] < -20 or target["cost"] > budget(state, player)


def goals_of(player: dict[str, Any], planned: dict[str, Any], train: dict[str, Any]) -> list[set[int]]:
    """Where this train should run, best first: cities wanting one of its loads, then the plan's target."""
    goals: set[int] = set()
    for card in player["hand"]:
        for demand in DEMAND_CARDS[card]["demands"]:
            if any(demand_matches(demand, load, demand["city"]) for load in train["loads"]):
                goals |= set(BOARD.cities[demand["city"]].mileposts)
    found = [goals] if goals else []
    target = planned["target"]
    if target and target["source"] >= 0 and len(train["loads"]) < ops_capacity(train["loco"]):
        found.append({target["source"]})
    return found


def next_step(state: State, seat: int, planned: dict[str, Any], moves: list[Move]) -> Move | None:
    """The next milepost for a train: towards the first goal it can reach, else to wait near one."""
    if not moves:
        return None
    player = state["players"][seat]
    owner = tracks.owners(state)
    paid = set(state["turn"]["fees_paid"])
    for t, train in enumerate(player["trains"]):
        goals = goals_of(player, planned, train)
        if any(train["at"] in g for g in goals):
            continue
        steps = [step_towards(train, g, owner, seat, paid, player["cash"]) for g in goals]
        if all(first < 0 for first in steps):
            # Nothing reachable yet: wait in the own city closest to a goal (trains reverse in
            # cities), going there over own or already paid track only — waiting is not worth a fee.
            stagings = [staging(player, train, g) for g in goals]
            staged = next((m for m in stagings if m >= 0 and m != train["at"]), -1)
            steps = [step_towards(train, {staged}, owner, seat, paid, 0)] if staged >= 0 else []
        for first in steps:
            move = {"move_train": {"train": t, "to_milepost": first}}
            if first >= 0 and move in moves:
                return move
    return None


def staging(player: dict[str, Any], train: dict[str, Any], goals: set[int]) -> int:
    """The city on the train's own piece of track nearest (over the map) to one of ``goals``."""
    if train["at"] < 0:
        return -1
    piece = home(player)
    if train["at"] not in piece:
        return -1
    cities = [m for m in piece if BOARD.city_at[m]]
    anchors = {BOARD.cities[BOARD.city_at[g]].anchor if BOARD.city_at[g] else g for g in goals}
    tables = [distances_from(a) for a in sorted(anchors)[:3]]

    def gap(m: int) -> int:
        return min(t[m] if t[m] >= 0 else INF for t in tables)

    best = min(cities, key=lambda m: (gap(m), m), default=-1)
    if best < 0 or gap(best) >= gap(train["at"]):
        return -1
    return best


# ---- building ----------------------------------------------------------------------


def build(d: Decision, kinds: dict[str, list[Move]]) -> Move:
    """A building turn: upgrade when rich enough, else build along the most pressing route, else end."""
    state, seat, player = d.state, d.seat, d.player
    upgrade = upgrade_move(state, player, kinds)
    if upgrade is not None:
        return upgrade
    loan = loan_move(d, kinds.get("borrow", []))
    if loan is not None:
        return loan
    builds = {(m["build_track"]["from_milepost"], m["build_track"]["to_milepost"]): m
              for m in kinds.get("build_track", [])}
    if not builds:
        return {"end_turn": {}}
    # A stranded train comes first: it may not reverse outside a city, so it needs track onward.
    move = route_build(escape_route(state, seat), builds, player["cash"])
    if move is not None:
        return move
    spend = budget(state, player)
    for route in build_routes(d):
        move = route_build(route, builds, spend)
        if move is not None:
            return move
    return {"end_turn": {}}


def upgrade_move(state: State, player: dict[str, Any], kinds: dict[str, list[Move]]) -> Move | None:
    """Upgrade the first train instead of building once the cash allows: to a fast freight, then onward."""
    first = [m for m in kinds.get("upgrade_train", []) if m["upgrade_train"]["train"] == 0]
    if state["phase"] != "build" or not first or state["turn"]["spent"] != 0:
        return None
    train = player["trains"][0]
    if train["loco"] == "freight" and player["cash"] >= 70:
        # A fast freight if the bank still has one (12 loco cards in all), else a heavy freight.
        return min(first, key=lambda m: m["upgrade_train"]["loco"] != "fast_freight")
    if train["loco"] != "freight" and player["cash"] >= 140:
        return first[0]
    return None


def loan_move(d: Decision, loans: list[Move]) -> Move | None:
    """Borrow (mercy rule) the least that puts the planned demand within the building budget.

    The bot never repays early: the rules take the debt from its next income anyway.
    """
    state, player = d.state, d.player
    if not loans or state["phase"] != "build":
        return None
    target = plan(d)["target"]
    if not target or target["cost"] <= budget(state, player):
        return None
    for move in sorted(loans, key=lambda m: m["borrow"]["amount"]):
        cash = int(player["cash"]) + move["borrow"]["amount"]
        if target["cost"] <= cash - reserve(state, cash):
            return move
    return None


def build_routes(d: Decision) -> list[list[int]]:
    """Routes to build along, most pressing first: the major-city link, the planned delivery, a fallback link."""
    state, player = d.state, d.player
    joining = joining_majors(state, player)
    routes = [major_route(d)] if joining else []
    planned = plan(d)
    if affordable(state, player, planned):
        routes.append(planned["route"])
    if not joining and player["cash"] >= 60:
        routes.append(major_route(d))
    return routes


def affordable(state: State, player: dict[str, Any], planned: dict[str, Any]) -> bool:
    """Whether to build towards the plan's target: always in the first building rounds, later only if paid for."""
    target = planned["target"]
    if not target:
        return False
    return state["phase"] == "initial_build" or target["cost"] <= budget(state, player)


def escape_route(state: State, seat: int) -> list[int]:
    """Track onward to the nearest city for a train that can reach no city (it may not reverse)."""
    player = state["players"][seat]
    own = tracks.network(player["track"])
    owner = tracks.owners(state)
    cities = set(CITY_MILEPOSTS)
    for train in player["trains"]:
        if train["at"] < 0 or train["at"] not in own or BOARD.city_at[train["at"]]:
            continue
        if first_step(train, cities - {train["at"]}, owner, seat, set(), player["cash"]) >= 0:
            continue
        closed = frozenset({train["prev"]}) if train["prev"] >= 0 else frozenset()
        dist, parent = dijkstra([train["at"]], owner, seat, rent=INF, closed=closed)
        goal = min(cities, key=lambda m: (dist[m], m))
        if dist[goal] < INF:
            return path(parent, goal)[::-1]
    return []


def route_build(route: list[int], builds: dict[tuple[int, int], Move], money: int) -> Move | None:
    """The first segment along ``route`` that may be built now within ``money``."""
    for a, b in itertools.pairwise(route):
        if a < 0 or b < 0:
            continue
        for pair in ((a, b), (b, a)):
            move = builds.get(pair)
            if move is not None and BOARD.cost_into(BOARD.edge_between(*pair), pair[1]) <= money:
                return move
    return None


# ---- small decisions -------------------------------------------------------------------


def good_price(state: State) -> bool:
    """Sell a segment for at least three times its building cost; never swap (the bot cannot value track)."""
    offer = state["offer"]
    if offer["give_a"] >= 0:
        return False
    eid = BOARD.edge_between(offer["a"], offer["b"])
    return int(offer["price"]) >= 3 * min(BOARD.build_cost[eid])


def card_value(card: int) -> int:
    """A demand card's best payout."""
    return max(d["payout"] for d in DEMAND_CARDS[card]["demands"])


def cheapest_load(state: State, seat: int, moves: list[Move]) -> Move:
    """The load a derailment should cost: the one least wanted by the hand."""
    def value(move: Move) -> int:
        body = move["choose_lost_load"]
        load = state["players"][seat]["trains"][body["train"]]["loads"][body["slot"]]
        return max((d["payout"] for c in state["players"][seat]["hand"] for d in DEMAND_CARDS[c]["demands"]
                    if d["load"] == load[0]), default=0)

    return min(moves, key=value)
