"""``python -m services.conductor``: run one conductor until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio

from services.common.attention import LEASE_MS
from services.common.daemon import require_redis, run_daemon, serve_metrics
from services.common.logs import get_logger
from services.common.metrics import RULES_SERVICE_ONLY
from services.common.metrics_http import family_names, keep_all_but
from services.common.outage import StoreWatch
from services.common.settings import ServiceSettings
from services.conductor import game_facts
from services.conductor.conductor import Conductor, owner_name
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
    # The rules service's own families (its RPCs, seats' moves, lobby, live streams) stay its own:
    # the commits run here count into them too, but only the rules services export them.
    families = keep_all_but(family_names(RULES_SERVICE_ONLY), prefixes=("chaiwala_stream_",))
    # Before the first move: the games this conductor ends are counted (services.conductor.game_facts).
    counting = await game_facts.prepare(store.redis)
    stop = serve_metrics(settings, log, "conducting", families, game_types=sorted(conductor.plays))
    await asyncio.gather(
        conductor.run(stop),
        conductor.report(stop),
        conductor.listen(stop),
        sweeper.run(store, retention, stop, watch),
        game_facts.run(store.redis, owner_name(), stop, watch, ready=counting),
    )
    log.info("stopped")
    await store.close()


def main() -> None:
    """Entry point."""
    run_daemon(ConductorSettings(), serve)


if __name__ == "__main__":
    main()
