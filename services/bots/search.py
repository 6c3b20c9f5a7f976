"""Information-set Monte Carlo tree search over any engine's ``legal_moves``/``apply``.

Every iteration samples one *determinization* (a full state consistent with what the
searching seat sees: hidden tiles, hands and deck order drawn afresh), then walks one
shared tree keyed by moves, not by states (open loop), so the tree's statistics average
over the hidden information and over chance: chance lives inside ``apply`` and is drawn
from the iteration's own generator. Selection is UCT with availability counts (ISMCTS:
a child's exploration term counts the iterations in which its move was *legal*, not its
parent's visits), so moves that exist only in some determinizations are not favoured.

Several seats to act (simultaneous decisions) are decided one at a time in ``to_act``
order, each seat maximising its own reward; the engines accept them in any order.

After the tree, a rollout policy (the game's heuristic, which makes the search at least
as informed as the heuristic) plays on to the end or to a depth cap, where a per-game
evaluation (``evaluate``) estimates each seat's score; rewards are in ``[0, 1]`` per seat.

Determinism: the search spends an *iteration budget*, so the same ``rng`` gives the same
move (replays and tests reproduce). The wall-clock cap (``Budget.wall_seconds``) is only a
safety net for the conductor, documented as making the move depend on the machine when hit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import orjson

from services.common.engine import Engine, Move, Result, State
from services.common.rng import Rng

# A rollout policy: the move ``seat`` makes in a (full, determinized) state.
Policy = Callable[[Engine, State, int, Rng], Move]
# Each seat's estimated score in an unfinished (full) state, on the scale of the final scores.
Evaluation = Callable[[State], list[float]]
# A fresh full state consistent with the searching seat's view.
Sampler = Callable[[Rng], State]


@dataclass(frozen=True)
class Budget:
    """How hard a level searches.

    ``iterations`` decides the move (deterministic); ``wall_seconds`` only stops a search
    that runs far over its expected time (a loaded machine), so the conductor's lease holds.
    """

    iterations: int
    exploration: float = 0.7
    rollout_depth: int = 40
    tree_depth: int = 12
    # Reward weight of the score margin next to the place (ties between equal places matter).
    margin_weight: float = 0.3
    # Score difference that counts as "clearly ahead" in the margin term (game-specific scale).
    margin_scale: float = 10.0
    # Virtual visits (and their win rate) given to the rollout policy's own move at the root:
    # with few iterations the search keeps the heuristic's move unless it finds a clearly better one.
    prior_visits: int = 3
    prior_value: float = 0.55
    # Progressive widening: a node with ``v`` visits has at most ``1 + widening * sqrt(v)`` children,
    # the first being the rollout policy's move, so a small budget refines the heuristic's line
    # instead of averaging over random replies (the root widens faster: its moves are the choice).
    widening: float = 0.5
    root_widening: float = 2.0
    wall_seconds: float = 5.0


@dataclass
class Node:
    """One move in the tree, seen from the seat that makes it."""

    seat: int
    move: Move | None
    visits: int = 0
    available: int = 0
    value: float = 0.0
    children: dict[bytes, Node] = field(default_factory=dict)

    def ucb(self, exploration: float) -> float:
        """Mean reward plus the availability-count exploration term."""
        mean = self.value / self.visits
        return mean + exploration * math.sqrt(math.log(max(self.available, 1)) / self.visits)


def move_key(move: Move) -> bytes:
    """A move's identity in the tree (sorted-key JSON, as the runner compares moves)."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


def fresh(state: State) -> State:
    """A private deep copy (``apply`` may mutate its input)."""
    copied: State = orjson.loads(orjson.dumps(state))
    return copied


def rewards(result: Result, budget: Budget) -> list[float]:
    """Each seat's reward in ``[0, 1]``: mostly its place, partly its score margin."""
    count = len(result.ranking)
    places = [1.0 - (rank - 1) / max(count - 1, 1) for rank in result.ranking]
    if count == 1:
        places = [1.0]  # solo games: only the score counts, through the margin term
    return [
        (1 - budget.margin_weight) * places[s] + budget.margin_weight * _margin(result.scores, s, budget.margin_scale)
        for s in range(count)
    ]


def _margin(scores: Sequence[float], seat: int, scale: float) -> float:
    others = [score for s, score in enumerate(scores) if s != seat]
    lead = scores[seat] - (max(others) if others else 0.0)
    return 1.0 / (1.0 + math.exp(-lead / scale))


def estimate(scores: list[float], budget: Budget) -> list[float]:
    """Rewards of an unfinished game from estimated scores (a soft place by score margin)."""
    if len(scores) == 1:
        return [_margin(scores, 0, budget.margin_scale)]
    return [_margin(scores, s, budget.margin_scale) for s in range(len(scores))]


@dataclass
class Search:
    """One search: the engine, the tree, and how to sample, roll out and evaluate."""

    engine: Engine
    seat: int
    legal: list[Move]
    sample: Sampler
    policy: Policy
    evaluate: Evaluation
    budget: Budget

    def best_move(self, rng: Rng) -> Move:
        """Run the budget and return the most visited root move."""
        if len(self.legal) == 1:
            return self.legal[0]
        root = Node(seat=self.seat, move=None)
        self._seed_prior(root, rng.fork(1))
        started = time.perf_counter()
        for iteration in range(self.budget.iterations):
            self._iterate(root, rng.fork(1000 + iteration))
            if time.perf_counter() - started > self.budget.wall_seconds:
                break  # the safety cap, not the budget: see the module docstring
        best = max(root.children.values(), key=lambda child: (child.visits, child.value))
        assert best.move is not None
        return best.move

    def _seed_prior(self, root: Node, rng: Rng) -> None:
        """Give the rollout policy's own move a head start (progressive bias at the root)."""
        if self.budget.prior_visits <= 0:
            return
        state = fresh(self.sample(rng.fork(0)))
        move = self.policy(self.engine, state, self.seat, rng.fork(1))
        child = Node(seat=self.seat, move=move, visits=self.budget.prior_visits)
        child.value = self.budget.prior_value * self.budget.prior_visits
        child.available = self.budget.prior_visits
        root.children[move_key(move)] = child

    def _iterate(self, root: Node, rng: Rng) -> None:
        state = fresh(self.sample(rng.fork(0)))
        chance = rng.fork(1)
        path: list[Node] = []
        node = root
        legal_here: list[Move] | None = self.legal  # the root's moves are the view's own
        while len(path) < self.budget.tree_depth and not self.engine.is_over(state):
            seats = self.engine.to_act(state)
            if not seats:
                break
            seat = seats[0]
            moves = legal_here if legal_here is not None else self.engine.legal_moves(state, seat)
            legal_here = None
            child, expanded = self._select(node, state, seat, moves, rng)
            state, _events = self.engine.apply(state, seat, child.move or {}, chance)
            path.append(child)
            node = child
            if expanded:
                break
        scores = self._rollout(state, chance, rng.fork(2))
        for visited in path:
            visited.visits += 1
            visited.value += scores[visited.seat]
        root.visits += 1

    def _select(self, node: Node, state: State, seat: int, moves: list[Move], rng: Rng) -> tuple[Node, bool]:
        """Expand a move while the node may widen, else pick the best UCB child; count availability."""
        keyed = [(move_key(move), move) for move in moves]
        present = [node.children[key] for key, _move in keyed if key in node.children]
        for child in present:
            child.available += 1
        widening = self.budget.root_widening if node.move is None else self.budget.widening
        if len(present) < len(keyed) and len(present) < 1 + widening * math.sqrt(node.visits):
            key, move = self._untried(node, state, seat, keyed, rng)
            child = Node(seat=seat, move=move, available=1)
            node.children[key] = child
            return child, True
        best = max(present, key=lambda c: c.ucb(self.budget.exploration))
        return best, False

    def _untried(
        self, node: Node, state: State, seat: int, keyed: list[tuple[bytes, Move]], rng: Rng
    ) -> tuple[bytes, Move]:
        """The policy's own move first, then a random move not in the tree yet."""
        if not node.children:
            move = self.policy(self.engine, state, seat, rng.fork(3))
            return move_key(move), move
        untried = [(key, move) for key, move in keyed if key not in node.children]
        return untried[rng.randbelow(len(untried))]

    def _rollout(self, state: State, chance: Rng, rng: Rng) -> list[float]:
        for step in range(self.budget.rollout_depth):
            result = self.engine.result(state)
            if result is not None:
                return rewards(result, self.budget)
            seats = self.engine.to_act(state)
            if not seats:
                break
            move = self.policy(self.engine, state, seats[0], rng.fork(step))
            state, _events = self.engine.apply(state, seats[0], move, chance)
        result = self.engine.result(state)
        if result is not None:
            return rewards(result, self.budget)
        return estimate(self.evaluate(state), self.budget)
