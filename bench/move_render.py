"""CPU of the pieces that render a move's answer, in process: two checkouts' code, alternated.

``bench.submit_handler`` times the whole handler, where a cut of a tenth of a piece drowns in the
machine's noise.  This times the pieces alone, each in microseconds of process CPU per call:

* ``state``: ``dictrender.payload`` of a seat's ``State`` (the REST answer's printed state), over
  every seat's view of a few positions along random plays;
* ``move``: ``dictrender.payload`` of one legal ``Move``;
* ``view``: the engine's ``view`` of a seat;
* ``listings``: ``legalmoves.entries.after_commit`` (every seat's next legal-moves answer) at each
  position of a few random plays, in the order a game reaches them (a fresh match each, as a commit has).

    python -m bench.move_render --before /tmp/old --repeats 5 [--game tea_rum]

``--before`` is another checkout with its ``gen/`` built; without it only this checkout is measured.
Each checkout runs in its own interpreter, and they take turns; the minima (the least disturbed
run) and medians are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import checkouts

SEATS = {"darjeeling": 2, "alubari": 3, "tea_rum": 2, "india_rails": 3}


def _per_call(work: Callable[[], int], repeats: int = 3) -> float:
    """The fewest microseconds of CPU per call over ``repeats`` runs of ``work`` (which says how many calls)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        calls = work()
        best = min(best, (time.process_time() - start) / calls * 1e6)
    return best


class _Seated:
    """The metadata ``after_commit`` reads: every seat with a token of its own."""

    def __init__(self, seats: int) -> None:
        self.token_hashes = [f"seat-{seat}" for seat in range(seats)]
        self.identity = "bench"
        self._names = [f"player {seat}" for seat in range(seats)]

    def names(self) -> list[str]:
        return self._names


class _Pieces:
    """One game's positions, views, moves and plays, and each piece's work over them."""

    def __init__(self, game_type: str) -> None:
        from bench.engine_cases import random_position
        from services.bots.roster import bots_for
        from services.common.registry import engine_for
        from services.rules.narrator import Narrator

        self.game_type, self.engine, self.seats = game_type, engine_for(game_type), SEATS[game_type]
        positions = ((10, 1), (40, 3), (80, 4), (120, 5))
        self.matches = [random_position(self.engine, self.seats, moves, seed)[0] for moves, seed in positions]
        self.views = [self.engine.view(match.state, seat) for match in self.matches for seat in range(self.seats)]
        acting = [(match, seat) for match in self.matches for seat in match.to_act()]
        self.moves = [move for match, seat in acting for move in match.legal_moves(seat)[:30]]
        self.plays = _plays(self.engine, self.seats, bots_for(self.engine)["random"])
        self.narrator = Narrator(self.engine)

    def states(self) -> int:
        from services.common import dictrender

        for _ in range(20):
            for view in self.views:
                dictrender.payload(self.game_type, "State", view)
        return 20 * len(self.views)

    def move_payloads(self) -> int:
        from services.common import dictrender

        for _ in range(20):
            for move in self.moves:
                dictrender.payload(self.game_type, "Move", move)
        return 20 * len(self.moves)

    def seat_views(self) -> int:
        for _ in range(20):
            for match in self.matches:
                for seat in range(self.seats):
                    self.engine.view(match.state, seat)
        return 20 * len(self.matches) * self.seats

    def listings(self) -> int:
        from services.common.runner import Match
        from services.legalmoves.entries import after_commit

        meta = _Seated(self.seats)
        for snapshot in self.plays:
            after_commit(self.narrator, meta, [], Match(engine=self.engine, snapshot=snapshot, trusted=True), 5, "en")
        return len(self.plays)


def _measure(game_type: str) -> dict[str, float]:
    pieces = _Pieces(game_type)
    pieces.states(), pieces.move_payloads()  # plans made, caches warm as a running service's are
    listed = _per_call(pieces.listings, repeats=1)  # first: the per-process caches start cold, as a new game's do
    return {"state": _per_call(pieces.states), "move": _per_call(pieces.move_payloads),
            "view": _per_call(pieces.seat_views), "listings": listed}  # fmt: skip


def _plays(engine: Any, seats: int, bot: Any) -> list[Any]:
    """The snapshots of four random plays, position after position."""
    from services.common.runner import Match

    snapshots = []
    for seed in range(4):
        match = Match.start(engine, seats, seed + 100)
        for step in range(100):
            if engine.is_over(match.state):
                break
            seat = match.to_act()[0]
            match.play(seat, match.bot_move(bot, seat, step))
            snapshots.append(match.snapshot)
    return snapshots


def _worker(root: str, game_type: str) -> None:
    checkouts.enter(root)
    print(json.dumps(_measure(game_type)))


def main(argv: list[str]) -> None:
    """Alternate the checkouts ``--repeats`` times and print each piece's CPU µs per call."""
    parser = argparse.ArgumentParser(prog="python -m bench.move_render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with gen/) to compare with")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--game", default="darjeeling", choices=sorted(SEATS))
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(*args.worker)
        return
    figures = checkouts.compare("bench.move_render", args.before, args.repeats, args.game)
    checkouts.report(figures, args.game, lambda _: "CPU µs per call", digits=1)

if __name__ == "__main__":
    main(sys.argv[1:])
