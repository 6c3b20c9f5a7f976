"""``python -m services.conductor``: run one conductor until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio

from services.common.attention import LEASE_MS
from services.common.daemon import require_redis, run_daemon, serve_metrics
from services.common.logs import get_logger
from services.common.outage import StoreWatch
from services.common.settings import ServiceSettings
from services.conductor.conductor import Conductor
from services.games.legacy import shard_legacy_indexes
from services.games.store import GameStore
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
    require_redis(settings)
    retention = RetentionSettings()
    if retention.mode not in MODES:
        raise SystemExit(f"CHAIWALA_RETENTION_MODE must be one of {', '.join(MODES)}")
    store = GameStore.from_url(settings.redis_url, cluster=settings.redis_cluster)
    watch = StoreWatch(log)  # one per process: its loops share what they learn about Redis
    moved = await shard_legacy_indexes(store.redis)
    if moved:
        log.info("legacy_indexes_sharded", members=moved)
    conductor = Conductor(
        store,
        lease_ms=settings.conductor_lease_ms,
        watch=watch,
        search_workers=settings.conductor_search_workers,
    )
    stop = serve_metrics(settings, log, "conducting", game_types=sorted(conductor.plays))
    await asyncio.gather(
        conductor.run(stop), conductor.report(stop), conductor.listen(stop), sweeper.run(store, retention, stop, watch)
    )
    log.info("stopped")
    await store.close()


def main() -> None:
    """Entry point."""
    run_daemon(ConductorSettings(), serve)


if __name__ == "__main__":
    main()
