"""Run the gateway: ``python -m gateway``."""

from __future__ import annotations

import uvicorn

from gateway.app import create_app
from gateway.settings import GatewaySettings
from services.common.logs import configure_logging


def main() -> None:
    """Serve the gateway with uvicorn on the configured host and port."""
    settings = GatewaySettings()
    configure_logging(settings.log_format, settings.log_level)
    uvicorn.run(
        create_app(settings),
        host=settings.http_host,
        port=settings.http_port,
        log_level=settings.log_level,
        access_log=False,
        timeout_graceful_shutdown=5,
    )


if __name__ == "__main__":
    main()
