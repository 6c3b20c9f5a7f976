"""The gateway's edge: its own metrics registry and the middleware that feeds it."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.types import Message as AsgiMessage

from gateway.problems import Problem, bad_lang, problem_response, request_language
from gateway.route_table import route_template
from services.common.gcpolicy import threshold_gauge
from services.common.logs import get_logger
from services.common.metrics import Children

log = get_logger("gateway")
# Recorded as the status of a request whose client went away before it was answered (as nginx does).
CLIENT_CLOSED = 499
# What a client hanging up looks like from inside a handler: not an error of ours.
DISCONNECTS: tuple[type[BaseException], ...] = (ClientDisconnect, ConnectionError)


class Metrics:
    """The gateway's own Prometheus registry (separate from any in-process services)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "chaiwala_http_requests", "HTTP requests", ["method", "route", "status"], registry=self.registry
        )
        self.duration = Histogram(
            "chaiwala_http_request_duration_seconds",
            "HTTP request latency",
            ["method", "route"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )
        # Read when the app is made: python -m gateway tunes the collector before (gateway/__main__.py).
        self.gc_threshold = threshold_gauge(self.registry)


def _route_label(scope: Scope) -> str:
    """The route template a request is counted under: the route it reached, or, for one refused
    before routing (a 429 of the limits), the route it asked for; ``unmatched`` when none fits."""
    reached = getattr(scope.get("route"), "path", None)
    if reached:
        return str(reached)
    app = scope.get("app")
    asked = route_template(app.routes, scope["method"], scope["path"]) if app is not None else None
    return asked or "unmatched"


def add_vary(headers: list[tuple[bytes, bytes]], varies: list[int], name: bytes) -> None:
    """Add ``name`` to a raw header list's ``Vary``, joining its ``vary`` lines (at ``varies``) into one."""
    joined = b", ".join([*(headers[index][1] for index in varies), name])
    for index in reversed(varies[1:]):
        del headers[index]
    if varies:
        headers[varies[0]] = (b"vary", joined)
    else:
        headers.append((b"vary", joined))


def _localized(start: AsgiMessage, language: bytes) -> None:
    """Say the answer's language (unless the route did) and that it varies with ``Accept-Language``.

    On the raw list, with what ``MutableHeaders`` would do (``content-language`` appended when
    absent; the ``vary`` values joined into the first one with ``Accept-Language`` added, the others
    dropped), without building it for every answer."""
    headers = list(start["headers"])
    varies: list[int] = []
    spoken = False
    for index, (name, _value) in enumerate(headers):
        if name == b"vary":
            varies.append(index)
        elif name == b"content-language":
            spoken = True
    if not spoken:
        headers.append((b"content-language", language))
    if not varies or b"accept-language" not in headers[varies[0]][1].lower():
        add_vary(headers, varies, b"Accept-Language")
    start["headers"] = headers


class EdgeMiddleware:
    """Counts and times every request by route template, and is the last resort for crashes.

    Pure ASGI, so SSE streams pass through untouched.  An unexpected exception becomes
    a problem+json 500 here rather than reaching the server, which would drop the
    connection without an answer.
    """

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics
        # Each (method, route, status) child bound once: ``labels`` on every request is a lock and a lookup.
        self.requests = Children(metrics.requests)
        self.duration = Children(metrics.duration)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Time and count one HTTP request; turn anything that escaped into a problem+json 500."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: int | None = None  # set once the response has started
        # Every /v1 answer's sentences (`text`, names, a problem's detail) are in the language the
        # request chose; say which, unless the route said it already (the rules text, a problem), and
        # that a cache must key it by Accept-Language (``?lang=`` is in the URL already).
        language = request_language(scope).encode() if str(scope.get("path", "")).startswith("/v1/") else b""

        async def remember_status(message: AsgiMessage) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                if language:
                    _localized(message, language)
            await send(message)

        try:
            refused = bad_lang(scope)
            if refused is not None:
                await problem_response(refused, scope["path"], scope)(scope, receive, remember_status)
                return
            await self.app(scope, receive, remember_status)
        except DISCONNECTS:
            log.debug("client_disconnected", path=scope.get("path", ""))
            status = status or CLIENT_CLOSED
        except Exception:
            log.exception("request_failed", path=scope.get("path", ""))
            if status is not None:
                return
            response = problem_response(Problem(500, "internal", "internal error"), scope.get("path", ""), scope)
            await response(scope, receive, remember_status)
        finally:
            route = _route_label(scope)
            self.requests(scope["method"], route, str(status or 500)).inc()
            self.duration(scope["method"], route).observe(time.perf_counter() - started)
