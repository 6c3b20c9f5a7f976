"""Each process's ``/metrics`` endpoint: only the families the process owns, optionally behind a
bearer token.

* **Ownership.**  Every process imports more than it runs (the conductor imports the rules
  service, the webhook dispatcher the game store), and ``prometheus_client`` registers a
  family in the default registry on import, so a plain endpoint would export other processes'
  families, empty or (worse) counted a second time.  :func:`process_registry` renders the
  default registry (or a multiprocess sum) keeping only the families a predicate admits; each
  process says which are its own (see ``docs/concepts/metrics.md``).
* **Token.**  With ``CHAIWALA_METRICS_TOKEN`` set, a scrape needs ``Authorization: Bearer
  <token>`` (401 without it, compared in constant time); ``/healthz`` always answers 200 so that
  liveness probes need no secret.  Unset, the endpoint is open, as before.
"""

from __future__ import annotations

import hmac
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import REGISTRY, CollectorRegistry, make_wsgi_app
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

Keep = Callable[[str], bool]
HEALTH_PATH = "/healthz"


def family_names(collectors: Iterable[Collector]) -> frozenset[str]:
    """The family names of ``collectors`` (a counter's without ``_total``, as a registry yields it)."""
    return frozenset(family.name for collector in collectors for family in collector.describe())  # type: ignore[attr-defined]


class _Filtered(Collector):
    """The families of ``source`` that ``keep`` admits."""

    def __init__(self, source: CollectorRegistry, keep: Keep) -> None:
        self.source = source
        self.keep = keep

    def collect(self) -> Iterator[Metric]:
        """The admitted families, at scrape time."""
        for family in self.source.collect():
            if self.keep(family.name):
                yield family


def process_registry(keep: Keep, source: CollectorRegistry = REGISTRY) -> CollectorRegistry:
    """A registry that renders only the families of ``source`` whose name ``keep`` admits."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Filtered(source, keep))
    return registry


def authorised(header: str, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (always, when no token is set)."""
    if not token:
        return True
    scheme, _, given = header.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def guarded_app(registry: CollectorRegistry, token: str) -> Callable[..., Any]:
    """The WSGI app of a metrics endpoint: ``/healthz`` open, the rest behind ``token`` if set."""
    metrics_app = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH:
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok\n"]
        if not authorised(str(environ.get("HTTP_AUTHORIZATION", "")), token):
            start_response("401 Unauthorized", [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")])
            return [b"metrics need a bearer token\n"]
        answer: Iterable[bytes] = metrics_app(environ, start_response)
        return answer

    return app


IDLE_POLL_SECONDS = 60.0


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not worth a line each."""


def serve_metrics_http(port: int, addr: str, registry: CollectorRegistry, token: str = "") -> WSGIServer:
    """Serve ``registry`` on ``addr:port`` (IPv4 or IPv6, as ``addr`` resolves) in a daemon thread
    (see the module docstring)."""
    family = socket.getaddrinfo(addr, port, type=socket.SOCK_STREAM)[0][0]
    server_class = type("MetricsServer", (_Server,), {"address_family": family})
    app = guarded_app(registry, token)
    server: WSGIServer = make_server(addr, port, app, server_class, handler_class=_QuietHandler)
    # serve_forever wakes every poll_interval (0.5 s by default) only to see whether shutdown()
    # was called: twice a second in every process at rest.  A scrape wakes it at once whatever
    # the interval; nothing shuts it down (the daemon thread ends with the process), and a caller
    # that did would wait up to a minute.
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": IDLE_POLL_SECONDS}, daemon=True,
                     name="metrics").start()  # fmt: skip
    return server


# Every process's own runtime families (prometheus_client's process, platform and GC collectors)
# and its Redis outage watch (services.common.outage).
RUNTIME_PREFIXES = ("process_", "python_", "chaiwala_store_")


def keep_prefixes(*prefixes: str) -> Keep:
    """Admit the families whose names start with one of ``prefixes`` (and the runtime's)."""
    wanted = (*prefixes, *RUNTIME_PREFIXES)
    return lambda name: name.startswith(wanted)


def keep_all_but(names: Iterable[str], prefixes: tuple[str, ...] = ()) -> Keep:
    """Admit every family except ``names`` and those starting with one of ``prefixes``."""
    dropped = frozenset(names)
    return lambda name: name not in dropped and not (prefixes and name.startswith(prefixes))
