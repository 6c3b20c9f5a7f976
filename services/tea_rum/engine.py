"""Tea & Rum rules engine: the platform's entry point for the game."""

from __future__ import annotations

from typing import Any, ClassVar

from services.common.engine import (
    Bot,
    Engine,
    Event,
    GameConfig,
    IllegalMove,
    Move,
    Result,
    Seen,
    State,
)
from services.common.rng import Rng
from services.tea_rum import facts as tea_rum_facts
from services.tea_rum import hidden, views
from services.tea_rum import moves as rules
from services.tea_rum.bots import HeuristicBot
from services.tea_rum.rounds import advance, setup_state


class TeaRumEngine(Engine):
    """Tea & Rum for 2-4 players; with 2 players the automa moves inside ``apply``."""

    game_type: ClassVar[str] = "tea_rum"
    name: ClassVar[str] = "Tea & Rum"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4

    def default_options(self) -> dict[str, Any]:
        """Tea & Rum has no variants; the options message is empty."""
        return {}

    def setup(self, config: GameConfig, rng: Rng) -> State:
        """Deal the game and run it on to the first decision (round I income and ships)."""
        state = setup_state(config.players, dict(config.options), rng)
        advance(state, rng, [])
        return state

    def to_act(self, state: State) -> list[int]:
        """The seat to decide, or every seat still exchanging coins for VP at the end."""
        return rules.to_act(state)

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every atomic decision open to ``seat``."""
        return rules.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Move, rng: Rng) -> tuple[State, list[Event]]:
        """Apply a legal move, then everything automatic up to the next decision."""
        events = rules.apply_move(state, seat, move, rng)
        return state, events

    def explain_illegal(self, state: State, seat: int, move: Move) -> IllegalMove:
        """A specific reason for refusing ``move``."""
        if state["phase"] == "over":
            return IllegalMove("the game is over", code="game_over")
        if seat not in self.to_act(state):
            return IllegalMove("it is not this seat's turn", code="not_your_turn")
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

    def determinize(self, seen: Seen, rng: Rng) -> State:
        """A state the seat cannot tell from the real one: chests, decks, automa bag and secret exchanges sampled."""
        return hidden.determinize(seen, rng)

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

    def content_facts(self, state: State) -> list[list[str]] | None:
        """Per seat, the content ids the arena correlates with winning (see :mod:`services.tea_rum.facts`)."""
        return tea_rum_facts.content_facts(state)

    def heuristic_bot(self) -> Bot:
        """A fresh heuristic bot (services.bots.roster adds the random bot and the search levels)."""
        return HeuristicBot()
