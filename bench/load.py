"""Closed-loop load: N concurrent loops for a fixed time, latencies and errors counted, never raised.

A loop body is one unit of work (a move, a request); a body that fails counts as an error and
the loop goes on, so an overloaded server shows up as numbers in the results, not as a crash.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


def percentile(samples: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``samples`` by nearest rank (0 for no samples)."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


@dataclass
class Tally:
    """What a load run measured: completed units, their latencies (s), errors by kind."""

    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def done(self) -> int:
        """Units completed without error."""
        return len(self.latencies)

    @property
    def rate(self) -> float:
        """Completed units per second."""
        return self.done / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, Any]:
        """p50/p99 in ms, counts, errors (the ``details`` of a result row)."""
        return {
            "done": self.done,
            "p50_ms": round(percentile(self.latencies, 0.5) * 1000, 2),
            "p99_ms": round(percentile(self.latencies, 0.99) * 1000, 2),
            "mean_ms": round(statistics.fmean(self.latencies) * 1000, 2) if self.latencies else 0.0,
            "errors": sum(self.errors.values()),
            **({"error_kinds": dict(self.errors.most_common(3))} if self.errors else {}),
        }


Body = Callable[[int], Awaitable[None]]


def error_kind(error: BaseException) -> str:
    """How a failure is counted: ``http_<status>`` for a refusal, else the exception's type."""
    return f"http_{error.status}" if isinstance(error, Refused) else type(error).__name__


# However busy the machine, a run goes on past its window until this many units are measured
# (or OVERTIME more seconds pass): a rate of 0 would say "broken" when it only means "slow".
MIN_UNITS = 3
OVERTIME = 30.0


async def closed_loop(body: Body, loops: int, seconds: float, warmup: float = 0.0, pace: float = 0.0) -> Tally:
    """Run ``body(loop_index)`` in ``loops`` concurrent loops; measure for ``seconds`` after ``warmup``.

    Units that start inside the window count, however late they end (a slow server still yields
    numbers); the rate divides by the window stretched to the last such unit's end.

    ``pace`` > 0 starts each loop's units ``pace`` seconds apart (an open rate of ``loops / pace``
    per second; a late unit starts at once), for latency at a chosen load below saturation.
    """
    tally = Tally()
    start = time.perf_counter()
    measure_from = start + warmup
    stop_at = measure_from + seconds
    last_end = stop_at

    async def run(index: int) -> None:
        nonlocal last_end
        next_start = time.perf_counter() + (pace * index / loops if pace else 0.0)
        while True:
            now = time.perf_counter()
            if pace and next_start > now:
                await asyncio.sleep(next_start - now)
            began = time.perf_counter()
            if began >= stop_at and (tally.done >= MIN_UNITS or began >= stop_at + OVERTIME):
                return
            next_start = max(next_start + pace, began) if pace else began
            try:
                await body(index)
            except Exception as error:  # counted, never raised: the run reports failures as numbers
                if began >= measure_from:
                    tally.errors[error_kind(error)] += 1
                continue
            ended = time.perf_counter()
            if began >= measure_from:
                tally.latencies.append(ended - began)
                last_end = max(last_end, ended)

    await asyncio.gather(*(run(i) for i in range(loops)))
    tally.seconds = last_end - measure_from
    return tally


class Refused(Exception):
    """An answer with an error status (counted by :func:`closed_loop` under ``Refused``)."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"{status}: {body[:200]}")
        self.status = status


class Metered(Protocol):
    """Anything whose CPU seconds so far can be read (``bench.procs.Child``, ``bench.procs.Meter``)."""

    def cpu(self) -> float: ...


async def metered_loop(
    children: Sequence[Metered], body: Body, loops: int, seconds: float, warmup: float
) -> tuple[Tally, list[float]]:
    """A closed-loop run, and the CPU seconds each child used while it measured, then this
    process's own (the client's: it shares the cores, and one process can be the bottleneck).

    The warm-up runs as a loop of its own before the CPU is read, so CPU per unit divides the
    measuring window's CPU by the units measured in it.
    """
    if warmup:
        await closed_loop(body, loops, warmup)
    before, client_before = [child.cpu() for child in children], time.process_time()
    tally = await closed_loop(body, loops, seconds)
    used = [child.cpu() - cpu for child, cpu in zip(children, before, strict=True)]
    return tally, [*used, time.process_time() - client_before]


async def metered_round(
    children: dict[str, Metered], body: Body, loops: int, seconds: float, warmup: float = 0.0
) -> dict[str, float]:
    """One side's round of paired rounds (:func:`bench.checkouts.take_turns`): a :func:`metered_loop`
    of ``body``, answered as CPU ms per unit of each named child and of all (``cpu_ms``), with the
    units done and the errors."""
    tally, used = await metered_loop(list(children.values()), body, loops, seconds, warmup)
    servers = used[: len(children)]  # the last is this process's own (the client's): not the servers'
    per_unit = {
        name: cpu * 1000 / tally.done if tally.done else 0.0 for name, cpu in zip(children, servers, strict=True)
    }
    return {"cpu_ms": sum(per_unit.values()), **per_unit, "done": tally.done, "errors": sum(tally.errors.values())}
