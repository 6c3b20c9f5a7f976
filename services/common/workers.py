"""All cores: N copies of a server process sharing one port, and metrics summed over them.

The process model (the gateway and every rules service use it):

* A server told to run ``N > 1`` processes (``CHAIWALA_HTTP_WORKERS`` for the gateway,
  ``CHAIWALA_GRPC_PROCESSES`` for a rules service; 0 = one per core) becomes a small parent:
  it makes a fresh Prometheus multiprocess directory, starts N copies of its own command as
  workers (``CHAIWALA_WORKER=1``), serves nothing itself but forwards SIGTERM/SIGINT to them,
  and exits (non-zero) when one dies, so that whoever supervises it (``make run``'s supervisor,
  Kubernetes) restarts the whole group.
* Each worker binds the same port with ``SO_REUSEPORT`` (gRPC's ``grpc.so_reuseport`` option,
  a pre-bound socket for uvicorn); the kernel spreads connections over them.  Each worker is one
  asyncio loop with its own engine work: a long engine step blocks only the games of its own
  process, and N processes keep the other cores serving (we run engine steps inline rather than
  in a thread pool: the GIL would serialise them anyway, and the steps are short since the
  engines' speed work).
* Metrics: ``prometheus_client``'s multiprocess mode.  Every worker writes its samples to the
  shared directory (``PROMETHEUS_MULTIPROC_DIR``, set by the parent before the workers import
  ``prometheus_client``); one scrape sums counters and histograms over every worker (gauges say
  how: ``max`` for a value read from Redis, ``livesum`` for a count of open things).  A rules
  service's parent serves that sum on the metrics port; every gateway worker serves it on
  ``/metrics``.  With one process nothing changes: no directory, the usual registry.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, multiprocess

from services.common.processes import child_env, die_with_starter, pid_alive

WORKER_ENV = "CHAIWALA_WORKER"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
METRICS_DIR_PREFIX = "chaiwala-metrics-"
_OWNED_DIR = re.compile(re.escape(METRICS_DIR_PREFIX) + r"(\d+)-")


def process_count(configured: int) -> int:
    """How many processes to run: the setting, or one per core when it is 0."""
    return configured if configured > 0 else (os.cpu_count() or 1)


def is_worker() -> bool:
    """Whether this process is one of a group's workers (it must not start workers itself)."""
    return os.environ.get(WORKER_ENV) == "1"


def join_group() -> None:
    """In a worker: end when the parent that started it ends (call first thing in ``main``)."""
    if is_worker():
        die_with_starter()


def remove_stale_metrics_dirs(root: Path | None = None) -> list[Path]:
    """Remove the metrics directories whose owning parent process is gone; return them.

    A directory is ``chaiwala-metrics-<owner pid>-<random>`` in the temporary directory; one
    whose owner still runs (or whose name carries no pid) is left alone.
    """
    removed = []
    for path in (root or Path(tempfile.gettempdir())).glob(METRICS_DIR_PREFIX + "*"):
        owner = _OWNED_DIR.match(path.name)
        if owner is None or pid_alive(int(owner.group(1))):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def multiprocess_mode() -> bool:
    """Whether metrics are shared between processes (a multiprocess directory is set)."""
    return bool(os.environ.get(MULTIPROC_ENV))


def scrape_registry(own: CollectorRegistry) -> CollectorRegistry:
    """What a scrape renders: the sum over every worker in multiprocess mode, else ``own``."""
    if not multiprocess_mode():
        return own
    summed = CollectorRegistry()
    multiprocess.MultiProcessCollector(summed)  # type: ignore[no-untyped-call]
    return summed


def start_workers(count: int, module: str, args: Sequence[str] = ()) -> list[subprocess.Popen[bytes]]:
    """Start ``count`` workers (``python -m module args``) sharing a fresh metrics directory.

    Directories left by earlier parents that were killed are removed first.
    """
    remove_stale_metrics_dirs()
    directory = tempfile.mkdtemp(prefix=f"{METRICS_DIR_PREFIX}{os.getpid()}-")
    os.environ[MULTIPROC_ENV] = directory
    env = child_env({**os.environ, WORKER_ENV: "1", MULTIPROC_ENV: directory})
    command = [sys.executable, "-m", module, *args]
    return [subprocess.Popen(command, env=env) for _ in range(count)]


class Wakeup:
    """What a supervising loop sleeps on instead of polling: set by SIGCHLD (a child exited), by the
    stop signals, or by nothing until ``wait``'s timeout.  Install it with :meth:`install`."""

    # However quiet, a supervising loop looks at its children this often (a lost signal costs no more).
    LONGEST_WAIT = 5.0

    def __init__(self) -> None:
        self.event = threading.Event()

    def set(self, signum: int = 0, frame: object = None) -> None:
        """Wake the loop (usable as a signal handler)."""
        self.event.set()

    def install(self, *signals: signal.Signals) -> dict[signal.Signals, Any]:
        """Set on SIGCHLD and ``signals``; return the handlers it replaced (to restore)."""
        return {sig: signal.signal(sig, self.set) for sig in (signal.SIGCHLD, *signals)}

    def wait(self, seconds: float = LONGEST_WAIT) -> None:
        """Sleep until woken or ``seconds`` passed (a wake-up before the call ends it at once)."""
        self.event.wait(max(0.0, min(seconds, self.LONGEST_WAIT)))
        self.event.clear()


def supervise(workers: list[subprocess.Popen[bytes]], grace_seconds: float = 10.0) -> int:
    """Forward SIGTERM/SIGINT to the workers and wait; return when all are gone (or one died).

    A worker that dies on its own takes the group down (exit status 1): the process supervisor
    restarts it whole, with a fresh metrics directory.  The wait sleeps until a signal (SIGCHLD
    or a stop) comes, so an idle group costs nothing.
    """
    stopping = False
    wake = Wakeup()

    def request_stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        wake.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    previous.update(wake.install())
    try:
        while not stopping and all(w.poll() is None for w in workers):
            wake.wait()
        died = not stopping
        _stop(workers, grace_seconds)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        directory = os.environ.pop(MULTIPROC_ENV, "")
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
    return 1 if died else 0


def _stop(workers: list[subprocess.Popen[bytes]], grace_seconds: float) -> None:
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace_seconds
    for worker in workers:
        try:
            worker.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
        if multiprocess_mode():
            multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
