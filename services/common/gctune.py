"""The garbage collector's pace in a serving process.

A move's work makes and drops tens of thousands of containers (the state parsed again from its
JSON, its view, the answer's dicts), and a rules process keeps hundreds of parsed positions
(:mod:`services.rules.positions`) beside everything its imports made.  At Python's default
thresholds (700, 10, 10) a collection of the youngest objects runs every few hundred of them and
a full one, which walks every object of the process, every few hundred moves: measured in process
over 720 Darjeeling moves (docs/lab/move-path.md, "SubmitMoves, the full answer's remainder"),
collections took ~106 ms, two full ones 63 ms of it, and a plain ``SubmitMoves`` cost 0.57-0.61
ms against 0.49-0.51 ms at (10000, 20, 20).  Our objects are mostly acyclic and freed by their
reference counts at once; the collector is only there for cycles, which can wait longer.

:func:`tune` freezes what the process made while starting (modules, the engines' tables, cached
content: never garbage, so a full collection need not walk it again) and sets the thresholds.
"""

from __future__ import annotations

import gc


def thresholds(setting: str) -> tuple[int, ...] | None:
    """The thresholds a setting names ("" for Python's own): one to three positive integers."""
    if not setting.strip():
        return None
    values = tuple(int(part) for part in setting.split(","))
    if not 1 <= len(values) <= 3 or min(values) < 1:
        raise ValueError(f"GC thresholds are one to three positive integers, not {setting!r}")
    return values


def tune(setting: str) -> None:
    """Freeze what exists now and set the collector's thresholds (``setting``: see :func:`thresholds`)."""
    values = thresholds(setting)
    if values is None:
        return
    gc.collect()  # what startup left as garbage goes now, not into the frozen generation
    gc.freeze()
    gc.set_threshold(*values)
