"""The search bot as a :class:`~services.common.engine.Bot`, and its levels ``mcts-easy``, ``mcts``, ``mcts-hard``.

A level is a playout budget (:class:`~services.bots.search.Budget`: how many of the
heuristic's best moves are compared, over how many determinized heuristic playouts each):
the move depends only on the seat's view and the bot's random generator, never on the
machine, except when the wall-clock safety cap cuts a decision short (see
:mod:`services.bots.search`; the arena lifts the cap). Measured costs and strength per
level and game are in the README, ``## Bots`` / ``### Search bot``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import ClassVar

from services.bots.evaluation import EVALUATIONS
from services.bots.search import Budget, Playout, candidates, improve
from services.common.engine import Bot, Engine, Move, Seen
from services.common.rng import Rng

# Per level: what one decision may spend. The conductor computes these moves in worker processes.
LEVELS: dict[str, Budget] = {
    "mcts-easy": Budget(candidates=2, samples=3, wall_seconds=3.0),
    "mcts": Budget(candidates=3, samples=6, wall_seconds=8.0),
    "mcts-hard": Budget(candidates=4, samples=12, wall_seconds=15.0),
}

# Per game: the score difference that counts as a clear lead (the reward's margin scale).
MARGIN_SCALE: dict[str, float] = {"darjeeling": 10.0, "tea_rum": 4.0, "india_rails": 40.0, "alubari": 8.0}
# Per game with a solo mode: the solo score worth a reward of 1 (``search.solo_reward``). Alubari:
# 100, so a point weighs about what it weighs in a close 2-player game (0.3 / (4 × 8) ≈ 1 / 107)
# and a rival must gain 2 points on average to replace the heuristic's move (edge 0.02); the
# heuristic's solo games end at 185-225 points (60 seeds of the bots report).
SOLO_SCALE: dict[str, float] = {"alubari": 100.0}
# Per game: playouts stop after this many moves and the game's evaluation estimates the end
# (absent: to the end). An India Rails game is ~2,000 moves at ~10 ms each: a playout to the end
# would cost seconds, so its playouts cover a few turns of train runs and building; Tea & Rum
# (~180 moves, ~3 ms each) and Alubari (~480, ~5 ms) stop after a round or so. Darjeeling's
# whole game (~110 moves) costs well under a tenth of a second, so it plays to the end.
DEPTH: dict[str, int] = {"india_rails": 120, "tea_rum": 60, "alubari": 60}
# Per game (absent: every decision is searched): the move kinds that make a position worth a
# search. Elsewhere the bot plays its heuristic's move: India Rails runs a train and lays track
# one mile at a time (nine in ten of a game's ~2,000 moves are such steps of the heuristic's
# route plan); the plan is decided where a load may be picked up, delivered or dropped, a hand
# discarded or a train upgraded, and those positions are searched.
DECISIONS: dict[str, frozenset[str]] = {
    "india_rails": frozenset({"pick_up", "deliver", "drop_load", "discard_hand", "upgrade_train", "place_train"}),
    # Tea & Rum: the turn's choices (a worker's action, what to build, hire or fulfil); the market's
    # buy/sell/plate/confirm steps (two in five of its moves) carry out the heuristic's trade.
    "tea_rum": frozenset(
        {"worker_action", "hire_captain", "buy_ship", "build", "take_allegiance", "fulfill_contract", "choose_option"}
    ),
    # Alubari: where a worker goes and what is bought, built or played; which cube to take, whether to
    # boost the chai and the foundry's steps (over half its ~480 moves) follow the heuristic.
    "alubari": frozenset(
        {"place_worker", "take_contract", "play_contract", "build_station", "buy_equipment", "chaiwala_convert"}
    ),
}


@dataclass(frozen=True)
class SearchBot:
    """The heuristic, improved by determinized playouts of its best few moves (:mod:`services.bots.search`)."""

    game_type: str
    rollout: Bot
    budget: Budget
    decisions: frozenset[str] | None = None
    # Slow: the conductor computes its moves in a worker process (services.conductor.search_pool).
    offload: ClassVar[bool] = True

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """The heuristic's move, unless one of its runners-up wins clearly more paired playouts."""
        legal = list(seen.legal)
        if len(legal) == 1:
            return legal[0]
        if self.decisions is not None and not any(next(iter(move)) in self.decisions for move in legal):
            return self.rollout.choose(engine, seen, rng.fork(2))  # no decision here: the route plan's step
        moves = candidates(self.rollout, engine, seen, rng.fork(2), self.budget.candidates)
        # A private copy plays the playouts: a heuristic that remembers (India Rails' refused
        # segments, its plan cache) must not learn from sampled states in the real game.
        policy = copy.deepcopy(self.rollout)
        playout = Playout(engine=engine, policy=policy, evaluate=EVALUATIONS[self.game_type], budget=self.budget)
        return improve(playout, seen, moves, rng.fork(3))


def can_search(engine: Engine) -> bool:
    """Whether ``engine`` samples a seat's hidden information (the search needs ``determinize``)."""
    return type(engine).determinize is not Engine.determinize


def search_levels(engine: Engine, rollout: Bot) -> dict[str, Bot]:
    """The search bot's levels for one game, playing out with ``rollout`` (its heuristic).

    None for a game that cannot determinize yet: a search over the real state would cheat.
    """
    if not can_search(engine):
        return {}
    game_type = engine.game_type
    scale = MARGIN_SCALE.get(game_type, 10.0)
    depth = DEPTH.get(game_type)
    return {
        name: SearchBot(
            game_type=game_type,
            rollout=rollout,
            budget=replace(
                budget,
                margin_scale=scale,
                solo_scale=SOLO_SCALE.get(game_type, budget.solo_scale),
                **({"depth": depth} if depth else {}),
            ),
            decisions=DECISIONS.get(game_type),
        )
        for name, budget in LEVELS.items()
    }
