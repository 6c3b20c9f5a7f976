"""A TCP proxy whose open connections can be cut at once, as a flaky network drops them.

The browser talks to the gateway through it (same origin for the page and the API), so a
cut drops a live event stream mid-way exactly as a lost Wi-Fi would; new connections pass
again right away.  It remembers the head (request line and headers) of every request that
went through, so a test can see that a reconnecting ``EventSource`` sent ``Last-Event-ID``.
"""

from __future__ import annotations

import socket
import threading
from contextlib import suppress

HEAD_BYTES = 8192


class CutProxy:
    """Forwards 127.0.0.1:<port> to ``upstream_port``; :meth:`cut` closes every open connection."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.heads: list[bytes] = []
        self.cuts = 0
        self.running = True
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def origin(self) -> str:
        """scheme://host:port through the proxy."""
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while self.running:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.open += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        with suppress(OSError):
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if from_client and b"\r\n\r\n" in data[:HEAD_BYTES]:
                    with self.lock:
                        self.heads.append(data[: data.index(b"\r\n\r\n")])
                sink.sendall(data)
        for end in (source, sink):
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def cut(self) -> int:
        """Drop every open connection (both directions); returns how many were open."""
        with self.lock:
            dropped, self.open = self.open, []
            self.cuts += 1
        for end in dropped:
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        return len(dropped) // 2

    def request_heads(self, path_part: str) -> list[str]:
        """The heads of requests whose request line contains ``path_part``, decoded."""
        with self.lock:
            heads = list(self.heads)
        return [h.decode("latin-1") for h in heads if path_part.encode() in h.split(b"\r\n", 1)[0]]

    def stop(self) -> None:
        """Stop accepting and drop what is open."""
        self.running = False
        self.listener.close()
        self.cut()
