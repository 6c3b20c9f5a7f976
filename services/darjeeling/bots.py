"""The heuristic bot: walks to tiles that complete crates near cities and ships when it pays.

It decides only from its own seat's view and legal moves, like a player behind a screen.
"""

from __future__ import annotations

from typing import Any

from services.common.engine import Engine, Move, Seen, View
from services.common.rng import Rng
from services.darjeeling.board import STEP, turned
from services.darjeeling.content import COSTS, GOAL
from services.darjeeling.wharf import raise_demand

Cell = tuple[int, int]

# A shipment is worth making when its estimated value reaches this (lower as the end nears).
SHIP_THRESHOLD = 7.0
LATE_GAME_MARGIN = 20
# A starting space is judged by the tea within this many steps on its first three rays, a tile's
# halves divided by its distance, weighted so. Against the former choice (the spaces straight ahead)
# it won 51 / 34 / 27 / 22 % to 49 / 32 / 23 / 18 % at 2-5 seats, 2,000 tables each
# (research/darjeeling/balance_trial.py --bots heuristic,heuristic-ahead; seeds/darjeeling/README.md).
START_REACH = 3
START_REACH_WEIGHT = 1.5
FIRST_TURNS = ("STRAIGHT", "LEFT", "RIGHT")


class Board:
    """The public board of a view, indexed by (row, col)."""

    def __init__(self, view: View) -> None:
        self.spaces: dict[Cell, dict[str, Any]] = {(s["row"], s["col"]): s for s in view["spaces"]}
        self.cities = [cell for cell, s in self.spaces.items() if s["kind"] == "CITY"]

    def near_city(self, cell: Cell) -> bool:
        """A city among the eight neighbours."""
        return any(max(abs(cell[0] - c[0]), abs(cell[1] - c[1])) == 1 for c in self.cities)

    def path(self, start: Cell, facing: str, distance: int) -> tuple[list[Cell], Cell]:
        """Cells passed over and the cell reached."""
        d_row, d_col = STEP[facing]
        cells = [(start[0] + d_row * k, start[1] + d_col * k) for k in range(1, distance + 1)]
        return cells[:-1], cells[-1]

    def reach(self, start: Cell, facing: str, steps: int) -> float:
        """Tea a collector at ``start`` facing ``facing`` can reach in one move: the halves of each tile
        on its straight, left and right rays up to ``steps`` away (a city ends a ray), divided by distance."""
        total = 0.0
        for turn in FIRST_TURNS:
            d_row, d_col = STEP[turned(facing, turn)]
            for k in range(1, steps + 1):
                space = self.spaces.get((start[0] + d_row * k, start[1] + d_col * k))
                if space is None or space["kind"] == "CITY":
                    break
                if space["kind"] == "TILE":
                    total += space["tile"]["halves"] / k
        return total

    def passing_cost(self, cell: Cell) -> int:
        """What passing over ``cell`` costs."""
        space = self.spaces[cell]
        if space["kind"] == "CITY":
            return COSTS.pass_city
        if space["collector"] >= 0:
            return COSTS.pass_collector
        return COSTS.pass_tile if space["kind"] == "TILE" else COSTS.pass_empty


def _halves_by_variety(me: dict[str, Any]) -> dict[str, int]:
    held: dict[str, int] = {}
    for tile in me["tiles"]:
        held[tile["variety"]] = held.get(tile["variety"], 0) + tile["halves"]
    return held


def _tile_value(tile: dict[str, Any], held: dict[str, int], actions_left: int) -> float:
    """How much a tile helps: its halves, more if it joins a variety we collect or closes a crate."""
    have = held.get(tile["variety"], 0)
    value = float(tile["halves"])
    if have:
        value += 1.0
    if (have + tile["halves"]) % 2 == 0:
        value += 1.0
    if tile["halves"] == 3 and actions_left:
        value += 1.0
    return value


class HeuristicBot:
    """A sensible, fast Darjeeling player."""

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """Pick one of the legal moves by a one-step evaluation with a small random tie-break."""
        moves, seat = seen.legal, seen.seat
        if len(moves) == 1:
            return moves[0]
        view = seen.view
        board = Board(view)
        scored = [(self._value(view, board, seat, move) + rng.random() * 0.01, i) for i, move in enumerate(moves)]
        return moves[max(scored)[1]]

    def _value(self, view: View, board: Board, seat: int, move: Move) -> float:
        kind, body = next(iter(move.items()))
        evaluate = getattr(self, f"_value_{kind}")
        value: float = evaluate(view, board, seat, body)
        return value

    def _value_choose_start(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        cell = (body["row"], body["col"])
        tile = board.spaces[cell]["tile"]
        near_city = 3.0 if board.near_city(cell) else 0.0
        return tile["halves"] + near_city + START_REACH_WEIGHT * board.reach(cell, body["facing"], START_REACH)

    def _value_move_collector(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        me = view["player_states"][seat]
        collector = me["collector"]
        facing = turned(collector["facing"], body["turn"])
        passed, target = board.path((collector["row"], collector["col"]), facing, body["distance"])
        cost = sum(board.passing_cost(cell) for cell in passed)
        if body["turn"] == "BACK":
            cost += COSTS.turn_back
        tile = board.spaces[target]["tile"]
        value = _tile_value(tile, _halves_by_variety(me), view["action_supply"])
        if board.near_city(target):
            value += 2.0
        return value - 1.2 * cost

    def _value_take_action_tile(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return 1.0  # free, and it may rescue or double a shipment later

    def _value_decline_action_tile(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return 0.0

    def _value_stay_put(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return 0.0

    def _shipment_value(self, view: View, seat: int, variety: str, crates: int, near: bool) -> float:
        me = view["player_states"][seat]
        rescue = me["action_tile_count"] > 0
        loaded = crates if near or rescue else crates - 1
        if loaded < 1:
            return -1.0
        demand = raise_demand(list(view["chute"]), variety)
        if me["action_tile_count"] and demand >= 2:
            demand *= 2
        quantity = loaded if loaded >= COSTS.quantity_bonus_from else 0
        top = view["ships"][-1]["multiplier"]
        return demand + quantity + loaded * top * 1.5 + crates

    def _value_lay_out(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        me = view["player_states"][seat]
        near = board.near_city((me["collector"]["row"], me["collector"]["col"]))
        crates = (body["one_half"] + 2 * body["two_halves"] + 3 * body["three_halves"]) // 2
        value = self._shipment_value(view, seat, body["variety"], crates, near)
        leader = max(p["score"] for p in view["player_states"])
        threshold = 0.0 if leader >= GOAL - LATE_GAME_MARGIN else SHIP_THRESHOLD
        return value - threshold

    def _value_end_turn(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return 0.0

    def _value_play_action(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        shipment = view["shipment"]
        if body["action"] == "NO_ROTTING":
            return -1.0 if shipment["next_to_city"] else 10.0
        demand = raise_demand(list(view["chute"]), shipment["variety"])
        return 5.0 if demand >= 2 else -1.0

    def _value_take_back(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return -1.0  # the shipment was chosen on purpose: ship it

    def _value_load(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        return float(body["crates"])  # every crate loaded scores on the ship and towards the quantity bonus

    def _value_borrow_crate(self, view: View, board: Board, seat: int, body: dict[str, Any]) -> float:
        # Take crates where they are worth least: the lowest multiplier, then the lowest berth.
        return -float(view["ships"][body["ship"]]["multiplier"]) - 0.1 * body["ship"]
