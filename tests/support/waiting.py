"""Waiting for a behaviour in tests: poll a check until it holds, or fail naming what never came."""

from __future__ import annotations

import time
from collections.abc import Callable


def eventually(check: Callable[[], bool], what: str, seconds: float, step: float = 0.05) -> None:
    """Poll ``check()`` until true; fail naming ``what`` after ``seconds`` (a bound, not a timing)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"still not {what} after {seconds}s"
        time.sleep(step)
