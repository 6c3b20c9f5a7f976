"""How long and how wide a benchmark run is: the full run (``make bench``) or the quick slice.

The quick slice (``--quick``; what ``tests/benchmarks/test_bench_runs.py`` runs) only checks that
every case runs and reports well-formed numbers; its figures mean little.  This module is the one
place both sizes are written down, the capacity suite's ramp (:class:`Plan`) included.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Plan:
    """How the capacity suite's ramp goes (:mod:`bench.capacity`): blocks per step, how long each
    settles and is held, the think times.  The defaults are the full run's."""

    levels: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)
    settle: float = 8.0
    hold: float = 30.0
    min_moves: int = 300  # a step is held on (5 s at a time, up to ``max_hold``) until this many moves were timed
    max_hold: float = 75.0
    grace: float = 8.0  # how long a notice or webhook may take before it counts as missing
    think: tuple[float, float] = (2.0, 120.0)  # a turn's think time, log-uniform between these (seconds)
    narrow: int = 2  # halvings between the last good and the first bad step
    budget: float = 480.0  # seconds for the ramp; no new step starts after it
    every: bool = False  # hold every level (``--blocks``), not only up to the first that breaks

    def holding(self, blocks: tuple[int, ...]) -> Plan:
        """``--blocks``: these mixes held one after another, every one measured, instead of the ramp."""
        return replace(self, levels=blocks, narrow=0, every=True, budget=3600.0)


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
    # The move against its floor (bench.rest_path, bench.grpc_path): this many rounds of each, interleaved
    # (move, floor, move, floor, ...), each this long; the ratio is the median of the rounds' own ratios.
    pair_rounds: int = 8
    pair_seconds: float = 2.5
    sse_listeners: tuple[int, ...] = (10, 1000, 5000)
    sse_moves: int = 30
    sse_deadline: float = 90.0
    # The many-streams suites (bench.many_listeners, bench.many_players): listeners on one gateway
    # worker (10 per game), and connected players (each seated in ``player_games`` games).
    many_listeners: int = 20000
    many_players: int = 10000
    player_games: int = 2
    # Their quiet windows: the gateway's CPU with every stream open and nothing played, and (players)
    # Redis's commands with and without the players connected: one lease-renewal period of the
    # gateway (gateway.stream_caps renews every third of its 45 s lease), so a window holds one
    # renewal round (a 10 s window held one round or none).
    idle_seconds: float = 5.0
    redis_window: float = 15.0
    # The capacity suite's ramp (bench.capacity), or with ``--blocks`` the mixes it holds (Plan.holding).
    capacity: Plan = Plan()
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
    pair_rounds=2,
    pair_seconds=0.3,
    sse_listeners=(3,),
    sse_moves=3,
    sse_deadline=15.0,
    many_listeners=40,
    many_players=20,
    idle_seconds=1.0,
    redis_window=2.0,
    memory_moves=12,
    engine_seconds=0.05,
    # One small step with short think times, held for seconds: the suite runs and reports, no figure.
    capacity=Plan(
        levels=(1,), settle=1.0, hold=3.0, min_moves=0, max_hold=3.0, grace=5.0, think=(0.2, 1.0), narrow=0, budget=60.0
    ),
    quick=True,
)
