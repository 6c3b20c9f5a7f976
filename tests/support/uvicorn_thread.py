"""A real uvicorn with the gateway's configuration, serving a test's own ASGI app from a thread."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn

from gateway.server import uvicorn_config
from gateway.settings import GatewaySettings
from tests.support.stoppable import Stoppable


class UvicornThread:
    """``app`` served on an ephemeral port (``send_buffer``: accepted sockets' SO_SNDBUF; ``config``:
    uvicorn options over the gateway's) until :meth:`stop`."""

    def __init__(self, app: Any, send_buffer: int | None = None, **config: Any) -> None:
        self.sock = socket.socket()
        if send_buffer is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn_config(app, GatewaySettings(), **{"log_level": "warning", **config}))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        """Ask uvicorn to exit, wait for its thread, close the socket."""
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


class ServedApp(Stoppable):
    """A test's own ASGI app (the subclass's :meth:`app`) served by a :class:`UvicornThread` on
    :attr:`port` (a :class:`Stoppable`: ``with`` stops it). A subclass sets what its
    app reads before calling ``super().__init__``: the server answers as soon as it is made."""

    def __init__(self, send_buffer: int | None = None, **config: Any) -> None:
        self.served = UvicornThread(self.app, send_buffer, **config)
        self.port = self.served.port

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The ASGI app served."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop the server (see :meth:`UvicornThread.stop`)."""
        self.served.stop()
