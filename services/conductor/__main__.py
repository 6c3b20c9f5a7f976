"""``python -m services.conductor``: run one conductor until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import signal

from prometheus_client import start_http_server

from services.common.attention import LEASE_MS
from services.common.logs import configure_logging, get_logger
from services.common.settings import ServiceSettings
from services.common.store import GameStore
from services.conductor.conductor import Conductor
from services.retention import sweeper
from services.retention.policy import MODES, RetentionSettings

log = get_logger("conductor")


class ConductorSettings(ServiceSettings):
    """A rules service's settings (Redis, metrics port, logs) plus the claim lease."""

    # How long a claim holds a game; a conductor that dies delays its games this long at most.
    conductor_lease_ms: int = LEASE_MS
    # Worker processes computing search bots' moves (mcts levels) off the event loop; 0 = one thread.
    conductor_search_workers: int = 2


async def serve(settings: ConductorSettings) -> None:
    """Conduct until asked to stop, then finish the game at hand and exit."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set")
    store = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster)
    conductor = Conductor(
        store, lease_ms=settings.conductor_lease_ms, search_workers=settings.conductor_search_workers
    )
    start_http_server(settings.metrics_port, addr=settings.grpc_host)
    log.info("conducting", game_types=sorted(conductor.servicers), metrics_port=settings.metrics_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    retention = RetentionSettings()
    if retention.mode not in MODES:
        raise SystemExit(f"CHAIWALA_RETENTION_MODE must be one of {', '.join(MODES)}")
    await asyncio.gather(
        conductor.run(stop), conductor.report(stop), conductor.listen(stop), sweeper.run(store, retention, stop)
    )
    log.info("stopped")
    await store.close()


def main() -> None:
    """Entry point."""
    settings = ConductorSettings()
    configure_logging(settings.log_format, settings.log_level)
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
