"""The Darjeeling rules engine: the platform's entry point, a facade over the game's modules.

:mod:`.options` (options and the opening position), :mod:`.moves` (whose turn, legal moves,
routing), :mod:`.handlers` (one handler per move kind), :mod:`.turns` (what follows
automatically, the end), :mod:`.refusals` (why a move is refused), :mod:`.view` and
:mod:`.hidden` (what a seat may see, and sampling what it may not).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from services.common.engine import Bot, Engine, Event, GameConfig, IllegalMove, Move, Result, Seen, State, View
from services.common.rng import Rng
from services.darjeeling import facts as darjeeling_facts
from services.darjeeling import hidden, movement, moves, refusals, turns
from services.darjeeling import options as game_options
from services.darjeeling.board import REGIONS
from services.darjeeling.view import redact_event, state_view


class DarjeelingEngine(Engine):
    """Darjeeling for 2-5 players on the India, China or Sri Lanka region."""

    game_type: ClassVar[str] = "darjeeling"
    name: ClassVar[str] = "Darjeeling"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5

    def default_options(self) -> dict[str, Any]:
        """``region`` empty: the rulebook's region for the player count; ``start_player`` -1: drawn at random."""
        return game_options.default_options()

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

    def to_act(self, state: State) -> list[int]:
        """The single seat whose turn (or starting position) it is."""
        return moves.to_act(state)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat`` now."""
        return moves.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Carry out one legal move and everything that follows automatically."""
        return state, moves.apply_move(state, seat, move, rng)

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
        return refusals.explain_illegal(state, seat, move)

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
        return turns.result(state)

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning (see :mod:`services.darjeeling.facts`)."""
        return darjeeling_facts.content_facts(state)
