"""The search bot as a :class:`~services.common.engine.Bot`, and its levels ``mcts-easy``, ``mcts``, ``mcts-hard``.

A level is an iteration budget (plus rollout depth): the move depends only on the seat's
view and the bot's random generator, never on the machine, except when the wall-clock
safety cap cuts a search short (see :mod:`services.bots.search`). Measured costs per level
and game are in the README, ``## Bots`` / ``### Search bot``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from services.bots.evaluation import EVALUATIONS
from services.bots.search import Budget, Search
from services.common.engine import Bot, Engine, Move, Seen, State
from services.common.rng import Rng

# Per level: what one move may spend. The conductor computes these moves off its event loop.
LEVELS: dict[str, Budget] = {
    "mcts-easy": Budget(iterations=16, rollout_depth=16, wall_seconds=2.0),
    "mcts": Budget(iterations=48, rollout_depth=24, wall_seconds=5.0),
    "mcts-hard": Budget(iterations=160, rollout_depth=40, wall_seconds=12.0),
}

# Per game: the score difference that counts as a clear lead (the reward's margin scale), and
# budget changes where a game's moves are much smaller steps than a turn.
MARGIN_SCALE: dict[str, float] = {"darjeeling": 10.0, "tea_rum": 4.0, "india_rails": 40.0, "alubari": 8.0}
# Per game (absent: every decision is searched): the move kinds that make a position worth a
# search. Elsewhere the bot plays its heuristic's move: India Rails runs a train and lays track
# one mile at a time (nine in ten of a game's ~2,000 moves are such steps of the heuristic's
# route plan); the plan is decided where a load may be picked up, delivered or dropped, a hand
# discarded or a train upgraded, and those positions are searched.
DECISIONS: dict[str, frozenset[str]] = {
    "india_rails": frozenset({"pick_up", "deliver", "drop_load", "discard_hand", "upgrade_train", "place_train"})
}


@dataclass(frozen=True)
class SearchBot:
    """Determinized Monte Carlo tree search with the game's heuristic as rollout policy and prior."""

    game_type: str
    rollout: Bot
    budget: Budget
    decisions: frozenset[str] | None = None
    # Slow: the conductor computes its moves in a worker process (services.conductor.search_pool).
    offload: ClassVar[bool] = True

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """The most visited root move after the level's iterations over sampled determinizations."""
        legal = list(seen.legal)
        if len(legal) == 1:
            return legal[0]
        if self.decisions is not None:
            # Candidates: the heuristic's own move and the decisions; not the hundreds of track miles.
            chosen = self.rollout.choose(engine, seen, rng.fork(2))
            legal = [move for move in legal if next(iter(move)) in self.decisions]
            if not legal:
                return chosen
            legal += [] if chosen in legal else [chosen]

        def sample(draw: Rng) -> State:
            return engine.determinize(seen, draw)

        search = Search(
            engine=engine,
            seat=seen.seat,
            legal=legal,
            sample=sample,
            policy=self._policy,
            evaluate=EVALUATIONS[self.game_type],
            budget=self.budget,
        )
        return search.best_move(rng)

    def _policy(self, engine: Engine, state: State, seat: int, rng: Rng) -> Move:
        """The rollout bot's move, deciding from ``seat``'s view of the sampled state like a real seat."""
        seen = engine.seen(state, seat)
        if len(seen.legal) == 1:
            return seen.legal[0]
        return self.rollout.choose(engine, seen, rng)


def can_search(engine: Engine) -> bool:
    """Whether ``engine`` samples a seat's hidden information (the search needs ``determinize``)."""
    return type(engine).determinize is not Engine.determinize


def search_levels(engine: Engine, rollout: Bot) -> dict[str, Bot]:
    """The search bot's levels for one game, rolling out with ``rollout`` (its heuristic).

    None for a game that cannot determinize yet: a search over the real state would cheat.
    """
    if not can_search(engine):
        return {}
    game_type = engine.game_type
    scale = MARGIN_SCALE.get(game_type, 10.0)
    return {
        name: SearchBot(
            game_type=game_type,
            rollout=rollout,
            budget=replace(budget, margin_scale=scale),
            decisions=DECISIONS.get(game_type),
        )
        for name, budget in LEVELS.items()
    }
