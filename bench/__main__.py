"""Run the benchmarks: ``make bench`` (or ``python -m bench [--quick] [--workers N] [--compare old.json] [suite ...]``).

Every case is measured beside its baseline in the same run and reported as a ratio; the run
is printed as a table and written to ``bench/results/`` (git-ignored) as JSON and Markdown.
Suites: ``engines`` (steps per game vs the fastest game), ``render`` (the REST/SSE JSON renderer
vs ``json_format``), ``rest`` (move path vs a trivial
FastAPI + Redis endpoint), ``grpc`` (SubmitMoves vs a bare echo), ``sse`` (delivery latency vs a
bare Redis XADD→XREAD), ``memory`` (Redis bytes per game and per move), ``micro`` (each game
module's own cases, vs a Darjeeling engine step), ``idle`` (``make run``'s whole stack at rest, CPU
per process), ``matchmaking`` (the matchmaker's CPU per ticket matched vs a trivial request; time to
match at 1, 10 and 100 tickets a second, simulated), ``listeners`` (2,000 games × 10 SSE listeners
on one gateway worker: moves/s vs none, delivery vs a bare SSE server, memory per connection),
``players`` (10,000 player streams while their games are played: the same, and Redis reads per
player), ``capacity`` (``make run``'s whole stack under a realistic mix of players on their streams,
bots, spectators and webhooks, ramped up to the largest steady mix with move p99 ≤ 50 ms and no
error; see :mod:`bench.capacity`).  A suite that fails is reported as a row
with its error, and the others still run.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import json
import pkgutil
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import bench
from bench import procs
from bench.config import FULL, QUICK, Config
from bench.results import RESULTS_DIR, Row, compare, document, print_table, write
from services.common import workers
from services.common.sealing import key_file_unless_set

Suite = Callable[[Config], list[Row]]
SUITES = ("engines", "render", "rest", "grpc", "sse", "memory", "micro", "idle", "matchmaking", "listeners",
          "players", "capacity")
MODULES = {"engines": "engines", "render": "rendering", "rest": "rest_path", "grpc": "grpc_path",
           "sse": "sse_delivery", "memory": "redis_memory", "micro": "micro", "idle": "idle",
           "matchmaking": "matchmaking", "listeners": "many_listeners", "players": "many_players",
           "capacity": "capacity"}  # fmt: skip
# Suites that start a whole stack of their own (make run's supervisor): the quick slice's shared
# in-process servers are not started for them alone.
OWN_STACK = {"capacity"}


def bench_modules() -> list[str]:
    """Names of the modules in ``bench/`` that offer ``cases()`` (the ``micro`` suite runs them)."""
    names = (m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))
    return sorted(name for name in names if hasattr(importlib.import_module(f"bench.{name}"), "cases"))


def run_suite(name: str, config: Config) -> list[Row]:
    """The rows of one suite; a suite that fails gives one row saying how (the run goes on)."""
    suite: Suite = importlib.import_module(f"bench.{MODULES[name]}").run
    try:
        return suite(config)
    except Exception as error:
        traceback.print_exc()
        return [Row(name, "suite_failed", "error", 0.0, "", 0.0, details={"error": f"{type(error).__name__}: {error}"})]


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", choices=[*SUITES, []], help="suites to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="a tiny slice in seconds (CI): checks, not figures")
    parser.add_argument("--workers", type=int, help="server processes per service (default: one per core, as deployed;"
                        " the quick slice: 1)")  # fmt: skip
    parser.add_argument("--compare", type=Path, help="an earlier results JSON to compare ratios with")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="where the JSON and Markdown go")
    parser.add_argument("--listeners", type=_counts, help="SSE listener counts, e.g. 10,1000 (default: 10,1000,5000;"
                        " the listeners suite takes the largest, default 20000)")
    parser.add_argument("--players", type=int, help="connected players of the players suite (default: 10000)")
    parser.add_argument("--games", type=_counts, help="REST concurrent game counts, e.g. 32 (default: 32,256)")
    parser.add_argument("--game", help="the game type the move suites play (default: darjeeling)")
    parser.add_argument("--rounds", type=int, help="rest/grpc: interleaved rounds of the move and of its floor, each"
                        " side 2.5 s a round (default: 8); the ratio is their median")  # fmt: skip
    parser.add_argument("--blocks", type=_counts, help="capacity: hold these mixes (blocks of 40 players), every one"
                        " measured, instead of the ramp (default: 1,2,4,... up to the first that breaks)")  # fmt: skip
    return parser.parse_args(argv)


def _counts(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",") if part.strip())


def configure(args: argparse.Namespace) -> Config:
    """The configuration of a run: the full one or the quick slice, narrowed by the flags."""
    config = QUICK if args.quick else replace(FULL, workers=workers.process_count(0))
    if args.workers is not None:
        config = replace(config, workers=workers.process_count(args.workers))
    if args.listeners:
        config = replace(config, sse_listeners=args.listeners, many_listeners=max(args.listeners))
    if args.players:
        config = replace(config, many_players=args.players)
    if args.games:
        config = replace(config, rest_games=args.games)
    if args.game:
        config = replace(config, game=args.game)
    if args.rounds:
        config = replace(config, pair_rounds=args.rounds)
    if args.blocks:
        config = replace(config, capacity=config.capacity.holding(args.blocks))
    return config


def main(argv: list[str]) -> dict[str, object]:
    """Run the chosen suites, print the table, write the files; return the JSON document."""
    args = parse(argv)
    config = configure(args)
    # The stacks measured seal secrets in Redis like any deployment (services.common.sealing): a
    # key ring of this run's own, unless the environment names one.
    keys = Path(tempfile.mkdtemp(prefix="chaiwala-bench-keys-"))
    atexit.register(shutil.rmtree, keys, ignore_errors=True)
    key_file_unless_set(keys / "secret.keys")
    rows: list[Row] = []
    quick_stack = None
    # the quick slice: every server once, in threads (bench.inprocess)
    if config.quick and set(args.suites or SUITES) - OWN_STACK:
        from bench.inprocess import InProcessStack

        quick_stack = InProcessStack(workers=config.workers)
    with procs.shared(quick_stack) if quick_stack is not None else contextlib.nullcontext() as running:
        if running is not None:
            running.prestart(config.game)
        for name in args.suites or SUITES:
            print(f"[bench] {name} ...", file=sys.stderr, flush=True)
            rows += run_suite(name, config)
    settings = {"quick": config.quick, "workers": config.workers, "game": config.game, "seconds": config.seconds,
                "pair_rounds": config.pair_rounds}  # fmt: skip
    doc = document(rows, settings)
    if args.compare is not None:
        compare(doc, json.loads(args.compare.read_text()))
    print_table(doc)
    json_path, md_path = write(doc, args.out)
    print(f"[bench] wrote {json_path} and {md_path}", file=sys.stderr)
    return doc


if __name__ == "__main__":
    main(sys.argv[1:])
