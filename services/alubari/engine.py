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
        return moves.to_act(state)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat``."""
        return moves.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply one legal move and run the game forward to the next decision."""
        return state, moves.apply_move(state, seat, move, rng)

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
        return refusals.explain_illegal(state, seat, move)


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

