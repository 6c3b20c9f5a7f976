"""The search bot as a :class:`~services.common.engine.Bot`, and its levels ``mcts-easy``, ``mcts``, ``mcts-hard``.

A level is a playout budget (:class:`~services.bots.search.Budget`: how many of the
heuristic's best moves are compared, over how many determinized heuristic playouts each):
the move depends only on the seat's view and the bot's random generator, never on the
machine, except when the wall-clock safety cap cuts a decision short (see
:mod:`services.bots.search`; the arena lifts the cap). A game's settings are its
:class:`SearchProfile`; a game whose heuristic is a :class:`~services.bots.plans.Planner`
(India Rails) first races the heuristic's plans (:mod:`services.bots.plans`). Measured costs and
strength per level and game are in the README, ``## Bots`` / ``### Search bot``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import ClassVar

from services.bots.evaluation import evaluation_for
from services.bots.plans import Planner, committed_plan
from services.bots.search import Budget, Playout, candidates, improve, move_key
from services.common.engine import Bot, BotMemory, Engine, Move, Seen
from services.common.registry import unit_for
from services.common.rng import Rng

# Per level: what one decision may spend. The conductor computes these moves in worker processes.
LEVELS: dict[str, Budget] = {
    "mcts-easy": Budget(candidates=2, samples=3, wall_seconds=3.0),
    "mcts": Budget(candidates=3, samples=6, wall_seconds=8.0),
    "mcts-hard": Budget(candidates=4, samples=12, wall_seconds=15.0),
}


@dataclass(frozen=True)
class SearchProfile:
    """One game's search settings, read in one place (absent fields: the level's or the generic search's).

    * ``margin_scale``: the score difference that counts as a clear lead (the reward's margin scale).
    * ``solo_scale``: games with a solo mode, the solo score worth a reward of 1 (``search.solo_reward``).
    * ``depth``: playouts stop after this many moves and the game's evaluation estimates the end
      (``None``: to the end).
    * ``samples``: paired samples per level instead of the level's.
    * ``decisions``: the move kinds that make a position worth a search (``None``: every decision);
      elsewhere the bot plays its heuristic's move.
    * ``rivals``: the only move kinds a rival of the heuristic's move may be (``None``: the heuristic's
      runners-up, see :func:`~services.bots.search.candidates`); the rivals are the legal moves of those
      kinds, and the heuristic is asked once, for its own move.
    * ``second_thoughts``: the kinds of the heuristic's move second-guessed by its runner-up (what it
      plays were no move of those kinds legal, asked of a throwaway copy so the real one remembers
      nothing of it).
    * ``plan_moves_per_seat``: a game whose heuristic is a :class:`~services.bots.plans.Planner` first
      races its plans (:mod:`services.bots.plans`) over playouts of this many moves for every seat at
      the table (``None``: no plan search), so a plan is judged after as many moves of its own seat
      at any table size; ``plan_samples``: paired samples per level for it (absent: the level's).
    """

    margin_scale: float = 10.0
    solo_scale: float | None = None
    depth: int | None = None
    samples: Mapping[str, int] = field(default_factory=dict)
    decisions: frozenset[str] | None = None
    rivals: frozenset[str] | None = None
    second_thoughts: frozenset[str] = frozenset()
    plan_moves_per_seat: int | None = None
    plan_samples: Mapping[str, int] = field(default_factory=dict)

    def budget(self, level: str, budget: Budget) -> Budget:
        """``level``'s budget with this game's scales, depth and samples."""
        return replace(
            budget,
            margin_scale=self.margin_scale,
            samples=self.samples.get(level, budget.samples),
            solo_scale=budget.solo_scale if self.solo_scale is None else self.solo_scale,
            **({"depth": self.depth} if self.depth else {}),
        )

    def plan_budget(self, level: str, budget: Budget) -> Budget | None:
        """``level``'s budget for a plan search (``None``: the game searches no plans); its ``depth`` is
        per seat (:func:`~services.bots.plans.committed_plan` multiplies it by the table's seats)."""
        if self.plan_moves_per_seat is None:
            return None
        base = self.budget(level, budget)
        return replace(base, depth=self.plan_moves_per_seat, samples=self.plan_samples.get(level, base.samples))


def profile(game_type: str) -> SearchProfile:
    """``game_type``'s search profile, as its unit declares it (``search``; none: the generic search)."""
    return SearchProfile(**unit_for(game_type).search)


@dataclass(frozen=True)
class SearchBot:
    """The heuristic, improved by determinized playouts of its best few moves (:mod:`services.bots.search`)."""

    game_type: str
    rollout: Bot
    budget: Budget
    decisions: frozenset[str] | None = None
    rivals: frozenset[str] | None = None
    second_thoughts: frozenset[str] = frozenset()
    plans: Budget | None = None
    # Slow: the conductor computes its moves in a worker process (services.conductor.search_pool).
    offload: ClassVar[bool] = True

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """The heuristic's move, unless one of its runners-up wins clearly more paired playouts.

        Remembers nothing: a plan is searched afresh (see :meth:`choose_remembering`)."""
        return self.choose_remembering(engine, seen, rng, None)[0]

    def choose_remembering(self, engine: Engine, seen: Seen, rng: Rng, memory: BotMemory) -> tuple[Move, BotMemory]:
        """:meth:`choose`, with the seat's plan kept in ``memory`` (:mod:`services.bots.plans`)."""
        legal = list(seen.legal)
        if len(legal) == 1:
            return legal[0], memory
        if self.plans is not None and isinstance(self.rollout, Planner):
            # The seat's plan first (remembered, or raced now): the rest of the decision follows it.
            memory = committed_plan(
                self.rollout, engine, seen, self.plans, evaluation_for(self.game_type), rng.fork(4), memory
            )
        if self.decisions is not None and not any(next(iter(move)) in self.decisions for move in legal):
            # No decision here (e.g. the route plan's step): the heuristic's move.
            return self.rollout.choose(engine, seen, rng.fork(2)), memory
        moves = self._candidates(engine, seen, rng.fork(2))
        if len(moves) == 1:
            return moves[0], memory
        # A private copy plays the playouts: a heuristic that remembers (India Rails' refused
        # segments, its plan cache) must not learn from sampled states in the real game.
        policy = copy.deepcopy(self.rollout)
        playout = Playout(engine=engine, policy=policy, evaluate=evaluation_for(self.game_type), budget=self.budget)
        return improve(playout, seen, moves, rng.fork(3)), memory

    def _candidates(self, engine: Engine, seen: Seen, rng: Rng) -> list[Move]:
        """The heuristic's move first, then its rivals (see :class:`SearchProfile`)."""
        if self.rivals is None:
            return candidates(self.rollout, engine, seen, rng, self.budget.candidates)
        base = self.rollout.choose(engine, seen, rng)
        moves = rival_moves(base, list(seen.legal), self.rivals, self.budget.candidates)
        others = [move for move in seen.legal if next(iter(move)) not in self.second_thoughts]
        if next(iter(base)) in self.second_thoughts and others:
            runner_up = copy.deepcopy(self.rollout).choose(engine, replace(seen, legal=others), rng)
            if runner_up in others:
                moves.insert(1, runner_up)
        return moves[: self.budget.candidates]


def rival_moves(base: Move, legal: list[Move], kinds: frozenset[str], count: int) -> list[Move]:
    """``base`` first, then up to ``count - 1`` other legal moves of ``kinds``, in the engine's order."""
    key = move_key(base)
    rivals = [move for move in legal if next(iter(move)) in kinds and move_key(move) != key]
    return [base, *rivals[: count - 1]]


def search_levels(engine: Engine, rollout: Bot) -> dict[str, Bot]:
    """The search bot's levels for one game, playing out with ``rollout`` (its heuristic).

    Every engine samples a seat's hidden information (``Engine.determinize`` is abstract), so
    every game lists them: the playouts never see the real game's hidden parts.
    """
    game_type = engine.game_type
    settings = profile(game_type)
    return {
        name: SearchBot(
            game_type=game_type,
            rollout=rollout,
            budget=settings.budget(name, budget),
            decisions=settings.decisions,
            rivals=settings.rivals,
            second_thoughts=settings.second_thoughts,
            plans=settings.plan_budget(name, budget),
        )
        for name, budget in LEVELS.items()
    }
