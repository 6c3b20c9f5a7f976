"""``python -m services.bots.timing``: what a search move costs, per game and level, on this machine.

Plays each game with heuristic seats and, every few moves, asks each search level for the
move of the seat to act (positions with a single legal move, or none worth a search, cost
nothing and are left out). Prints one Markdown table of CPU milliseconds per searched move
(median and 90th percentile) for the README's ``### Search bot`` section: the process's CPU
time, which is what the move takes on a quiet core of this machine even when it shares the
machine (its wall time on a loaded host is longer). A measurement, not a test.

A game whose search decides plans (``SearchProfile.plan_moves_per_seat``, :mod:`services.bots.plans`)
is measured where a plan is searched: a seat's first choice in a new plan context (India Rails:
a new hand of demand cards), with the process's remembered commitments cleared before each
move, so every measured move pays for its plan search; its other moves cost a heuristic move.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Hashable

from services.bots.levels import profile
from services.bots.plans import Planner
from services.bots.roster import bots_for
from services.common.registry import engine_for, game_types
from services.common.runner import Match

SAMPLES = 12
EVERY = 7


def _searched(match: Match, seat: int) -> bool:
    """Whether the search bot searches here (more than one move, and one of its decisions)."""
    legal = match.legal_moves(seat)
    decisions = profile(match.engine.game_type).decisions
    return len(legal) > 1 and (decisions is None or any(next(iter(move)) in decisions for move in legal))


def _new_plan(match: Match, seat: int, contexts: dict[int, Hashable]) -> bool:
    """Whether ``seat`` has a choice in a plan context it has not had (notes it in ``contexts``)."""
    heuristic = bots_for(match.engine)["heuristic"]
    if not isinstance(heuristic, Planner) or len(match.legal_moves(seat)) < 2:
        return False
    context = heuristic.plan_context(match.state, seat)  # the real state: a measurement picks positions
    if contexts.get(seat) == context:
        return False
    contexts[seat] = context
    return True


def _positions(game: str, players: int, seed: int) -> list[Match]:
    """Up to :data:`SAMPLES` searched positions of one heuristic game (moves: at least :data:`EVERY` apart)."""
    engine = engine_for(game)
    heuristic = bots_for(engine)["heuristic"]
    match = Match.start(engine, players, seed)
    found: list[Match] = []
    step = last = 0
    planned = profile(game).plan_moves_per_seat is not None
    contexts: dict[int, Hashable] = {}
    while not engine.is_over(match.state) and len(found) < SAMPLES:
        seat = match.to_act()[0]
        if planned and _new_plan(match, seat, contexts):
            found.append(Match(engine=engine, snapshot=match.snapshot))
        elif not planned and step - last >= EVERY and _searched(match, seat):
            found.append(Match(engine=engine, snapshot=match.snapshot))
            last = step
        match.play(seat, match.bot_move(heuristic, seat, step))
        step += 1
    return found


def measure(game: str, level: str, players: int = 2) -> list[float]:
    """CPU milliseconds of each searched move at ``level``."""
    engine = engine_for(game)
    bot = bots_for(engine)[level]
    costs = []
    for salt, match in enumerate(_positions(game, players, seed=11)):
        seat = match.to_act()[0]
        match.bot_memory.clear()  # each measured move searches its plan afresh
        started = time.process_time()
        match.bot_move(bot, seat, salt)
        costs.append(1000 * (time.process_time() - started))
    return costs


def main(argv: list[str]) -> None:
    """Print the table (``argv``: games to measure, default all)."""
    games = argv or game_types()
    levels = ("mcts-easy", "mcts", "mcts-hard")
    print("| game | " + " | ".join(f"{level} CPU ms (median / p90)" for level in levels) + " |")
    print("|---|" + "---|" * len(levels))
    for game in games:
        cells = []
        for level in levels:
            costs = sorted(measure(game, level))
            p90 = costs[min(len(costs) - 1, int(0.9 * len(costs)))]
            cells.append(f"{statistics.median(costs):.0f} / {p90:.0f}")
        print(f"| {game} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
