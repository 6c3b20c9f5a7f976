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
delivery or a discard changes it). The choice is the bot's memory of its seat
(:data:`~services.common.engine.BotMemory`): :func:`committed_plan` takes the memory and answers
it, and the caller keeps it with the game — a :class:`~services.common.runner.Match` by seat, the
conductor in Redis beside the snapshot, written in the same commit as the move. So which process
computes a seat's move never changes how the seat plays, and a restart forgets nothing. The memory
holds only the seat's own choice among its own hand's plans; it is never shown to anyone.

**Fairness.** Plans and contexts are read from a determinization of the seat's view (the
heuristic reads only what the seat may see), playouts run on determinizations, and the only
generator is the bot's.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Protocol, cast, runtime_checkable

import orjson

from services.bots.search import Budget, Evaluation, fresh, play_on, race
from services.common.engine import BotMemory, Engine, Move, Seen, State
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


def _plain(value: object) -> object:
    """``value`` as it reads back from JSON (tuples become lists), so a memory from Redis and one
    kept in-process compare and act alike."""
    return orjson.loads(orjson.dumps(value))


def committed_plan(planner: Planner, engine: Engine, seen: Seen, budget: Budget, evaluate: Evaluation,
                   rng: Rng, memory: BotMemory) -> BotMemory:
    """Commit ``planner`` for ``seen.seat`` to its plan in this context: the one in ``memory``, or
    searched now; answer the memory that holds it.

    ``budget.depth`` counts moves per seat: the playouts last that many times the table's seats, so
    the seat plays about as many moves of its own at any table size.
    """
    state = engine.determinize(seen, rng.fork(0))
    context = _plain(planner.plan_context(state, seen.seat))
    if not (isinstance(memory, dict) and "plan" in memory and memory.get("context") == context):
        playouts = replace(budget, depth=budget.depth * planner.seat_count(state))
        plan = search_plan(planner, engine, seen, state, playouts, evaluate, rng.fork(1))
        memory = {"context": context, "plan": _plain(plan)}
    planner.commit(state, seen.seat, cast(Hashable | None, memory["plan"]))
    return memory


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
