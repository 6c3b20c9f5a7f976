"""``python -m services.tournament``: run the tournament director until SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import signal

from prometheus_client import start_http_server

from services.common.exposure import check_exposure
from services.common.logs import configure_logging, get_logger
from services.tournament.server import DirectorSettings, RunningDirector

log = get_logger("tournament")


async def serve(settings: DirectorSettings) -> None:
    """Direct until asked to stop."""
    if not settings.redis_url:
        raise SystemExit("REDIS_URL is not set")
    check_exposure("the tournament director", settings.grpc_host, bool(settings.api_key_set()),
                   settings.insecure_open, log)  # fmt: skip
    running = RunningDirector(settings)
    await running.start()
    start_http_server(settings.metrics_port, addr=settings.grpc_host)
    log.info("directing", port=running.port, metrics_port=settings.metrics_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping")
    await running.stop()


def main() -> None:
    """Entry point."""
    settings = DirectorSettings()
    configure_logging(settings.log_format, settings.log_level)
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
