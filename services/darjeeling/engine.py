"""The Darjeeling rules engine: the platform's entry point, a facade over the game's modules.

:mod:`.options` (options and the opening position), :mod:`.moves` (whose turn, legal moves,
routing), :mod:`.handlers` (one handler per move kind), :mod:`.turns` (what follows
automatically, the end), :mod:`.refusals` (why a move is refused), :mod:`.view` and
:mod:`.hidden` (what a seat may see, and sampling what it may not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.common.engine import Bot, Event, GameConfig, GameParts, ModularEngine, Move, Result, State, View
from services.common.rng import Rng
from services.darjeeling import facts as darjeeling_facts
from services.darjeeling import hidden, movement, moves, refusals, turns
from services.darjeeling import options as game_options
from services.darjeeling.board import REGIONS
from services.darjeeling.view import redact_event, state_view


class DarjeelingEngine(ModularEngine):
    """Darjeeling for 2-5 players on the India, China or Sri Lanka region; other seats' screens, the
    bag and the supply are what a seat cannot see."""

    # Options (game_options.default_options): the rulebook's region for the player count, a random start player.
    parts = GameParts(
        "darjeeling", "Darjeeling", (2, 5), moves, hidden, darjeeling_facts, refusals, game_options.default_options
    )

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check the region name and that the start player is a seat (or -1 for a random one)."""
        merged = super().validate_options(players, options)
        game_options.check_options(players, merged)
        return merged

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        from services.darjeeling.bots import HeuristicBot

        return HeuristicBot()

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Fill the region from the bag, set the strip and ships, shuffle the demand markers."""
        return game_options.setup_state(config, rng)

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """A collector move's victory points (turning back, passing spaces), as its apply takes them."""
        body = move.get("move_collector")
        if body is None:
            return []
        cost = movement.step_cost(state, REGIONS[state["region"]], seat, body["turn"], body["distance"])
        return [{"what": "points", "amount": cost}] if cost else []

    def view(self, state: State, seat: int | None) -> View:
        """The State proto JSON for ``seat`` (``None`` = spectator)."""
        return state_view(state, seat)

    def event_view(self, event: Event, seat: int | None) -> Event | None:
        """Events are public except the identity of a tile taken behind another's screen."""
        return redact_event(event, seat)

    def result(self, state: State) -> Result | None:
        """Final scores after the half-crate penalty; ties share the win."""
        return turns.result(state)
