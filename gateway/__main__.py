"""Run the gateway: ``python -m gateway``."""

from __future__ import annotations

import socket

from gateway.app import create_app
from gateway.server import QuietServer, uvicorn_config
from gateway.settings import GatewaySettings
from services.common import workers
from services.common.exposure import check_exposure, host_of, is_loopback
from services.common.fdlimit import raise_open_files
from services.common.gcpolicy import tune_gc
from services.common.logs import configure_logging, get_logger

log = get_logger("gateway")


def main() -> None:
    """Serve the gateway with uvicorn on the configured host and port."""
    workers.join_group()  # a worker ends with its parent (services.common.workers)
    settings = GatewaySettings()
    configure_logging(settings.log_format, settings.log_level)
    soft, hard = raise_open_files()  # every SSE stream is a socket: the hard limit, not the soft 1024
    log.info("open_files", soft=soft, hard=hard)
    refusal = settings.redis_auth_refusal()  # a Redis that asks no password (services.common.settings)
    if refusal:
        raise SystemExit(refusal)
    # Rules services on other hosts refuse to run open beyond loopback themselves; ones on this
    # host's loopback are only as safe as this gateway's bind.
    remote = all(not is_loopback(host_of(address)) for address in settings.service_addresses().values())
    guarded = bool(settings.api_keys.strip()) or remote
    check_exposure("the gateway", settings.http_host, guarded, settings.insecure_open, log)
    count = workers.process_count(settings.http_workers)
    if count > 1 and not workers.is_worker():
        log.info("serving_group", workers=count, port=settings.http_port)
        raise SystemExit(workers.supervise(workers.start_workers(count, "gateway")))
    tune_gc()  # thousands of streams' objects: no full collection every few seconds (services.common.gcpolicy)
    grace = settings.shutdown_grace_seconds  # open SSE streams are closed after this, never wait forever
    server = QuietServer(uvicorn_config(create_app(settings), settings, timeout_graceful_shutdown=grace))
    if workers.is_worker():
        server.run(sockets=[shared_socket(settings.http_host, settings.http_port, settings.listen_backlog)])
    else:
        server.run()


def shared_socket(host: str, port: int, backlog: int = 4096) -> socket.socket:
    """A listening socket on ``host:port`` that the group's other workers bind too (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


if __name__ == "__main__":
    main()
