"""CPU of the narrator alone (a move's sentences and prices), two checkouts alternated.

Random two-seat games are played in process; then, timed with ``time.process_time``:

* ``event``: one event's sentence rendered (nothing kept: the sentence cache is emptied before
  each pass), for every seat and a spectator;
* ``move``: ``Narrator.event_fields`` of one move's events for the seat that moved (what the
  ``SubmitMoves`` answer narrates), the cache emptied before each pass;
* ``legal``: ``Narrator.costed_text`` of each legal move of each seat at each position, once the
  sentences are kept (what every seat's legal-moves answer after a commit pays).

    python -m bench.narrator --before /tmp/old [--game tea_rum] [--repeats 6]

Each checkout runs in its own interpreter and they take turns; medians and minima are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from bench import checkouts

NAMES = ["Asha", "Bikram"]


def _play(game_type: str, games: int, seed: int) -> tuple[list[Any], list[Any]]:
    """(seat, events) of every move and (seat, move, costs) at every position of ``games`` games."""
    from services.common.registry import engine_for
    from services.common.runner import Match

    engine, rng = engine_for(game_type), random.Random(seed)
    moves, legal = [], []
    for number in range(games):
        match = Match.start(engine, 2, seed * 1000 + number)
        for _ in range(400):
            if engine.is_over(match.state):
                break
            for seat in match.to_act():
                for move in engine.legal_moves(match.state, seat):
                    legal.append((seat, move, engine.move_costs(match.state, seat, move)))
            seat = match.to_act()[0]
            events = match.play(seat, rng.choice(engine.legal_moves(match.state, seat)))
            moves.append((seat, events))
    return moves, legal


def _timed(work: Any, passes: int, reset: Any) -> float:
    best = float("inf")
    for _ in range(passes):
        reset()
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def _measure(game_type: str, seed: int) -> dict[str, float]:
    """CPU µs per unit of each case, in this interpreter's checkout (best of a few passes)."""
    from services.common.registry import engine_for
    from services.rules.narrator import Narrator

    engine = engine_for(game_type)
    narrator = Narrator(engine)
    moves, legal = _play(game_type, 3, seed)
    viewed = [(engine.event_view(event, viewer), viewer, seat)
              for seat, events in moves for event in events for viewer in (None, 0, 1)]  # fmt: skip
    viewed = [item for item in viewed if item[0] is not None]
    said = narrator.sentences._said
    sentences = narrator.sentences

    def events() -> None:
        for event, viewer, actor in viewed:
            sentences.event_text(event, viewer, NAMES, actor, "en")

    def narrate() -> None:
        for version, (seat, evs) in enumerate(moves):
            narrator.event_fields(version, seat, evs, seat, words=(NAMES, "en"))

    def priced() -> None:
        for seat, move, costs in legal:
            narrator.costed_text(move, seat, costs, NAMES, "en")

    events()
    priced()  # compiles every template and keeps the legal moves' sentences
    return {
        "event": _timed(events, 5, said.clear) / len(viewed) * 1e6,
        "move": _timed(narrate, 5, said.clear) / len(moves) * 1e6,
        "legal": _timed(priced, 5, lambda: None) / len(legal) * 1e6,
    }


def _worker(root: str, game_type: str, seed: int) -> None:
    checkouts.enter(root)
    print(json.dumps(_measure(game_type, seed)))


def main(argv: list[str]) -> None:
    """Alternate the checkouts ``--repeats`` times and print each case's CPU µs."""
    parser = argparse.ArgumentParser(prog="python -m bench.narrator", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout (with gen/) to compare with")
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--game", default="darjeeling")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        root, game_type, seed = args.worker
        _worker(root, game_type, int(seed))
        return
    figures = checkouts.compare("bench.narrator", args.before, args.repeats, args.game, "7")
    units = {"event": "a sentence", "move": "a move's events", "legal": "a priced legal move"}
    checkouts.report(figures, args.game, lambda case: f"CPU µs per {units[case]}")

if __name__ == "__main__":
    main(sys.argv[1:])
