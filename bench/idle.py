"""The whole stack at rest: CPU per process while nothing happens (``python -m bench idle``).

Starts the stack as ``make run`` does — the real ``python -m services.processes`` with every game,
its embedded Redis, the conductor, the tournament director, the webhook dispatcher and the gateway,
``--workers`` processes per server, every port free (the tests' and the capacity suite's
:class:`tests.support.supervised.Supervised`) — waits until the gateway is ready, lets start-up
settle, then reads every process's CPU time from ``/proc`` at the start and the end of a quiet
window. One row: the share of one core the whole tree used (goal: ≤ 1 %); the details give each
process's share, named by what it runs, so a process that polls shows itself.
The REST suite reports the same figure for its own (smaller) stack beside the move path.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

from bench.config import Config
from bench.procs import CLOCK_TICKS, process_tree
from bench.results import Row
from tests.support.supervised import Supervised

SUITE = "idle"
SETTLE_SECONDS = 10.0  # start-up work (imports, first sweeps, Redis loading) is not idling


def _name(pid: int) -> str:
    """What a process runs, shortly: ``gateway``, ``services.rules.server darjeeling``, ``redis-server``."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return "gone"
    argv = [part for part in argv if part]
    if "-m" in argv:
        return " ".join(argv[argv.index("-m") + 1 :])
    return Path(argv[0]).name if argv else "?"


def _ticks(pid: int) -> int:
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    return 0


def measure_tree(root: int, seconds: float) -> tuple[float, dict[str, float]]:
    """CPU share of one core (%) of ``root``'s process tree over ``seconds``, in total and per name."""
    members = process_tree(root)
    before = {pid: _ticks(pid) for pid in members}
    started = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - started
    shares: dict[str, float] = {}
    for pid in members:
        used = max(0, _ticks(pid) - before[pid]) / CLOCK_TICKS
        name = _name(pid)
        shares[name] = shares.get(name, 0.0) + 100 * used / elapsed
    ranked = sorted(shares.items(), key=lambda item: -item[1])
    return sum(shares.values()), {name: round(share, 3) for name, share in ranked}


def run(config: Config) -> list[Row]:
    """Start ``make run``'s stack, let it settle, and measure a quiet window."""
    # CPU time is counted in 10 ms ticks per process: over 20 s one tick is 0.05 % of a core, and
    # 21 processes' rounding moved the total by a few tenths of a percent between runs of the same
    # tree; a minute's window divides that by three.
    from services.processes.supervisor import game_order

    window = 3.0 if config.quick else max(60.0, 2 * config.seconds)
    with tempfile.TemporaryDirectory(prefix="chaiwala-idle-") as work:
        stack = Supervised(Path(work), games=tuple(game_order()), processes=config.workers)
        try:
            stack.start(seconds=120)
            assert stack.process is not None
            time.sleep(1.0 if config.quick else SETTLE_SECONDS)
            total, shares = measure_tree(stack.process.pid, window)
            processes = len(process_tree(stack.process.pid))
        finally:
            stack.stop()
    details = {"window_s": window, "processes": processes, "load_average": os.getloadavg()[0], **shares}
    return [Row(SUITE, "idle_stack_cpu", "% of a core", round(total, 3), "goal_percent", 1.0, better="lower",
                goal=1.0, details=details)]  # fmt: skip
