"""The Alubari rules engine: the platform's entry point (see services/common/engine.py), a facade.

:mod:`.rounds` (setup, the round's steps), :mod:`.moves` (whose decision, legal moves, routing through
one handler table), :mod:`.actions` and :mod:`.rondel` (the worker's actions, maintenance),
:mod:`.refusals` (why a move is refused), :mod:`.views` and :mod:`.hidden`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.alubari import actions, hidden, moves, refusals, rounds, views
from services.alubari import facts as alubari_facts
from services.alubari.bots import HeuristicBot
from services.common.engine import BadConfig, Bot, GameConfig, GameParts, ModularEngine, Move, Result, State, View
from services.common.rng import Rng


def default_options() -> dict[str, Any]:
    """``cover_alubari``: lay a card over the printed Alubari estate (not for a first game); ``first_player``."""
    return {"cover_alubari": False, "first_player": 0}


class AlubariEngine(ModularEngine):
    """Alubari for 1-5 players; the deck order below its top is what a seat cannot see."""

    parts = GameParts("alubari", "Alubari", (1, 5), moves, hidden, alubari_facts, refusals, default_options)

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

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """A worker placed where its action is impossible as things stand now (no steel to lay
        track, nothing to build, ...) would be lost when resolved: said before it is placed.
        Earlier areas may still change that, so the sentence says "now"."""
        body = move.get("place_worker")
        if body is None or actions.action_possible(state, seat, actions.area_kind(state, body["area"])):
            return []
        return [{"what": "worker", "amount": 1}]


    def view(self, state: State, seat: int | None) -> View:
        """The state as ``seat`` (or a spectator) may see it."""
        return views.view(state, seat, self.to_act(state))

    def result(self, state: State) -> Result | None:
        """Final scores once the game is over; ties share the victory."""
        if state["stage"] != "OVER" or state["final"] is None:
            return None
        return Result.from_scores([row["total"] for row in state["final"]])

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        return HeuristicBot()

