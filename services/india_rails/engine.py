"""India Rails rules engine: the platform's entry point, a facade over the game's modules.

:mod:`.options` (variants and the opening deal), :mod:`.moves` (whose decision, legal moves, routing
through :data:`.handlers.HANDLERS`), :mod:`.handlers` (one per move kind), :mod:`.turns` (turn order,
rounds, the end), :mod:`.refusals` (why a move is refused), :mod:`.views` and :mod:`.hidden` (what
a seat may see, and sampling what it may not); :mod:`.basics` holds the small rules they share.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from services.common.engine import Bot, GameConfig, GameParts, ModularEngine, Move, Result, State, View
from services.common.rng import Rng
from services.india_rails import facts as india_rails_facts
from services.india_rails import hidden, moves, prices, refusals, views
from services.india_rails import options as game_options
from services.india_rails.basics import fresh_turn, loan_room, loco_cards_left
from services.india_rails.options import OPTION_DEFAULTS

__all__ = ["OPTION_DEFAULTS", "IndiaRailsEngine", "State", "fresh_turn", "loan_room", "loco_cards_left"]


class IndiaRailsEngine(ModularEngine):
    """The complete India Rails game (Empire Builder rules on a generated map of the subcontinent);
    other seats' cash (until a tax card) and the unseen card order are what a seat cannot see."""

    # Options: every variant off, no time limit.
    parts = GameParts(
        "india_rails", "India Rails", (2, 6), moves, hidden, india_rails_facts, refusals, partial(dict, OPTION_DEFAULTS)
    )
    # Who starts: a class attribute, so a measurement (tests/india_rails/turn_order_trial.py) can move it.
    _first_player = staticmethod(game_options.first_player)

    def validate_options(self, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
        """Check types and ranges; ``fast_game`` switches on its four parts."""
        return game_options.check_options(super().validate_options(players, options))

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        from services.india_rails.bots import HeuristicBot

        return HeuristicBot()

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Shuffle the deck, deal demand cards (setting events aside) and pick the first player."""
        return game_options.setup_state(config, rng, self._first_player)

    def view(self, state: State, seat: int | None) -> View:
        """The public board plus the viewer's own cash (others' cash only after a tax card)."""
        return views.view(state, seat)

    def result(self, state: State) -> Result | None:
        """Cash as the score; the ranking follows the ending's precedence (victory or time limit)."""
        if not state["over"]:
            return None
        return Result(scores=[float(p["cash"]) for p in state["players"]], ranking=list(state["ranking"]),
                      winners=list(state["winners"]))

    def move_costs(self, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
        """The price of a legal move (see :mod:`services.india_rails.prices`)."""
        return prices.move_costs(move)
