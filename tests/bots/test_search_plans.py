"""Plan-level search (:mod:`services.bots.plans`) on the toy game where the better plan is provable.

In Twenty-one (see ``test_search_core``) a plan is the step a seat always adds. The base policy's
own plan adds 1, which wins from an even total and loses from an odd one; from a total of 1,
always adding 2 makes the seat's totals 3, 6, ..., 18 and then 21 while the other seat adds 1, so
that plan wins, and the search commits to it; from an even total it keeps the policy's own.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from test_search_core import ENGINE, Counted, _seen

from services.bots.plans import Planner, committed_plan, search_plan
from services.bots.search import Budget
from services.common.engine import Engine, Move, Seen, State
from services.common.rng import Rng

BUDGET = Budget(candidates=3, samples=3, margin_scale=1.0)


class Stepper:
    """A planner over Twenty-one: the plan is the step a seat always adds (its own choice: 1)."""

    def __init__(self, seats: int = 2) -> None:
        self.steps: dict[int, int] = {}
        self.seats = seats

    def seat_count(self, state: State) -> int:
        return self.seats

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        return self.decide({}, seen.seat, seen.legal)

    def decide(self, state: State, seat: int, legal: Sequence[Move]) -> Move:
        step = self.steps.get(seat, 1)
        return min(legal, key=lambda move: abs(move["add"] - step))

    def plan_context(self, state: State, seat: int) -> Hashable:
        return ("whole game", state["total"] < 10)

    def plan_options(self, state: State, seat: int, count: int) -> list[Hashable]:
        return [1, 2, 3][:count]

    def commit(self, state: State, seat: int, plan: Hashable | None) -> None:
        if plan is None:
            self.steps.pop(seat, None)
        else:
            self.steps[seat] = int(plan)  # type: ignore[call-overload]


def _no_estimate(state: State) -> list[float]:
    return [0.0, 0.0]


def _searched(total: int, engine: Engine = ENGINE) -> Hashable | None:
    seen = _seen(total)
    state = engine.determinize(seen, Rng(1))
    return search_plan(Stepper(), engine, seen, state, BUDGET, _no_estimate, Rng(2))


def test_the_stepper_is_a_planner() -> None:
    assert isinstance(Stepper(), Planner)


def test_the_search_commits_to_the_plan_that_wins() -> None:
    assert _searched(1) == 2  # the policy's own plan loses from an odd total, adding 2 wins


def test_the_policys_own_plan_stands_where_it_wins() -> None:
    assert _searched(0) is None
    assert _searched(4) is None


def test_no_rival_no_search() -> None:
    engine = Counted()
    seen = _seen(1)
    one = Budget(candidates=1, samples=3)
    assert search_plan(Stepper(), engine, seen, ENGINE.determinize(seen, Rng(1)), one, _no_estimate, Rng(2)) is None
    assert engine.samples == 0


def test_a_plan_is_searched_once_per_context_and_then_remembered() -> None:
    engine, planner = Counted(), Stepper()
    memory = committed_plan(planner, engine, _seen(1), BUDGET, _no_estimate, Rng(3), None)
    searched = engine.samples
    assert planner.steps == {0: 2} and searched > 1
    fresh = Stepper()  # the conductor asks a fresh bot every move: the commitment travels in the memory
    kept = committed_plan(fresh, engine, _seen(3), BUDGET, _no_estimate, Rng(4), memory)
    assert fresh.steps == {0: 2} and engine.samples == searched + 1  # one sample to read the context
    assert kept == memory
    renewed = committed_plan(fresh, engine, _seen(11), BUDGET, _no_estimate, Rng(5), kept)  # a new context
    assert engine.samples > searched + 2 and renewed != memory
    # Without the memory the plan is searched again, even in the same context.
    before = engine.samples
    committed_plan(Stepper(), engine, _seen(3), BUDGET, _no_estimate, Rng(4), None)
    assert engine.samples > before + 1


def test_plan_playouts_last_the_budgets_moves_for_every_seat() -> None:
    # 3 moves a seat: 6 moves at 2 seats end nowhere near 21 (no estimate, no rival wins); as if 10
    # seats sat at the table, 30 moves reach the end and adding 2 is seen to win.
    short = Budget(candidates=3, samples=3, margin_scale=1.0, depth=3)
    two = Stepper(seats=2)
    committed_plan(two, ENGINE, _seen(1), short, _no_estimate, Rng(3), None)
    assert two.steps == {}
    ten = Stepper(seats=10)
    committed_plan(ten, ENGINE, _seen(1), short, _no_estimate, Rng(3), None)
    assert ten.steps == {0: 2}
