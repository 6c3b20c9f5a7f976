"""The Alubari rules engine: the platform's entry point (see services/common/engine.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.alubari import actions, contracts, hidden, rondel, rounds, views
from services.alubari import facts as alubari_facts
from services.alubari.bots import HeuristicBot
from services.alubari.content import AREAS, EQUIPMENT, TOWN_INDEX
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

STAGE_MOVES = {
    "MAINTENANCE": {"maintain_equipment"},
    "TEMP_WORKER": {"temp_worker", "decline_temp_worker"},
    "PLACE": {"place_worker"},
    "CONTRACTS": {"play_contract", "finish_contracts"},
    "WORKER": {"chai_boost", "take_cube", "foundry", "build_station", "buy_equipment", "take_contract",
               "chaiwala_take_leaves", "chaiwala_convert", "end_action"},
}
ALL_MOVES = set().union(*STAGE_MOVES.values())


def explain_place_worker(state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a worker cannot go to that action space: no such space, taken, or fogged."""
    area, number = body.get("area"), body.get("space")
    if not isinstance(area, str) or area not in state["areas"] or not isinstance(number, int):
        return IllegalMove("no such action space", code="no_such_space")
    if not 1 <= number <= len(state["areas"][area]):
        return IllegalMove("no such action space", code="no_such_space")
    if state["areas"][area][number - 1] >= 0:
        return IllegalMove("that action space is taken", code="space_taken")
    return IllegalMove("fog closes that action space this round", code="space_fogged")


def explain_play_contract(state: State, seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a contract cannot be played: not held, already used, or not showing this area."""
    card = body.get("contract_id")
    held = {h["id"]: h for h in state["players"][seat]["contracts"]}
    if not isinstance(card, int) or card not in held:
        return IllegalMove("you do not hold that contract", code="contract_not_held")
    if held[card]["used"]:
        return IllegalMove("that contract has been used already", code="contract_used")
    return IllegalMove("that contract does not show this action area", code="contract_wrong_area")


def explain_build_station(_state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why a station cannot be built: no such town, or the space is closed, taken or too dear."""
    if not isinstance(body.get("town"), str) or body["town"] not in TOWN_INDEX:
        return IllegalMove("no such town", code="no_such_town")
    return IllegalMove("that station space is closed, taken or too dear", code="cannot_build")


def explain_buy_equipment(_state: State, _seat: int, body: dict[str, Any]) -> IllegalMove:
    """Why an Equipment cannot be bought: no such card, or not in the shed or too dear."""
    item = body.get("equipment_id")
    if not isinstance(item, int) or item not in EQUIPMENT:
        return IllegalMove("no such equipment", code="no_such_equipment")
    return IllegalMove("that equipment is not in the shed or too dear", code="cannot_afford")


Explainer = Callable[[State, int, dict[str, Any]], IllegalMove]

# Kinds whose refusal depends on what the move names.
DETAIL_EXPLAINERS: dict[str, Explainer] = {
    "place_worker": explain_place_worker,
    "play_contract": explain_play_contract,
    "build_station": explain_build_station,
    "buy_equipment": explain_buy_equipment,
}

# These four worker steps share one reason: each needs cubes, leaves or room under the action limit.
NOT_POSSIBLE = ("not possible with the cubes, leaves or limits now", "not_possible")

# Kinds refused for one reason only, as (message, code).
FIXED_REFUSALS: dict[str, tuple[str, str]] = {
    "maintain_equipment": ("that is not the Equipment due for maintenance now", "not_due"),
    "temp_worker": ("you cannot pay for your third worker that way", "cannot_pay"),
    "take_contract": ("no contract in that Post Office position", "empty_slot"),
    "take_cube": NOT_POSSIBLE,
    "foundry": NOT_POSSIBLE,
    "chaiwala_convert": NOT_POSSIBLE,
    "chaiwala_take_leaves": NOT_POSSIBLE,
    "end_action": ("this action must be carried out", "must_act"),
}


class AlubariEngine(Engine):
    """Alubari for 1-5 players."""

    game_type = "alubari"
    name = "Alubari"
    min_players = 1
    max_players = 5

    def default_options(self) -> dict[str, Any]:
        """``cover_alubari``: lay a card over the printed Alubari estate (not for a first game); ``first_player``."""
        return {"cover_alubari": False, "first_player": 0}

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check the option types and that the first player is a seat."""
        merged = super().validate_options(players, options)
        if not isinstance(merged["cover_alubari"], bool):
            raise BadConfig("cover_alubari must be true or false", code="bad_option_value")
        first = merged["first_player"]
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
            raise BadConfig(f"first_player must be a seat from 0 to {players - 1}", code="bad_option_value")
        return merged

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Round 1 ready for the first worker placement."""
        return rounds.setup(config.players, dict(config.options), rng)

    def to_act(self, state: State) -> list[int]:
        """The one seat deciding now."""
        if state["stage"] == "OVER":
            return []
        return [state["current"]]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat``."""
        if seat not in self.to_act(state):
            return []
        stage = state["stage"]
        if stage == "MAINTENANCE":
            return rondel.maintenance_moves(state)
        if stage == "TEMP_WORKER":
            return rounds.temp_choices(state, seat)
        if stage == "PLACE":
            return [{"place_worker": {"area": area, "space": index + 1}} for area, index in rounds.open_spaces(state)]
        if stage == "CONTRACTS":
            area = AREAS[state["resolve"]["area"]]
            usable = contracts.usable_contracts(state, seat, area)
            return [*({"play_contract": {"contract_id": card}} for card in usable), {"finish_contracts": {}}]
        return actions.worker_moves(state)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply one legal move and run the game forward to the next decision."""
        events: list[Event] = []
        kind = next(iter(move))
        body = move[kind]
        if kind == "maintain_equipment":
            rounds.maintenance_decided(state, bool(body["pay"]), events)
        elif kind == "temp_worker":
            rounds.apply_temp(state, seat, body["payment"], events)
        elif kind == "decline_temp_worker":
            rounds.apply_temp(state, seat, None, events)
        elif kind == "place_worker":
            rounds.place_worker(state, seat, body["area"], int(body["space"]) - 1, events)
        elif kind == "play_contract":
            rounds.contract_used(state, seat, int(body["contract_id"]), rng, events)
        elif kind == "finish_contracts":
            rounds.contract_done(state, rng, events)
        else:
            more = actions.apply_worker_move(state, move, rng, events)
            rounds.after_worker_step(state, rng, events, more)
        while state["stage"] == "RESOLVE":
            rounds.run_resolution(state, rng, events)
        return state, events

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """A worker placed where its action is impossible as things stand now (no steel to lay
        track, nothing to build, ...) would be lost when resolved: said before it is placed.
        Earlier areas may still change that, so the sentence says "now"."""
        body = move.get("place_worker")
        if body is None or actions.action_possible(state, seat, actions.area_kind(state, body["area"])):
            return []
        return [{"what": "worker", "amount": 1}]

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """A specific reason why ``move`` is refused."""
        if state["stage"] == "OVER":
            return IllegalMove("the game is over", code="game_over")
        if seat not in self.to_act(state):
            return IllegalMove("it is not this seat's turn", code="not_your_turn")
        if not isinstance(move, dict) or len(move) != 1 or next(iter(move)) not in ALL_MOVES:
            return IllegalMove("unknown move; send exactly one move kind", code="unknown_move")
        kind = next(iter(move))
        body = move[kind] if isinstance(move[kind], dict) else {}
        stage = state["stage"]
        if kind not in STAGE_MOVES[stage]:
            return IllegalMove(f"{kind} is not a decision of the {stage} step", code="wrong_step")
        return self._explain_detail(state, seat, kind, body)

    def _explain_detail(self, state: State, seat: int, kind: str, body: dict[str, Any]) -> IllegalMove:
        """The reason a move of the right step and kind is still refused."""
        explain = DETAIL_EXPLAINERS.get(kind)
        if explain is not None:
            return explain(state, seat, body)
        if kind in FIXED_REFUSALS:
            message, code = FIXED_REFUSALS[kind]
            return IllegalMove(message, code=code)
        return IllegalMove("that move is not legal now")

    def view(self, state: State, seat: int | None) -> View:
        """The state as ``seat`` (or a spectator) may see it."""
        return views.view(state, seat, self.to_act(state))

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A full state ``seen.seat`` cannot tell from the real one: the deck order below its top sampled."""
        return hidden.determinize(seen, rng)

    def result(self, state: State) -> Result | None:
        """Final scores once the game is over; ties share the victory."""
        if state["stage"] != "OVER" or state["final"] is None:
            return None
        return Result.from_scores([row["total"] for row in state["final"]])

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning (see :mod:`services.alubari.facts`)."""
        return alubari_facts.content_facts(state)

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        return HeuristicBot()

