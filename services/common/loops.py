"""The event loop every Chaiwala process runs on: uvloop.

The gateway already ran on it (uvicorn picks uvloop when it is installed); the rules services and
the background processes ran on asyncio's own selector loop.  Under the REST move loop the rules
service spent about a sixth less CPU per move on uvloop (docs/lab/speed.md, 2026-12-06 fifth
sitting): gRPC's aio layer wakes the loop several times per call, and every wake-up, socket
write and callback is cheaper in uvloop's C loop.  ``grpc.aio`` supports uvloop.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a new uvloop event loop (as :func:`asyncio.run` does on asyncio's)."""
    return uvloop.run(main)
