"""Child processes the project starts itself (Redis, rules services, the gateway, their workers).

Two rules keep a process tree from leaving orphans behind:

* **A child dies with its parent.**  :func:`die_with_parent` asks Linux to send the calling
  process SIGTERM when its parent ends (``prctl(PR_SET_PDEATHSIG)``), however the parent ends,
  ``kill -9`` included.  The request is made by the child itself, early in its start-up (it
  survives ``exec``, but a child started by ``multiprocessing``'s *spawn* or by a plain
  ``python -m`` has no hook before that), so it closes the window that leaves open by checking
  afterwards that its parent is still the one that started it.  :func:`parent_death_preexec`
  makes the same request between ``fork`` and ``exec`` for children that cannot ask themselves
  (``redis-server``); use it only from a process without threads.
* **A supervisor owns whole process groups.**  :func:`start_group` starts a child as the leader
  of its own session and process group, so its own children (a server's workers) are in that
  group too; :func:`stop_group` ends the whole group (SIGTERM to the leader, then SIGKILL to
  whatever is left of the group), also when the leader is already gone.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
PARENT_ENV = "CHAIWALA_PARENT_PID"


def _prctl_pdeathsig(sig: int) -> bool:
    """Ask the kernel for ``sig`` when the parent ends; whether it could (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(expected_parent: int | None = None, sig: int = signal.SIGTERM) -> None:
    """Have this process receive ``sig`` when its parent ends; exit now if it already has.

    ``expected_parent`` is the pid of the process that started this one (default: the current
    parent).  If the parent died before the request was made, this process was already handed
    to another parent and no signal would ever come: it ends itself instead.
    """
    parent = os.getppid() if expected_parent is None else expected_parent
    _prctl_pdeathsig(sig)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def die_with_starter() -> None:
    """:func:`die_with_parent` for a child started with :func:`child_env` (no-op otherwise)."""
    starter = os.environ.get(PARENT_ENV, "")
    if starter.isdigit():
        die_with_parent(int(starter))


def child_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` plus this process's pid, which :func:`die_with_starter` in the child checks."""
    return {**env, PARENT_ENV: str(os.getpid())}


def parent_death_preexec() -> None:
    """``preexec_fn`` for :class:`subprocess.Popen`: the child gets SIGTERM when this process ends.

    Runs between ``fork`` and ``exec``, so only from a parent without threads (the supervisor).
    """
    _prctl_pdeathsig(signal.SIGTERM)


def start_group(
    args: Sequence[str], env: dict[str, str], cwd: Path | None = None, with_parent: bool = True, **popen: object
) -> subprocess.Popen[bytes]:
    """Start ``args`` as the leader of a new process group (its children join the group).

    With ``with_parent`` the child also ends when this process does (see :func:`parent_death_preexec`).
    """
    preexec = parent_death_preexec if with_parent else None
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        list(args), env=env, cwd=cwd, start_new_session=True, preexec_fn=preexec, **popen
    )


def _stat_fields(pid: str) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (state first); [] if gone."""
    try:
        stat = Path("/proc", pid, "stat").read_text()
    except OSError:
        return []
    return stat[stat.rfind(")") + 2 :].split()


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process
    fields = _stat_fields(str(pid))
    return not (fields and fields[0] == "Z")


def group_members(pgid: int) -> list[int]:
    """Live processes of the process group ``pgid`` (zombies, which hold nothing, left out).

    Reads ``/proc`` on Linux: an orphan that died stays a zombie member of its group until
    whoever adopted it reaps it, and some container inits never do.
    """
    if not Path("/proc/self/stat").exists():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        except PermissionError:
            pass
        return [pgid]
    members = []
    for pid in os.listdir("/proc"):
        fields = _stat_fields(pid) if pid.isdigit() else []
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            members.append(int(pid))
    return members


def group_alive(pgid: int) -> bool:
    """Whether any live process is left in the process group ``pgid``."""
    return bool(group_members(pgid))


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send ``sig`` to what is left of the group ``pgid`` once its leader has exited and was reaped.

    Nothing if the group is empty.  The kernel does not reuse a pid while a group still bears
    it, so a live process with pid ``pgid`` means the old group is empty and the id belongs to
    someone else now: it is left alone.
    """
    leader = _stat_fields(str(pgid))
    if leader and leader[0] != "Z":
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_group(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Stop a child started by :func:`start_group` and everything left in its group.

    SIGTERM to the leader (which stops its own workers), SIGKILL if it lingers; then whatever
    is still in the group (workers whose leader was killed) gets SIGTERM, and SIGKILL after
    ``timeout``.
    """
    stop_process(process, timeout)
    pgid = process.pid
    if not group_alive(pgid):
        return
    kill_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    kill_group(pgid, signal.SIGKILL)


def stop_process(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """SIGTERM, so the child can shut down cleanly; SIGKILL if it has not exited within ``timeout``."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)
