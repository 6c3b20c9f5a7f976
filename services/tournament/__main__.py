"""``python -m services.tournament``: run the tournament director until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio

from services.common.daemon import require_redis, run_daemon, work_until_stopped
from services.common.exposure import check_exposure
from services.common.logs import get_logger
from services.common.metrics_http import keep_prefixes
from services.tournament.server import DirectorSettings, RunningDirector

log = get_logger("tournament")


async def serve(settings: DirectorSettings) -> None:
    """Direct until asked to stop."""
    require_redis(settings)
    check_exposure("the tournament director", settings.grpc_host, bool(settings.api_key_set()),
                   settings.insecure_open, log)  # fmt: skip
    running = RunningDirector(settings)
    await running.start()
    # Tournaments, ratings and its own RPCs: no game series (the rules services and conductor export those).
    families = keep_prefixes("chaiwala_tournament", "chaiwala_ratings_", "chaiwala_rpc_")
    # Its loops run inside ``running``; the process waits for the signal, then stops them (and its server).
    await work_until_stopped(settings, log, "directing", families, asyncio.Event.wait, server=None,
                             closers=(running.stop,), port=running.port)


def main() -> None:
    """Entry point."""
    run_daemon(DirectorSettings(), serve)


if __name__ == "__main__":
    main()
