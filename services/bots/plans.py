"""Plan-level search: which of its plans a seat commits to, decided by long, cheap playouts of each.

Some games are won on a plan more than on any one move: India Rails' heuristic picks a demand to
chase and then spends dozens of moves (track, train runs) carrying it out, and a playout of a
few dozen moves after one move cannot tell one plan from another. A game whose heuristic is a
:class:`Planner` exposes that choice as a parameter: the plans it would weigh (its best few
targets), and a way to commit a seat to one of them. The search bot then races the plans the
way it races moves (:func:`~services.bots.search.race`: paired playouts from the same
determinizations of the seat's view, the heuristic's own choice kept unless a rival clearly
beats it), each playout played by a copy of the heuristic committed to that plan, for many more
moves than a move's playout (the heuristic asked on the sampled state directly, without sampling
it again: :meth:`Planner.decide`).

**When.** A seat's plan is decided once per *context* (India Rails: the hand of demand cards; a
delivery or a discard changes it), and the choice is remembered in :data:`COMMITMENTS`, a bounded
store of this process keyed by the seat and its context: the conductor asks a fresh bot for every
move (``bots_for(engine)`` per move in its worker processes), so the bot object cannot hold it. A miss
(another worker process, a restart, an evicted entry) costs one more plan search, never an illegal
or unfair move: the store holds only the seat's own choices among its own hand's plans.

This store is the one memory of a bot that still outlives a move, and so the one place where which
process holds a table can change how a seat plays (issue 31): another worker, or a restart, searches
the plan afresh at a later position and with that move's generator, and may commit to another of the
hand's demands.  The heuristic it commits keeps no notes at all (:mod:`services.india_rails.bots`).
Making the commitment travel with the game would need bot state stored next to the rules state
(OpenSpiel's ``restart_at``/``inform_action``); searching it again at every move would cost a plan
search per move.  Neither is done: the search levels are measured with this store, per process.

**Fairness.** Plans and contexts are read from a determinization of the seat's view (the
heuristic reads only what the seat may see), playouts run on determinizations, and the only
generator is the bot's.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from services.bots.search import Budget, Evaluation, fresh, play_on, race
from services.common.engine import Engine, Move, Seen, State
from services.common.rng import Rng


@runtime_checkable
class Planner(Protocol):
    """A heuristic whose plan is a parameter: the plans it weighs and a commitment to one of them."""

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """The heuristic's move (as a :class:`~services.common.engine.Bot`)."""
        ...

    def decide(self, state: State, seat: int, legal: Sequence[Move]) -> Move:
        """The heuristic's move in a full (sampled) state, reading only what ``seat`` may see."""
        ...

    def plan_context(self, state: State, seat: int) -> Hashable:
        """What a plan is chosen from (a commitment holds while it is unchanged)."""
        ...

    def plan_options(self, state: State, seat: int, count: int) -> list[Hashable]:
        """The ``count`` best plans, best first (the heuristic's own choice first)."""
        ...

    def commit(self, state: State, seat: int, plan: Hashable | None) -> None:
        """Chase ``plan`` while the context holds; ``None``: the heuristic's own (re-weighed) choice."""
        ...

    def seat_count(self, state: State) -> int:
        """The number of seats at the table (plan playouts last as many moves per seat)."""
        ...


# The plans this process's search bots committed their seats to, by (seat, context); bounded.
COMMITMENTS: dict[tuple[int, Hashable], Hashable | None] = {}
COMMITMENTS_SIZE = 4096


def committed_plan(planner: Planner, engine: Engine, seen: Seen, budget: Budget, evaluate: Evaluation,
                   rng: Rng) -> None:
    """Commit ``planner`` for ``seen.seat`` to its plan in this context: remembered, or searched now.

    ``budget.depth`` counts moves per seat: the playouts last that many times the table's seats, so
    the seat plays about as many moves of its own at any table size.
    """
    state = engine.determinize(seen, rng.fork(0))
    key = (seen.seat, planner.plan_context(state, seen.seat))
    if key not in COMMITMENTS:
        if len(COMMITMENTS) >= COMMITMENTS_SIZE:
            COMMITMENTS.clear()  # bounded; a miss only costs a new plan search
        playouts = replace(budget, depth=budget.depth * planner.seat_count(state))
        COMMITMENTS[key] = search_plan(planner, engine, seen, state, playouts, evaluate, rng.fork(1))
    planner.commit(state, seen.seat, COMMITMENTS[key])


def search_plan(planner: Planner, engine: Engine, seen: Seen, state: State, budget: Budget,
                evaluate: Evaluation, rng: Rng) -> Hashable | None:
    """``None`` (the heuristic's own, re-weighed choice) unless committing to a rival plan wins clearly more.

    The rivals are the heuristic's runners-up among its plans (``budget.candidates - 1`` of them);
    each is played out ``budget.depth`` moves by a private copy of the heuristic committed to it.
    """
    rivals = planner.plan_options(state, seen.seat, budget.candidates)[1:]
    if not rivals:
        return None
    plans: list[Hashable | None] = [None, *rivals]

    def value(sampled: State, candidate: int, draw: Rng) -> float:
        policy = copy.deepcopy(planner)
        policy.commit(sampled, seen.seat, plans[candidate])

        def move(played: State, seat: int, step: Rng) -> Move:
            legal = engine.legal_moves(played, seat)
            return legal[0] if len(legal) == 1 else policy.decide(played, seat, legal)

        return play_on(engine, fresh(sampled), move, evaluate, budget, draw.fork(1), draw.fork(2))[seen.seat]

    return plans[race(engine, seen, len(plans), value, budget, rng)]
