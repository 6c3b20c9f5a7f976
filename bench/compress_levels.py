"""CPU and size of the gateway's zstd compression of move-path answers, per level, in process.

The gateway compresses an answer of at least ``CHAIWALA_COMPRESS_MIN_BYTES`` (1,024) for a client
that accepts zstd, with one kept compressor at ``gateway.compression.ZSTD_LEVEL`` (4).  This takes
the answers of the move path as the rules service prints them — a move's whole answer (the mover's
state and the move's events, :mod:`services.common.answerjson`) and the mover's next ``GET
legal-moves`` listing — on 32 random games (Darjeeling, or ``--game``) after every move, and
compresses each of at least ``--min-bytes`` with a kept compressor of each level, the levels
taking turns ``--repeats`` times (process CPU, medians and minima of the turns), with the
compressed sizes; and says how many of the answers each threshold in ``--thresholds`` would leave
uncompressed.

    python -m bench.compress_levels --repeats 6 [--levels 1,2,3,4] [--game tea_rum]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import orjson
import zstandard

from chaiwala.v1 import rules_pb2
from services.common import dictrender
from services.common.answerjson import answer_json
from services.common.registry import engine_for
from services.common.runner import Match
from services.games.records import LogEntry
from services.legalmoves.entries import legal_listing
from services.rules.narrator import Narrator
from tests.support.walks import random_steps

GAMES = 32
NAMES = ["a", "b", "c", "d", "e", "f"]


def corpus(game_type: str, moves: int) -> dict[str, list[bytes]]:
    """Every move's answer and the mover's next listing, as the gateway answers them."""
    engine = engine_for(game_type)
    narrator = Narrator(engine)
    found: dict[str, list[bytes]] = {"answer": [], "listing": []}
    for seed in range(GAMES):
        match = Match.start(engine, engine.min_players, seed)
        for step, seat, move, events in random_steps(match, moves):
            version, to_act = step + 1, match.to_act()
            status = "active" if to_act else "finished"
            entry = LogEntry(seat, "", move, events, hash=f"{seed:032x}{step:032x}", status=status,
                             to_act=to_act, version=version)  # fmt: skip
            state = orjson.dumps(dictrender.payload(game_type, "State", engine.view(match.state, seat)))
            printed = orjson.dumps(narrator.entry_json(entry, seat, words=(NAMES, "en")))
            answer = rules_pb2.SubmitMovesResponse(version=version, status=status, to_act=to_act)
            answer.state.SetInParent()
            found["answer"].append(answer_json(answer, state, printed))
            if to_act:
                found["listing"].append(legal_listing(narrator, version, match, to_act[0], NAMES, "en"))
    return found


def _timed(bodies: list[bytes], compress: object) -> tuple[float, int]:
    """CPU µs per body and the compressed bytes in all."""
    assert callable(compress)
    start = time.process_time()
    sizes = sum(len(compress(body)) for body in bodies)
    return (time.process_time() - start) / len(bodies) * 1e6, sizes


def main(argv: list[str]) -> None:
    """Alternate the levels and print CPU µs and mean size per answer of each kind."""
    parser = argparse.ArgumentParser(prog="python -m bench.compress_levels", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="darjeeling")
    parser.add_argument("--moves", type=int, default=40, help="moves per game")
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--levels", default="1,2,3,4")
    parser.add_argument("--thresholds", default="1024,2048,4096,8192")
    parser.add_argument("--min-bytes", type=int, default=1024, help="compress bodies of at least this size")
    args = parser.parse_args(argv)
    bodies = corpus(args.game, args.moves)
    levels = [int(level) for level in args.levels.split(",")]
    compressors = {level: zstandard.ZstdCompressor(level=level).compress for level in levels}
    cpu: dict[tuple[str, int], list[float]] = {}
    sizes: dict[tuple[str, int], int] = {}
    for _ in range(args.repeats):
        for level in levels:
            for kind, items in bodies.items():
                compressed = [body for body in items if len(body) >= args.min_bytes]
                spent, sizes[kind, level] = _timed(compressed, compressors[level])
                cpu.setdefault((kind, level), []).append(spent)
    for kind, items in bodies.items():
        plain = sum(len(body) for body in items) / len(items)
        print(f"{args.game} {kind}: {len(items)} bodies, mean {plain:.0f} B, "
              f"min {min(map(len, items))} B, max {max(map(len, items))} B")  # fmt: skip
        for threshold in args.thresholds.split(","):
            below = sum(len(body) < int(threshold) for body in items)
            print(f"  below {threshold} B (left uncompressed): {below / len(items):.0%}")
        compressed = [body for body in items if len(body) >= args.min_bytes]
        for level in levels:
            turns = cpu[kind, level]
            print(f"  zstd level {level}: CPU µs per compressed body median {statistics.median(turns):.1f} "
                  f"(min {min(turns):.1f}), mean {sizes[kind, level] / len(compressed):.0f} B "
                  f"({sizes[kind, level] / sum(map(len, compressed)):.1%} of them)")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
