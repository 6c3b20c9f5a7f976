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


@dataclass(frozen=True)
class SearchBot:
    """Determinized Monte Carlo tree search with the game's heuristic as rollout policy and prior."""

    game_type: str
    rollout: Bot
    budget: Budget
    # Slow: the conductor computes its moves in a worker process (services.conductor.search_pool).
    offload: ClassVar[bool] = True

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """The most visited root move after the level's iterations over sampled determinizations."""
        legal = list(seen.legal)
        if len(legal) == 1:
            return legal[0]

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


def search_levels(game_type: str, rollout: Bot) -> dict[str, Bot]:
    """The search bot's levels for one game, rolling out with ``rollout`` (its heuristic)."""
    scale = MARGIN_SCALE.get(game_type, 10.0)
    return {
        name: SearchBot(game_type=game_type, rollout=rollout, budget=replace(budget, margin_scale=scale))
        for name, budget in LEVELS.items()
    }
