"""The India Rails heuristic bot: plans a route to its best demand and runs its train along it.

The bot reads only what its seat may see: the board, everyone's track and trains, its own hand
and cash, the tray and the active events (all public in the rulebook); never other players' cash
or the deck.  It plans on ``engine.determinize(seen, rng)`` and reads only the seat's own and
public parts of that state.

**No memory between moves** (issue 31).  A move is a function of the seat's view and the legal
moves alone: the plan (:mod:`.bot_plans`), the link between major cities and the segments the
rules refuse for good on those routes are worked out afresh in a :class:`~.bot_plans.Decision`
that lives for one decision.  The bot used to keep notes between moves - a plan kept for the
whole turn, refused segments, demands it gave up after eight turns without income - keyed by a
``game_key`` the engine drew into the rules state for it.  The conductor asks a fresh bot for
each batch of moves and another worker may hold the table next time, so those notes changed
how a seat played depending on which process held it (and the key never reached the bot: the
determinized state set it to 0).  Now any process, a restart, or a replay plays the same moves.
What remains remembered is pure: the map searches are memoized by all their inputs
(:mod:`.bot_routes`), so a hit or a miss never changes an answer.

The one piece of state a bot object holds is explicit and given, not learned: :attr:`HeuristicBot.focus`,
the demand the search level committed a seat to (:meth:`HeuristicBot.commit`, see
:mod:`services.bots.plans`), valid while the seat's hand is the one it was chosen from.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

from services.common.engine import Engine, Move, Seen, State
from services.common.rng import Rng
from services.india_rails import bot_moves, bot_plans
from services.india_rails.bot_plans import Decision
from services.india_rails.bot_routes import _RUNS, _SEARCHES, INF, demand_key, dijkstra, static_costs

__all__ = ["INF", "_RUNS", "_SEARCHES", "HeuristicBot", "demand_key", "dijkstra", "static_costs"]


class HeuristicBot:
    """Route-planning bot: pick the most profitable reachable demand, build towards it, run the train."""

    def __init__(self) -> None:
        # Per seat: the demand the search bot committed it to chase, and the hand it was chosen from
        # (:meth:`commit`; empty for the plain heuristic, which chases its best-scored demand).
        self.focus: dict[int, tuple[tuple[int, ...], tuple[int, int]]] = {}

    # ---- entry point ------------------------------------------------------------

    def choose(self, engine: Engine, seen: Seen, rng: Rng) -> Move:
        """One legal move for ``seen.seat``, planned on a state sampled from what the seat may know."""
        legal, seat = seen.legal, seen.seat
        if len(legal) == 1:
            return legal[0]
        # A forked generator samples the hidden parts, so the bot's own draws stay as they were.
        return self.decide(engine.determinize(seen, rng.fork(0x1D1A)), seat, legal)

    def decide(self, state: State, seat: int, legal: Sequence[Move]) -> Move:
        """The move for ``seat`` in a full ``state`` of which it reads only what the seat may see.

        A playout of the search bot plays on a state already sampled from the searching seat's
        view, so it asks here directly, without sampling it again (a third of a move's cost).
        """
        kinds: dict[str, list[Move]] = {}
        for move in legal:
            kinds.setdefault(next(iter(move)), []).append(move)
        if "choose_lost_load" in kinds:
            return bot_moves.cheapest_load(state, seat, kinds["choose_lost_load"])
        if "answer_offer" in kinds:
            return {"answer_offer": {"accept": bot_moves.good_price(state)}}
        if "discard_demand" in kinds:
            return min(kinds["discard_demand"], key=lambda m: bot_moves.card_value(m["discard_demand"]["card"]))
        decision = self._decision(state, seat)
        if state["phase"] == "operations":
            return bot_moves.operate(decision, kinds)
        return bot_moves.build(decision, kinds)

    def _decision(self, state: State, seat: int) -> Decision:
        return Decision(state, seat, committed=self.committed(state, seat))

    def _plan(self, state: State, seat: int) -> dict[str, Any]:
        """The plan ``seat`` would follow now (target, route, score)."""
        return bot_plans.plan(self._decision(state, seat))

    # ---- the plan as a choice (what the search bot commits a seat to) ------------------------

    def committed(self, state: State, seat: int) -> tuple[int, int] | None:
        """The demand ``seat`` is committed to chase (:attr:`focus`), while its hand is the one it was chosen from."""
        held = self.focus.get(seat)
        if held is None or held[0] != self.plan_context(state, seat):
            return None
        return held[1]

    @staticmethod
    def seat_count(state: State) -> int:
        """The number of rail barons at the table."""
        return len(state["players"])

    @staticmethod
    def plan_context(state: State, seat: int) -> tuple[int, ...]:
        """What a plan is chosen from: the seat's hand (a delivery or a discard changes it)."""
        return tuple(state["players"][seat]["hand"])

    def commit(self, state: State, seat: int, plan: Hashable | None) -> None:
        """Chase ``plan`` (a demand: card, demand index) while the hand holds; ``None``: the heuristic's own choice."""
        if plan is None:
            self.focus.pop(seat, None)
            return
        card, index = cast(tuple[int, int], plan)
        self.focus[seat] = (self.plan_context(state, seat), (card, index))

    def plan_options(self, state: State, seat: int, count: int) -> list[Hashable]:
        """The ``count`` best-scored demands to chase (card, demand index), the heuristic's own choice first.

        Reads only what :meth:`choose` reads (the seat's own hand and public parts), so any
        determinization of the seat's view gives the same options.
        """
        # Options are weighed without a commitment: the heuristic's own choice comes first.
        return list(bot_plans.options(Decision(state, seat), count))
