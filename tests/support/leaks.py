"""No process started by the test suite may outlive it (checked when the session ends).

Every process the suite starts inherits :data:`MARKER` (one value per ``pytest`` run, set in
the environment before any test process or fixture starts anything), and most stay
descendants of the test process that started them.  When a session ends:

* each test process (an xdist worker, or the only process without xdist) looks at its own
  descendants, recursively;
* the controller (or the only process) also looks at every process carrying this run's marker
  (an orphan, adopted by init, is no descendant any more) and at orphans whose command line
  names this checkout and that carry no marker (a child started with a scrubbed environment).
  Another run in the same checkout (its own marker, its own living parents) is never counted.

Whatever is still alive after a grace period (a server stopping cleanly takes a few seconds)
is reported, killed, and fails the run.  Zombies hold nothing and are not counted, nor are
Python's own helpers that end with their parent (``multiprocessing``'s resource tracker).
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psutil

MARKER = "PYTEST_CHAIWALA_SESSION"
ROOT = Path(__file__).resolve().parents[2]
GRACE_SECONDS = 15.0
# Helpers of the Python runtime that exit with their parent by design.
RUNTIME_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def mark_session() -> str:
    """This run's marker value, set in the environment if it is not yet (children inherit it)."""
    return os.environ.setdefault(MARKER, uuid.uuid4().hex)


@dataclass
class Watch:
    """What one test process knows when it checks: who it is, and what already existed."""

    started: float = field(default_factory=time.time)
    baseline: set[tuple[int, float]] = field(default_factory=set)  # (pid, start time): pids get reused
    ancestors: set[int] = field(default_factory=set)

    @classmethod
    def begin(cls) -> Watch:
        """Note the processes alive at the start (never counted) and this process's ancestry."""
        me = psutil.Process()
        baseline = {(p.pid, p.info["create_time"]) for p in psutil.process_iter(["create_time"])}
        return cls(baseline=baseline, ancestors={me.pid, *(p.pid for p in me.parents())})


def describe(process: psutil.Process) -> str:
    """pid, parent and command line, for the report."""
    try:
        return f"pid {process.pid} (parent {process.ppid()}): {' '.join(process.cmdline())[:200]}"
    except psutil.Error:
        return f"pid {process.pid}: gone"


def _alive(process: psutil.Process) -> bool:
    try:
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        command = " ".join(process.cmdline())
    except psutil.Error:
        return False
    return not any(helper in command for helper in RUNTIME_HELPERS)


def _marker_of(process: psutil.Process) -> str | None:
    """The run marker in the process's environment ('' if none; None if unreadable)."""
    try:
        return process.environ().get(MARKER, "")
    except psutil.Error:
        return None


def _orphan_of_checkout(process: psutil.Process, watch: Watch) -> bool:
    """An orphan (adopted by init) started during the run, without another run's marker, whose
    command line names this checkout (a child of ours started with a scrubbed environment)."""
    try:
        if process.ppid() > 1 or process.create_time() < watch.started:
            return False
        if f"{ROOT}/" not in " ".join(process.cmdline()):
            return False
    except psutil.Error:
        return False
    return _marker_of(process) == ""


def _existed(process: psutil.Process, watch: Watch) -> bool:
    try:
        return (process.pid, process.create_time()) in watch.baseline
    except psutil.Error:
        return False


def survivors(watch: Watch, whole_run: bool, exclude: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Processes started during the run that are still alive (see the module docstring)."""
    me = psutil.Process()
    ignore = watch.ancestors | set(exclude) | {me.pid}
    found: dict[int, psutil.Process] = {}
    with contextlib.suppress(psutil.Error):
        found.update({p.pid: p for p in me.children(recursive=True)})
    if whole_run:
        marker = os.environ.get(MARKER, "")
        for process in psutil.process_iter():
            if process.pid in found or process.pid in ignore or _existed(process, watch):
                continue
            if (marker and _marker_of(process) == marker) or _orphan_of_checkout(process, watch):
                found[process.pid] = process
    return [p for pid, p in sorted(found.items()) if pid not in ignore and _alive(p)]


def check(watch: Watch, whole_run: bool, exclude: frozenset[int] = frozenset()) -> list[str]:
    """Wait (boundedly) for the run's processes to end; kill and describe those that do not."""
    deadline = time.monotonic() + GRACE_SECONDS
    left = survivors(watch, whole_run, exclude)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = survivors(watch, whole_run, exclude)
    report = [describe(process) for process in left]
    for process in left:
        with contextlib.suppress(psutil.Error):
            process.kill()
    return report
