"""Plain HTTP servers the tests run on 127.0.0.1: pages from another origin, an issuer's JWKS, a
webhook receiver, a push service.  One way to start one, answer a request and stop it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Handle = Callable[[BaseHTTPRequestHandler], None]


def serve(handlers: dict[str, Handle], port: int = 0) -> ThreadingHTTPServer:
    """A quiet threading server on 127.0.0.1:``port`` (0: a free one) that passes each request to
    ``handlers[method]`` (405 for another method), serving from a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        def _dispatch(self) -> None:
            handle = handlers.get(self.command)
            if handle is None:
                self.send_error(405)
                return
            handle(self)

        do_GET = do_POST = _dispatch

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the tests read what arrived, not an access log

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def answer(request: BaseHTTPRequestHandler, status: int, body: bytes = b"", content_type: str = "") -> None:
    """Answer ``status`` with ``body`` (of ``content_type``, when given)."""
    request.send_response(status)
    if content_type:
        request.send_header("content-type", content_type)
    request.send_header("content-length", str(len(body)))
    request.end_headers()
    if body:
        request.wfile.write(body)


def shut(server: ThreadingHTTPServer) -> None:
    """Stop serving and close the listening socket."""
    server.shutdown()
    server.server_close()
