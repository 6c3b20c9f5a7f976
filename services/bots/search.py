"""Policy improvement by rollouts: keep the heuristic's move unless a rival wins more playouts.

The search bot's levels decide with this (:mod:`services.bots.levels`). One decision:

1. **Candidates.** The heuristic's own move, then its runners-up: the move it picks once the
   moves already listed are taken out of its legal moves, up to ``candidates`` in all (no
   per-game ranking code: any bot that picks the best of ``seen.legal`` ranks this way).
2. **Playouts with common random numbers.** ``samples`` times: one determinization of the seat's
   view (:meth:`Engine.determinize`) and one generator for chance and for the bots' tie-breaks;
   every candidate is played from *the same* sampled state with *the same* generators, then the
   heuristic plays every seat to the end (or ``depth`` moves, then :mod:`evaluation` estimates).
   Candidates thus differ by their move, not by their luck: the paired difference of rewards is
   far less noisy than either playout.
3. **Keep the base policy unless beaten.** A rival replaces the heuristic's move only when its
   mean paired reward difference exceeds ``edge`` *and* ``spread`` standard errors. With no
   evidence the bot plays the heuristic's move, so it is never worse than the heuristic by
   more than the noise of that test; a playout of the real remaining game is the one-step
   lookahead the heuristic lacks (policy iteration's improvement step). Racing saves most of
   the budget: a rival that can no longer clear the bar stops being played out, and when none
   is left the decision ends early (the heuristic is right in most positions).

Rewards (:func:`rewards`): mostly the place, partly the
score margin, so a playout that wins by more counts more and ties between equal places matter;
solo, the score itself on the game's solo scale (:func:`solo_reward`).

Determinism: the same view and generator give the same move. The wall-clock safety cap (the
level's ``wall_seconds``, scaled or lifted by ``CHAIWALA_SEARCH_WALL_CAP``, see :func:`wall_cap`)
stops a decision between samples, and the move then depends on the machine; the arena lifts it
so a measured strength is the level's own, whatever the load.
"""

from __future__ import annotations

import copy
import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import orjson

from services.common.engine import Bot, Engine, Move, Result, Seen, State
from services.common.rng import Rng

Evaluation = Callable[[State], list[float]]

# Environment switch of the wall-clock safety cap: "off" lifts it (the arena, strength runs),
# a number scales it (a slow host). Read per decision, so a process sets it once at start.
WALL_CAP_ENV = "CHAIWALA_SEARCH_WALL_CAP"


def wall_cap(seconds: float) -> float:
    """The safety cap in force for a level's ``seconds``: lifted (infinite) or scaled by the environment."""
    setting = os.environ.get(WALL_CAP_ENV, "").strip().lower()
    if setting in ("off", "none", "0"):
        return math.inf
    try:
        return seconds * float(setting) if setting else seconds
    except ValueError:
        return seconds


@dataclass(frozen=True)
class Budget:
    """What one decision may spend: candidates, playouts per candidate, and the bar a rival must clear."""

    candidates: int
    samples: int
    depth: int = 100_000
    edge: float = 0.02
    spread: float = 1.0
    margin_weight: float = 0.3
    margin_scale: float = 10.0
    wall_seconds: float = 10.0
    # Solo games: the score worth a reward of 1 (the reward is the score over it: :func:`solo_reward`).
    solo_scale: float = 100.0


def move_key(move: Move) -> bytes:
    """A move's identity in the tree (sorted-key JSON, as the runner compares moves)."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


def fresh(state: State) -> State:
    """A private deep copy (``apply`` may mutate its input)."""
    copied: State = orjson.loads(orjson.dumps(state))
    return copied


def rewards(result: Result, budget: Budget) -> list[float]:
    """Each seat's reward in ``[0, 1]``: mostly its place, partly its score margin (solo: :func:`solo_reward`)."""
    count = len(result.ranking)
    if count == 1:
        return [solo_reward(result.scores[0], budget)]
    places = [1.0 - (rank - 1) / max(count - 1, 1) for rank in result.ranking]
    return [
        (1 - budget.margin_weight) * places[s] + budget.margin_weight * _margin(result.scores, s, budget.margin_scale)
        for s in range(count)
    ]


def _margin(scores: Sequence[float], seat: int, scale: float) -> float:
    others = [score for s, score in enumerate(scores) if s != seat]
    lead = scores[seat] - (max(others) if others else 0.0)
    return 1.0 / (1.0 + math.exp(-lead / scale))


def solo_reward(score: float, budget: Budget) -> float:
    """A solo game's reward: the (final or estimated) score over the game's ``solo_scale``.

    With no opponent there is no place and no margin. A logistic of the score saturates near 1
    for any decent score (every playout then looks alike and no rival can clear the edge), and a
    logistic centred on a typical final score saturates near 0 for a capped playout's mid-game
    estimate. The search only compares paired differences of playouts from the same position, so
    the reward needs no bound: linear, a point is worth ``1 / solo_scale`` at every score and in
    both a final score and an estimate, and a rival must gain ``edge × solo_scale`` points on
    average (Alubari: 2) to replace the heuristic's move.
    """
    return score / budget.solo_scale


def estimate(scores: list[float], budget: Budget) -> list[float]:
    """Rewards of an unfinished game from estimated scores (a soft place by score margin)."""
    if len(scores) == 1:
        return [solo_reward(scores[0], budget)]
    return [_margin(scores, s, budget.margin_scale) for s in range(len(scores))]


def candidates(bot: Bot, engine: Engine, seen: Seen, rng: Rng, count: int) -> list[Move]:
    """The heuristic's move first, then each next move it would pick were the earlier ones not legal.

    Only the first question is asked of ``bot`` itself, on the real position; the runners-up are
    asked of a throwaway copy, so a heuristic that remembers (India Rails' refused segments, a
    plan's progress) never learns from positions with moves taken away, which never happen.
    """
    legal = list(seen.legal)
    chosen: list[Move] = []
    asked = bot
    while legal and len(chosen) < count:
        move = legal[0] if len(legal) == 1 else asked.choose(engine, replace(seen, legal=legal), rng)
        key = move_key(move)
        chosen.append(move)
        legal = [other for other in legal if move_key(other) != key]
        if asked is bot:
            asked = copy.deepcopy(bot)
    return chosen


@dataclass(frozen=True)
class Playout:
    """Play a (full, determinized) state to the end with ``policy`` at every seat."""

    engine: Engine
    policy: Bot
    evaluate: Evaluation
    budget: Budget

    def move(self, state: State, seat: int, rng: Rng) -> Move:
        """The policy's move for ``seat``, decided from that seat's view of the sampled state."""
        seen = self.engine.seen(state, seat)
        if len(seen.legal) == 1:
            return seen.legal[0]
        return self.policy.choose(self.engine, seen, rng)

    def value(self, sampled: State, seat: int, first: Move, draw: Rng) -> float:
        """``seat``'s reward for ``first`` in a copy of ``sampled``, chance and tie-breaks drawn from ``draw``.

        Every candidate of one sample gets the same ``draw``: common random numbers.
        """
        return self.rewards(fresh(sampled), seat, first, draw.fork(1), draw.fork(2))[seat]

    def rewards(self, state: State, seat: int, first: Move, chance: Rng, rng: Rng) -> list[float]:
        """Each seat's reward after ``seat`` plays ``first`` and the policy plays on."""
        state, _events = self.engine.apply(state, seat, first, chance)
        return play_on(self.engine, state, self.move, self.evaluate, self.budget, chance, rng)


Mover = Callable[[State, int, Rng], Move]


def play_on(engine: Engine, state: State, move: Mover, evaluate: Evaluation, budget: Budget,
            chance: Rng, rng: Rng) -> list[float]:
    """Each seat's reward once ``move`` has played every seat to the end, or ``budget.depth`` moves and an estimate."""
    for step in range(budget.depth):
        result = engine.result(state)
        if result is not None:
            return rewards(result, budget)
        seats = engine.to_act(state)
        if not seats:
            break
        state, _events = engine.apply(state, seats[0], move(state, seats[0], rng.fork(step)), chance)
    result = engine.result(state)
    return rewards(result, budget) if result is not None else estimate(evaluate(state), budget)


Value = Callable[[State, int, Rng], float]


def improve(playout: Playout, seen: Seen, moves: list[Move], rng: Rng) -> Move:
    """``moves[0]`` (the base policy's move) unless another of ``moves`` beats it in paired playouts.

    Racing: after :data:`RACE_AFTER` samples a rival whose mean difference cannot reach the edge
    (mean + 2 standard errors below it) stops being played out; when none is left the base move
    stands without spending the rest of the budget (most positions: the heuristic is right).
    """
    if len(moves) == 1:
        return moves[0]

    def value(state: State, candidate: int, draw: Rng) -> float:
        return playout.value(state, seen.seat, moves[candidate], draw)

    return moves[race(playout.engine, seen, len(moves), value, playout.budget, rng)]


def race(engine: Engine, seen: Seen, count: int, value: Value, budget: Budget, rng: Rng) -> int:
    """Candidate 0 (the base policy's) unless another of ``count`` wins clearly more paired playouts.

    ``value(sampled, candidate, draw)`` is the seat's reward for a candidate in a sampled state,
    every candidate of a sample getting the same ``draw`` (common random numbers); see :func:`improve`.
    """
    differences: dict[int, list[float]] = {rival: [] for rival in range(1, count)}
    cap, started = wall_cap(budget.wall_seconds), time.perf_counter()
    for sample in range(budget.samples):
        draw = rng.fork(sample)
        state = engine.determinize(seen, draw.fork(0))
        base = value(state, 0, draw)
        for rival, paired in differences.items():
            paired.append(value(state, rival, draw) - base)
        if sample + 1 >= RACE_AFTER:
            differences = {rival: paired for rival, paired in differences.items() if _may_clear(paired, budget)}
        if not differences or time.perf_counter() - started > cap:
            break  # nothing left to race, or the safety cap (between samples): see the module docstring
    winners = [rival for rival, paired in differences.items() if _clears(paired, budget)]
    if not winners:
        return 0
    return max(winners, key=lambda rival: (statistics.fmean(differences[rival]), -rival))


# Samples before a rival may be dropped from the race (fewer say too little about its spread).
RACE_AFTER = 3


def _error(differences: list[float]) -> float:
    """The standard error of a mean of paired differences."""
    return statistics.stdev(differences) / math.sqrt(len(differences)) if len(differences) > 1 else math.inf


def _may_clear(differences: list[float], budget: Budget) -> bool:
    """Whether more samples could still lift a rival over the edge (its mean within two errors of it)."""
    return statistics.fmean(differences) + 2 * _error(differences) > budget.edge


def _clears(differences: list[float], budget: Budget) -> bool:
    """Whether a rival's paired differences clear the edge and the noise bar."""
    mean = statistics.fmean(differences)
    if mean <= budget.edge:
        return False
    return len(differences) < 2 or mean > budget.spread * _error(differences)
