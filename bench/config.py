"""How long and how wide a benchmark run is: the full run (``make bench``) or the quick slice.

The quick slice (``--quick``; what ``tests/benchmarks/test_bench_runs.py`` runs) only checks that
every case runs and reports well-formed numbers; its figures mean little.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Config:
    """The knobs of every suite."""

    # Processes per server (gateway, rules service, trivial endpoint).  ``make bench`` runs one per
    # core, what a deployment runs by default (CHAIWALA_HTTP_WORKERS / CHAIWALA_GRPC_PROCESSES = 0);
    # see bench/__main__.py.
    workers: int = 1
    game: str = "darjeeling"
    seconds: float = 8.0
    warmup: float = 2.0
    rest_games: tuple[int, ...] = (32, 256)
    grpc_games: int = 32
    sse_listeners: tuple[int, ...] = (10, 1000, 5000)
    sse_moves: int = 30
    sse_deadline: float = 90.0
    # The many-streams suites (bench.many_listeners, bench.many_players): listeners on one gateway
    # worker (10 per game), and connected players (each seated in ``player_games`` games).
    many_listeners: int = 20000
    many_players: int = 10000
    player_games: int = 2
    # The capacity suite (bench.capacity): block counts to hold one after another, every one measured
    # (``--blocks``); empty: the ramp, which stops at the first step that breaks and narrows.
    capacity_blocks: tuple[int, ...] = ()
    memory_moves: int = 400
    engine_seconds: float = 2.0
    quick: bool = False


FULL = Config()
QUICK = replace(
    FULL,
    seconds=0.5,
    warmup=0.2,
    rest_games=(4,),
    grpc_games=4,
    sse_listeners=(3,),
    sse_moves=3,
    sse_deadline=15.0,
    many_listeners=40,
    many_players=20,
    memory_moves=12,
    engine_seconds=0.05,
    quick=True,
)
