"""The start-up every background process shares (the table of processes: :mod:`services.processes`).

``python -m services.<process>`` reads its settings, configures logging, runs its ``serve``
coroutine, and inside it: refuses to start without Redis, serves Prometheus metrics on the
settings' port and host, logs that it runs, and waits for SIGTERM/SIGINT on one
:class:`asyncio.Event` (set once, so every loop of the process stops at its next check).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar

from grpc import aio

from services.common.logs import configure_logging
from services.common.loops import run_loop
from services.common.metrics_http import Keep, process_registry, serve_metrics_http
from services.common.sealing import require_keyring
from services.common.settings import ServiceSettings

SettingsT = TypeVar("SettingsT", bound=ServiceSettings)


def require_redis(settings: ServiceSettings) -> None:
    """Exit with a clear message when no Redis is configured, when its URL carries no password
    (services.common.settings), or when no master key ring seals the secrets kept there
    (services.common.sealing)."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set (make run starts an embedded Redis and sets it)")
    refusal = settings.redis_auth_refusal()
    if refusal:
        raise SystemExit(refusal)
    require_keyring()


def serve_metrics(settings: ServiceSettings, log: Any, event: str, keep: Keep, **fields: Any) -> asyncio.Event:
    """Serve the metrics families ``keep`` admits (behind the settings' metrics token, if any),
    log ``event`` (with the metrics port and ``fields``), and return the stop event that SIGTERM
    or SIGINT sets (call it inside the running loop)."""
    serve_metrics_http(settings.metrics_port, settings.grpc_host, process_registry(keep), settings.metrics_token)
    log.info(event, metrics_port=settings.metrics_port, metrics_protected=bool(settings.metrics_token), **fields)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def work_until_stopped(
    settings: ServiceSettings,
    log: Any,
    event: str,
    keep: Keep,
    work: Callable[[asyncio.Event], Awaitable[object]],
    *,
    server: aio.Server | None,
    closers: Iterable[Callable[[], Awaitable[object]]],
    **fields: Any,
) -> None:
    """The life of a process that serves gRPC beside its loops: :func:`serve_metrics` (logging
    ``event`` with ``fields``), ``work(stop)`` until SIGTERM/SIGINT ends it, then log ``stopping``,
    drain ``server``'s calls (5 s grace) and run ``closers`` in order (the loops' own, Redis last)."""
    stop = serve_metrics(settings, log, event, keep, **fields)
    await work(stop)
    log.info("stopping")
    if server is not None:
        await server.stop(grace=5)
    for close in closers:
        await close()


def run_daemon(settings: SettingsT, serve: Callable[[SettingsT], Coroutine[Any, Any, None]]) -> None:
    """Configure logging from ``settings`` and run ``serve(settings)`` until it returns."""
    configure_logging(settings.log_format, settings.log_level)
    run_loop(serve(settings))
