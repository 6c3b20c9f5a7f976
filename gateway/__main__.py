"""Run the gateway: ``python -m gateway``."""

from __future__ import annotations

import uvicorn

from gateway.app import create_app
from gateway.server import uvicorn_config
from gateway.settings import GatewaySettings
from services.common.exposure import check_exposure, host_of, is_loopback
from services.common.logs import configure_logging, get_logger

log = get_logger("gateway")


def main() -> None:
    """Serve the gateway with uvicorn on the configured host and port."""
    settings = GatewaySettings()
    configure_logging(settings.log_format, settings.log_level)
    # Rules services on other hosts refuse to run open beyond loopback themselves; ones on this
    # host's loopback are only as safe as this gateway's bind.
    remote = all(not is_loopback(host_of(address)) for address in settings.service_addresses().values())
    guarded = bool(settings.api_keys.strip()) or remote
    check_exposure("the gateway", settings.http_host, guarded, settings.insecure_open, log)
    grace = settings.shutdown_grace_seconds  # open SSE streams are closed after this, never wait forever
    server = uvicorn.Server(uvicorn_config(create_app(settings), settings, timeout_graceful_shutdown=grace))
    server.run()


if __name__ == "__main__":
    main()
