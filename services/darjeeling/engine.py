"""The Darjeeling rules engine: setup, starting positions, the three turn phases and the end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.common.engine import (
    BadConfig,
    Bot,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    Result,
    Seen,
    State,
    View,
)
from services.common.rng import Rng
from services.darjeeling import facts as darjeeling_facts
from services.darjeeling import hidden, loading, movement
from services.darjeeling.board import REGIONS, TURNS, default_region
from services.darjeeling.content import (
    ACTION_TILES,
    ACTIONS,
    COSTS,
    DEMAND_MARKERS_PER_VARIETY,
    GOAL,
    SHIPPING_CRATES,
    STRIPS,
    TILES,
    VARIETIES,
)
from services.darjeeling.movement import NO_TILE
from services.darjeeling.view import redact_event, state_view
from services.darjeeling.wharf import ship_points

MOVE_KINDS = (
    "choose_start",
    "move_collector",
    "stay_put",
    "take_action_tile",
    "decline_action_tile",
    "lay_out",
    "play_action",
    "load",
    "take_back",
    "borrow_crate",
    "end_turn",
)
# The ``start_player`` option's value for "drawn at random from the game's seed".
RANDOM_START = -1
PHASE_MOVES: dict[str, tuple[str, ...]] = {
    "START_POSITIONS": ("choose_start",),
    "MOVE": ("move_collector", "stay_put"),
    "ACTION_TILE": ("take_action_tile", "decline_action_tile"),
    "LOAD": ("lay_out", "end_turn"),
    "LOADING": ("play_action", "load", "take_back"),
    "BORROW": ("borrow_crate",),
    "GAME_OVER": (),
}


class DarjeelingEngine(Engine):
    """Darjeeling for 2-5 players on the India, China or Sri Lanka region."""

    game_type = "darjeeling"
    name = "Darjeeling"
    min_players = 2
    max_players = 5

    # ---- configuration ----------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        """``region`` empty: the rulebook's region for the player count; ``start_player`` -1: drawn at random."""
        return {"region": "", "start_player": RANDOM_START}

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check the region name and that the start player is a seat (or -1 for a random one)."""
        merged = super().validate_options(players, options)
        region = merged["region"]
        if not isinstance(region, str) or (region and region not in REGIONS):
            names = ", ".join(sorted(REGIONS))
            raise BadConfig(f"region must be one of {names} (or empty for the default)", code="bad_region")
        start = merged["start_player"]
        if isinstance(start, bool) or not isinstance(start, int) or not RANDOM_START <= start < players:
            raise BadConfig(
                f"start_player must be a seat from 0 to {players - 1}, or -1 to draw one at random",
                code="bad_start_player",
            )
        return merged

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        from services.darjeeling.bots import HeuristicBot

        return HeuristicBot()

    # ---- setup ------------------------------------------------------------------

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Fill the region from the bag, set the strip and ships, shuffle the demand markers."""
        players = config.players
        region = REGIONS[config.options.get("region") or default_region(players)]
        bag = list(range(len(TILES)))
        spaces = [NO_TILE] * len(region.cells)
        for space in region.tile_spaces:
            spaces[space] = bag.pop(rng.randbelow(len(bag)))
        chute = [v for v in VARIETIES for _ in range(DEMAND_MARKERS_PER_VARIETY)]
        rng.shuffle(chute)
        start = config.options.get("start_player", RANDOM_START)
        if start == RANDOM_START:
            start = rng.randbelow(players)
        return {
            "region": region.name,
            "players": players,
            "spaces": spaces,
            "bag": bag,
            "warehouse": [],
            "chute": chute,
            "ships": [[0] * players for _ in STRIPS[players]],
            "action_supply": list(range(len(ACTION_TILES))),
            "seats": [
                {"score": 0, "supply": SHIPPING_CRATES, "tiles": [], "actions": [], "pos": -1, "facing": "NORTH"}
                for _ in range(players)
            ],
            "phase": "START_POSITIONS",
            "current": start,
            "start_player": start,
            "turn_number": 0,
            "placed": 0,
            # While phase is ACTION_TILE: the space to refill afterwards and the phase to go on with.
            "offer": None,
            "shipment": None,
            # Whether the player to act has taken a shipment back this turn (allowed once a turn).
            "taken_back": False,
            "ended_by": -1,
            "penalties": None,
            "winners": [],
        }

    # ---- whose turn, what is legal -------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        """The single seat whose turn (or starting position) it is."""
        if state["phase"] == "GAME_OVER":
            return []
        return [state["current"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat`` now."""
        if seat not in self.to_act(state):
            return []
        region = REGIONS[state["region"]]
        phase = state["phase"]
        if phase == "START_POSITIONS":
            return self._start_moves(state)
        if phase == "MOVE":
            steps = movement.collector_steps(state, region, seat)
            if not steps:
                return [{"stay_put": {}}]
            return [{"move_collector": {"turn": s.turn, "distance": s.distance}} for s in steps]
        if phase == "ACTION_TILE":
            return [{"take_action_tile": {}}, {"decline_action_tile": {}}]
        if phase == "LOAD":
            return [*loading.lay_out_moves(state, region, seat), {"end_turn": {}}]
        if phase == "BORROW":
            return loading.borrow_moves(state, seat)
        return loading.loading_moves(state, seat)

    def _start_moves(self, state: State) -> list[Move]:
        region = REGIONS[state["region"]]
        moves: list[Move] = []
        for space in region.tile_spaces:
            if state["spaces"][space] == NO_TILE:
                continue
            row, col = region.coords(space)
            moves.extend(
                {"choose_start": {"row": row, "col": col, "facing": facing}} for facing in region.start_facings(space)
            )
        return moves

    # ---- applying moves ----------------------------------------------------------

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Carry out one legal move and everything that follows automatically."""
        kind, body = next(iter(move.items()))
        carry_out = getattr(self, f"_apply_{kind}")
        events: list[Event] = carry_out(state, seat, body, rng)
        return state, events

    def _apply_choose_start(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        region = REGIONS[state["region"]]
        space = region.index(body["row"], body["col"])
        player = state["seats"][seat]
        ship = state["placed"]
        state["ships"][ship][seat] += 1
        player["supply"] -= 1
        player["pos"] = space
        player["facing"] = body["facing"]
        tile = state["spaces"][space]
        state["spaces"][space] = NO_TILE
        offered = movement.gain_tile(state, seat, tile)
        chosen = {"seat": seat, "row": body["row"], "col": body["col"], "facing": body["facing"], "ship": ship}
        events: list[Event] = [
            {"start_chosen": chosen},
            movement.take_tile_event(state, region, seat, space, tile, offered),
        ]
        # The start tile is not replaced: the collector stands on its space.
        return events + self._after_taking(state, seat, offered, {"refill": NO_TILE, "then": "START_POSITIONS"}, rng)

    def _apply_move_collector(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        region = REGIONS[state["region"]]
        origin = state["seats"][seat]["pos"]
        # The move is already known legal: only the chosen turn's ray needs its costs.
        steps = movement.collector_steps(state, region, seat, (body["turn"],))
        step = next(s for s in steps if s.distance == body["distance"])
        events, offered = movement.move_collector(state, region, seat, step)
        return events + self._after_taking(state, seat, offered, {"refill": origin, "then": "LOAD"}, rng)

    def _after_taking(self, state: State, seat: int, offered: bool, then: dict[str, Any], rng: Rng) -> list[Event]:
        """After a tile is taken: wait for the action-tile decision if one is offered, else carry on."""
        if offered:
            state["phase"] = "ACTION_TILE"
            state["offer"] = then
            return []
        return self._carry_on(state, seat, then, rng)

    def _carry_on(self, state: State, seat: int, then: dict[str, Any], rng: Rng) -> list[Event]:
        """Refill the vacated space (if any), then the next starting position or phase III."""
        events: list[Event] = []
        if then["refill"] != NO_TILE:
            events.append(movement.refill(state, REGIONS[state["region"]], then["refill"], rng))
        if then["then"] == "LOAD":
            state["phase"] = "LOAD"
            return events
        return events + self._next_start(state, seat)

    def _apply_take_action_tile(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        events = [movement.take_action_tile(state, seat)]
        return events + self._resume(state, seat, rng)

    def _apply_decline_action_tile(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        events: list[Event] = [{"action_tile_declined": {"seat": seat}}]
        return events + self._resume(state, seat, rng)

    def _resume(self, state: State, seat: int, rng: Rng) -> list[Event]:
        """Carry on where the action-tile offer interrupted the turn (or the starting positions)."""
        then = state["offer"]
        state["offer"] = None
        return self._carry_on(state, seat, then, rng)

    def _apply_stay_put(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        state["phase"] = "LOAD"
        return [{"collector_stayed": {"seat": seat}}]

    def _apply_lay_out(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        state["phase"] = "LOADING"
        return loading.lay_out(state, REGIONS[state["region"]], seat, body)

    def _apply_play_action(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        return loading.play_action(state, seat, body["action"])

    def _apply_load(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        events, done = loading.load(state, seat, body["crates"])
        return events + self._after_loading(state, seat, done)

    def _apply_borrow_crate(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        events, done = loading.borrow_crate(state, seat, body["ship"])
        return events + self._after_loading(state, seat, done)

    def _after_loading(self, state: State, seat: int, done: bool) -> list[Event]:
        """End the turn once the ship is loaded, else wait for the player to pick the next crate to move."""
        if done:
            return self._after_turn(state, seat)
        state["phase"] = "BORROW"
        return []

    def _apply_take_back(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        state["phase"] = "LOAD"
        return loading.take_back(state, seat)

    def _apply_end_turn(self, state: State, seat: int, body: dict[str, Any], rng: Rng) -> list[Event]:
        return self._after_turn(state, seat)

    def _next_start(self, state: State, seat: int) -> list[Event]:
        """The next seat to the left chooses its starting position; after the last, the first turn begins."""
        state["placed"] += 1
        if state["placed"] < state["players"]:
            state["phase"] = "START_POSITIONS"
            state["current"] = (seat + 1) % state["players"]
            return []
        return self._begin_turn(state, state["start_player"])

    def _begin_turn(self, state: State, seat: int) -> list[Event]:
        """Phase I: score the crates on the ships; reaching the goal ends the game at once."""
        state["current"] = seat
        state["turn_number"] += 1
        state["phase"] = "MOVE"
        state["taken_back"] = False
        points = ship_points(state, seat)
        if not points:
            return []
        player = state["seats"][seat]
        player["score"] += points
        events: list[Event] = [{"crates_scored": {"seat": seat, "points": points, "score": player["score"]}}]
        if player["score"] >= GOAL:
            events.append(self._end_game(state, seat))
        return events

    def _after_turn(self, state: State, seat: int) -> list[Event]:
        """End the turn (the game, if the shipment reached the goal) and start the next player's."""
        if state["seats"][seat]["score"] >= GOAL:
            return [self._end_game(state, seat)]
        following = (seat + 1) % state["players"]
        events: list[Event] = [{"turn_ended": {"seat": seat, "next": following}}]
        events.extend(self._begin_turn(state, following))
        return events

    def _end_game(self, state: State, ended_by: int) -> Event:
        """Lift the screens: -1 per half crate still held; most points wins, ties share."""
        penalties = [
            COSTS.half_crate_penalty * sum(TILES[t].halves for t in player["tiles"]) for player in state["seats"]
        ]
        state["phase"] = "GAME_OVER"
        state["current"] = -1
        state["ended_by"] = ended_by
        state["penalties"] = penalties
        finals = _final_scores(state)
        state["winners"] = Result.from_scores([float(final) for final in finals]).winners
        scores = [
            {
                "seat": seat,
                "score": player["score"],
                "penalty": penalties[seat],
                "final_score": finals[seat],
                "tiles": [movement.tile_json(t) for t in sorted(player["tiles"])],
            }
            for seat, player in enumerate(state["seats"])
        ]
        return {"game_ended": {"ended_by": ended_by, "scores": scores, "winners": list(state["winners"])}}

    # ---- refusals ----------------------------------------------------------------

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """A collector move's victory points (turning back, passing spaces), as its apply takes them."""
        body = move.get("move_collector")
        if body is None:
            return []
        steps = movement.collector_steps(state, REGIONS[state["region"]], seat, (body["turn"],))
        cost = next((s.cost for s in steps if s.distance == body["distance"]), 0)
        return [{"what": "points", "amount": cost}] if cost else []

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """A specific code and message for a refused move."""
        if state["phase"] == "GAME_OVER":
            return IllegalMove("the game is over", code="game_over")
        if seat not in self.to_act(state):
            return IllegalMove("it is not this seat's turn", code="not_your_turn")
        if not isinstance(move, dict) or len(move) != 1 or next(iter(move)) not in MOVE_KINDS:
            return IllegalMove(f"a move is one of: {', '.join(MOVE_KINDS)}", code="unknown_move")
        kind, body = next(iter(move.items()))
        if kind not in PHASE_MOVES[state["phase"]]:
            allowed = ", ".join(PHASE_MOVES[state["phase"]])
            return IllegalMove(f"{kind} is not possible in phase {state['phase']} (allowed: {allowed})", "wrong_phase")
        body = body if isinstance(body, dict) else {}
        explain = getattr(self, f"_why_{kind}")
        refusal: IllegalMove = explain(state, seat, body)
        return refusal

    def _why_choose_start(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        region = REGIONS[state["region"]]
        row, col = body.get("row", 0), body.get("col", 0)
        if not isinstance(row, int) or not isinstance(col, int) or not region.inside(row, col):
            return IllegalMove("that space is not part of the region", code="off_region")
        space = region.index(row, col)
        if state["spaces"][space] == NO_TILE:
            return IllegalMove("a collector must start on a tea tile", code="no_tile_there")
        facings = region.start_facings(space)
        if not facings:
            return IllegalMove(
                "a collector must start on a border tile, its back to the edge and facing a tile", code="not_on_border"
            )
        return IllegalMove(f"from there the collector must face one of {', '.join(facings)}", code="bad_facing")

    def _why_move_collector(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        if body.get("turn") not in TURNS:
            return IllegalMove(f"turn must be one of {', '.join(TURNS)}", code="bad_turn")
        if not movement.collector_steps(state, REGIONS[state["region"]], seat):
            return IllegalMove("no tile can be reached: the collector stays put", code="must_stay_put")
        return IllegalMove(
            "the collector must move at least one space and end on a tea tile inside the region", code="bad_distance"
        )

    def _why_take_action_tile(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        return IllegalMove("no action tile is offered now", code="wrong_phase")

    _why_decline_action_tile = _why_take_action_tile

    def _why_stay_put(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        return IllegalMove("the collector can reach a tile, so it must move", code="must_move")

    def _why_lay_out(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        variety = body.get("variety")
        if variety not in VARIETIES:
            return IllegalMove(f"variety must be one of {', '.join(VARIETIES)}", code="bad_variety")
        counts = [body.get(key, 0) for key in loading.HALVES_KEYS]
        if not all(isinstance(c, int) and c >= 0 for c in counts):
            return IllegalMove("tile counts must be non-negative integers", code="bad_counts")
        groups = loading.held_by_kind(state["seats"][seat]["tiles"])[variety]
        if any(count > len(group) for count, group in zip(counts, groups, strict=True)):
            return IllegalMove("you do not hold that many tiles of that kind", code="not_enough_tiles")
        halves = counts[0] + 2 * counts[1] + 3 * counts[2]
        if halves == 0:
            return IllegalMove("lay out at least one whole crate", code="empty_shipment")
        if halves % 2:
            return IllegalMove("a shipment may not leave a half crate open", code="open_half_crate")
        return IllegalMove(
            "away from a city one crate is lost, so a single crate cannot be loaded without no-rotting",
            code="nothing_to_load",
        )

    def _why_play_action(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        action = body.get("action")
        if action not in ACTIONS:
            return IllegalMove(f"action must be one of {', '.join(ACTIONS)}", code="bad_action")
        played = state["shipment"]["played"]
        if action in played:
            return IllegalMove("each action may be used once per turn", code="action_already_played")
        if len(played) >= COSTS.action_tiles_per_loading:
            return IllegalMove("at most two action tiles per loading", code="action_limit")
        return IllegalMove("you hold no action tile offering that action", code="no_action_tile")

    def _why_load(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        most = loading.most_loadable(state["shipment"])
        if most < 1:
            return IllegalMove(
                "away from a city this shipment loads no crate; play no-rotting first", code="nothing_to_load"
            )
        return IllegalMove(f"load from 1 to {most} crates", code="bad_crates")

    def _why_borrow_crate(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        return IllegalMove(
            "move a crate over from one of your ships below the one being loaded that holds your crates",
            code="no_crate_there",
        )

    def _why_take_back(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        return IllegalMove("a shipment may be taken back only once a turn", code="already_taken_back")

    def _why_end_turn(self, state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
        return IllegalMove("the turn cannot end now", code="wrong_phase")

    # ---- views and result ----------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        """The State proto JSON for ``seat`` (``None`` = spectator)."""
        return state_view(state, seat)

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A state the seat cannot tell from the real one: other screens, bag and supply sampled."""
        return hidden.determinize(seen, rng)

    def event_view(self, event: Event, seat: int | None) -> Event | None:
        """Events are public except the identity of a tile taken behind another's screen."""
        return redact_event(event, seat)

    def result(self, state: State) -> Result | None:
        """Final scores after the half-crate penalty; ties share the win."""
        if state["phase"] != "GAME_OVER":
            return None
        return Result.from_scores([float(final) for final in _final_scores(state)])

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning (see :mod:`services.darjeeling.facts`)."""
        return darjeeling_facts.content_facts(state)


def _final_scores(state: State) -> list[int]:
    """Each seat's score less its half-crate penalty (once the game is over)."""
    return [player["score"] - penalty for player, penalty in zip(state["seats"], state["penalties"], strict=True)]
