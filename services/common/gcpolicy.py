"""The garbage collector's pace in the long-running servers (the gateway, the rules services).

A process holding thousands of open streams holds millions of objects the collector tracks (each
stream's request, gRPC call, tasks, buffers).  With CPython's default thresholds (700, 10, 10) a
full collection ran every few seconds once objects kept surviving the young generations, and each
one walked every object with the loop stopped: 0.6-0.8 s at 5,000-10,000 player streams, in the
gateway and in the rules process holding them, which is what slowed every move while 10,000 players
were connected (docs/lab/many-listeners.md, "the cause").  Young collections now run every
:data:`YOUNG` allocations (short-lived objects die before one comes, so fewer are promoted), and a
full one is considered only after :data:`FULL_AFTER` middle ones; the objects of start-up (modules,
settings, compiled renderers) are frozen out of every collection.  Reference counting still frees
everything without a cycle at once; cycles that reach the oldest generation wait longer.

Both servers export the thresholds they serve with (:func:`threshold_gauge`), so what a running
process does can be read from outside (``chaiwala_gc_threshold{generation}`` on its metrics).
"""

from __future__ import annotations

import gc

from prometheus_client import CollectorRegistry, Gauge

YOUNG = 50_000  # allocations (less deallocations) between young collections; CPython's default is 700
MIDDLE_AFTER = 20  # young collections per middle one (default 10)
FULL_AFTER = 100  # middle collections before a full one is considered (default 10)


def tune_gc() -> tuple[int, int, int]:
    """Set the thresholds above and freeze what start-up made; answer the thresholds now in force."""
    gc.collect()  # what start-up left as garbage goes now, before the rest is frozen
    gc.freeze()
    gc.set_threshold(YOUNG, MIDDLE_AFTER, FULL_AFTER)
    return gc.get_threshold()  # type: ignore[return-value]


def threshold_gauge(registry: CollectorRegistry) -> Gauge:
    """``chaiwala_gc_threshold{generation="0"|"1"|"2"}`` in ``registry``: the collector's thresholds
    this process serves with, read now (so after :func:`tune_gc`); over a group's live workers, the
    lowest (an untuned worker shows CPython's defaults)."""
    gauge = Gauge(
        "chaiwala_gc_threshold",
        "Garbage collector thresholds this process serves with (services.common.gcpolicy)",
        ["generation"],
        registry=registry,
        multiprocess_mode="livemin",
    )
    for generation, value in enumerate(gc.get_threshold()):
        gauge.labels(generation=str(generation)).set(value)
    return gauge
