"""The sweep of the multiprocess metrics folders: a dead parent's folder goes, a live one's stays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from services.common.workers import METRICS_DIR_PREFIX, remove_stale_metrics_dirs


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_sweep_removes_only_folders_of_parents_that_are_gone(tmp_path: Path) -> None:
    dead = tmp_path / f"{METRICS_DIR_PREFIX}{_dead_pid()}-abc"
    live = tmp_path / f"{METRICS_DIR_PREFIX}{os.getpid()}-def"
    unnamed = tmp_path / f"{METRICS_DIR_PREFIX}nopid"
    for folder in (dead, live, unnamed):
        folder.mkdir()
        (folder / "counter_1.db").write_bytes(b"x")
    assert remove_stale_metrics_dirs(tmp_path) == [dead]
    assert not dead.exists() and live.exists() and unnamed.exists()
