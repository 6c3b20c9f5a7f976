"""Redis call tracing for ``make two-hosts`` (on with ``CHAIWALA_TWO_HOSTS_TRACE=1``; a measurement aid).

Put first on a service's ``PYTHONPATH`` by tests/support/two_hosts.py, this wraps redis-py's
Redis Cluster client so every slot-map refresh, every node command that failed or took over
``SLOW`` seconds, and every client call slower than ``SLOW`` is written as one JSON line (wall-clock
time, process, what, node, command, seconds, outcome) to ``$CHAIWALA_VAR_DIR/redis-trace.jsonl``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

SLOW = 0.5

# What a timed call reports as it ends: the receiver, the positional arguments, when the call
# began and how many seconds it took (by the caller's clock), and "ok" or the exception's class.
Report = Callable[[Any, tuple[Any, ...], float, float, str], None]


def timed_call(
    original: Callable[..., Awaitable[Any]], report: Report, clock: Callable[[], float]
) -> Callable[..., Awaitable[Any]]:
    """``original`` (an async method) wrapped so that each call, however it ends, is reported
    (also used by tests/twohosts/probe.py, which reports into a list with its own clock)."""

    async def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        began = clock()
        outcome = "ok"
        try:
            return await original(self, *args, **kwargs)
        except BaseException as error:
            outcome = type(error).__name__
            raise
        finally:
            report(self, args, began, clock() - began, outcome)

    return wrapper


def _install() -> None:
    from redis.asyncio import cluster

    path = os.path.join(os.environ.get("CHAIWALA_VAR_DIR", "/tmp"), "redis-trace.jsonl")

    def write(record: dict[str, Any]) -> None:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def timed(what: str, original: Callable[..., Awaitable[Any]], always: bool) -> Callable[..., Awaitable[Any]]:
        def report(node: Any, args: tuple[Any, ...], began: float, took: float, outcome: str) -> None:
            if always or took > SLOW or outcome not in ("ok", "NoScriptError", "CancelledError"):
                command = str(args[0])[:40] if args and what != "refresh" else ""
                write(
                    {
                        "wall": round(time.time() - took, 3),
                        "pid": os.getpid(),
                        "what": what,
                        "node": getattr(node, "name", ""),
                        "command": command,
                        "took": round(took, 3),
                        "outcome": outcome,
                    }
                )

        return timed_call(original, report, time.monotonic)

    cluster.NodesManager.initialize = timed("refresh", cluster.NodesManager.initialize, True)  # type: ignore[method-assign]
    cluster.ClusterNode.execute_command = timed("node", cluster.ClusterNode.execute_command, False)  # type: ignore[method-assign]
    cluster.RedisCluster.execute_command = timed("call", cluster.RedisCluster.execute_command, False)  # type: ignore[method-assign]
    cluster.ClusterPipeline.execute = timed("pipeline", cluster.ClusterPipeline.execute, False)  # type: ignore[method-assign]


if os.environ.get("CHAIWALA_TWO_HOSTS_TRACE") == "1":
    _install()
