"""Tea & Rum rules engine: the platform's entry point for the game."""

from __future__ import annotations

from typing import Any

from services.common.engine import (
    Bot,
    Event,
    GameConfig,
    GameParts,
    IllegalMove,
    ModularEngine,
    Move,
    Result,
    State,
    turn_refusal,
)
from services.common.rng import Rng
from services.tea_rum import facts as tea_rum_facts
from services.tea_rum import hidden, views
from services.tea_rum import moves as rules
from services.tea_rum.bots import HeuristicBot
from services.tea_rum.rounds import advance, setup_state


class TeaRumEngine(ModularEngine):
    """Tea & Rum for 2-4 players; with 2 players the automa moves inside ``apply``.  Chests, decks,
    the automa bag and the secret exchanges are what a seat cannot see."""

    # No refusals module (explain_illegal below says why) and no variants: the options message is empty.
    parts = GameParts("tea_rum", "Tea & Rum", (2, 4), rules, hidden, tea_rum_facts)

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Deal the game and run it on to the first decision (round I income and ships)."""
        state = setup_state(config.players, dict(config.options), rng)
        advance(state, rng, [])
        return state

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """A specific reason for refusing ``move``."""
        if (refused := turn_refusal(state["phase"] == "over", seat, self.to_act(state))) is not None:
            return refused
        if not isinstance(move, dict) or len(move) != 1:
            return IllegalMove("a move names exactly one kind", code="malformed_move")
        kind = next(iter(move))
        offered = {next(iter(m)) for m in self.legal_moves(state, seat)}
        if kind not in offered:
            return IllegalMove(
                f"'{kind}' is not possible now; possible: {', '.join(sorted(offered))}", code="wrong_kind_of_move"
            )
        return IllegalMove(f"this '{kind}' is not allowed now (cost, space or choice)", code=f"illegal_{kind}")

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The state as ``seat`` may see it."""
        return views.view(state, seat, self.to_act(state))

    def event_view(self, event: Event, seat: int | None) -> Event | None:
        """Redact secret VP and the secret exchange for other seats."""
        return views.event_view(event, seat)

    def result(self, state: State) -> Result | None:
        """Winners (one, two or none); losers share second place; score = blue + red VP."""
        final = state["final"]
        if final is None:
            return None
        scores = [float(b + r) for b, r in zip(final["blue"], final["red"], strict=True)]
        winners = list(final["winners"])
        ranking = [1 if s in winners else 2 for s in range(state["n"])]
        return Result(scores=scores, ranking=ranking, winners=winners)

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        return HeuristicBot()
