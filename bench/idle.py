"""The whole stack at rest: CPU per process while nothing happens (``python -m bench idle``).

Starts the stack as ``make run`` does — the real ``python -m services.processes`` with every
game, its embedded Redis, the conductor, the tournament director, the webhook dispatcher and the
gateway, ``--workers`` processes per server, every port free — waits until the gateway is ready,
lets start-up settle, then reads every process's CPU time from ``/proc`` at the start and the end of
a quiet window.  One row: the share of one core the whole tree used (goal: ≤ 1 %); the details
give each process's share, named by what it runs, so a process that polls shows itself.
The REST suite reports the same figure for its own (smaller) stack beside the move path.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.config import Config
from bench.procs import CLOCK_TICKS, ROOT, process_tree
from bench.results import Row
from services.common.embedded_redis import free_port
from services.common.processes import stop_process

SUITE = "idle"
SETTLE_SECONDS = 10.0  # start-up work (imports, first sweeps, Redis loading) is not idling


def _ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def supervisor_env(directory: Path, workers: int) -> tuple[dict[str, str], int]:
    """The supervisor's environment with every port free (as ``make run``'s, moved off the defaults)."""
    from services.processes.supervisor import game_order

    games = len(game_order())
    ports = _ports(10 + 2 * games)
    http, redis, conductor, tournament, tournament_metrics, webhook, webhook_metrics, notify, notify_metrics = ports[:9]
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT}:{ROOT / 'gen'}",
        "CHAIWALA_HTTP_PORT": str(http),
        "CHAIWALA_RUN_GRPC_PORTS": ",".join(map(str, ports[10 : 10 + games])),
        "CHAIWALA_RUN_METRICS_PORTS": ",".join(map(str, ports[10 + games :])),
        "CHAIWALA_RUN_CONDUCTOR_METRICS_PORT": str(conductor),
        "CHAIWALA_RUN_TOURNAMENT_PORT": str(tournament),
        "CHAIWALA_RUN_TOURNAMENT_METRICS_PORT": str(tournament_metrics),
        "CHAIWALA_RUN_WEBHOOK_GRPC_PORT": str(webhook),
        "CHAIWALA_RUN_WEBHOOK_METRICS_PORT": str(webhook_metrics),
        "CHAIWALA_RUN_NOTIFY_GRPC_PORT": str(notify),
        "CHAIWALA_RUN_NOTIFY_METRICS_PORT": str(notify_metrics),
        "CHAIWALA_REDIS_PORT": str(redis),
        "CHAIWALA_VAR_DIR": str(directory),
        "CHAIWALA_LOG_LEVEL": "warning",
        "CHAIWALA_GRPC_PROCESSES": str(workers),
        "CHAIWALA_HTTP_WORKERS": str(workers),
    }
    env.pop("REDIS_URL", None)
    return env, http


def _ready(port: int) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200
    return False


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
    window = 3.0 if config.quick else max(60.0, 2 * config.seconds)
    with tempfile.TemporaryDirectory(prefix="chaiwala-idle-") as work:
        env, port = supervisor_env(Path(work), config.workers)
        with (Path(work) / "supervisor.log").open("wb") as log:
            process = subprocess.Popen([sys.executable, "-m", "services.processes"], cwd=ROOT, env=env,
                                       stdout=log, stderr=log)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not _ready(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    log_text = (Path(work) / "supervisor.log").read_text()[-2000:]
                    raise RuntimeError(f"the stack did not start:\n{log_text}")
                time.sleep(0.3)
            time.sleep(1.0 if config.quick else SETTLE_SECONDS)
            total, shares = measure_tree(process.pid, window)
            processes = len(process_tree(process.pid))
        finally:
            stop_process(process, timeout=30)
    details = {"window_s": window, "processes": processes, "load_average": os.getloadavg()[0], **shares}
    return [Row(SUITE, "idle_stack_cpu", "% of a core", round(total, 3), "goal_percent", 1.0, better="lower",
                goal=1.0, details=details)]  # fmt: skip
