"""A lean HTTP/1.1 client for latency rows: keep-alive connections, ``Content-Length`` bodies, nothing else.

Why not httpx: measured serially on this 2-core VM (one client, one game, quiet), a move (GET
legal-moves + POST moves) took 21 ms through ``httpx.AsyncClient`` and 12 ms through a raw socket,
against 12 ms of server CPU: httpx spends ~4 ms of CPU per request of its own, on the same two
cores as the servers.  A latency figure is the server's, so the latency rows (``rest``'s p99 at half
of saturation) use this client; the throughput ratios keep httpx on both sides (the move path and
the trivial endpoint pay the same client, as when the goal was set).

It speaks just what the gateway answers: one request at a time per connection, a response with
``Content-Length`` (the gateway's JSON and problem+json answers), kept alive.  The interface is the
part of httpx's that :class:`bench.rest_path.Players` uses (``get``/``post`` answering an object with
``status_code``, ``text`` and ``json()``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import orjson


@dataclass
class Answer:
    """A response: status and body."""

    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        """The body as text."""
        return self.content.decode(errors="replace")

    def json(self) -> Any:
        """The body as JSON."""
        return orjson.loads(self.content)

    def raise_for_status(self) -> None:
        """Raise on an error status, as httpx's does (:func:`bench.floor.floor_move` calls it)."""
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}: {self.text[:200]}")


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def exchange(self, head: bytes, body: bytes) -> tuple[Answer, bool]:
        """Send one request, read its answer; also whether the connection may be used again."""
        self.writer.write(head + body)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw[:-4].split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        headers = dict(line.lower().split(b": ", 1) for line in lines[1:] if b": " in line)
        if b"content-length" not in headers:
            raise ValueError(f"answer without Content-Length (status {status})")
        content = await self.reader.readexactly(int(headers[b"content-length"]))
        return Answer(status, content), headers.get(b"connection") != b"close"

    def close(self) -> None:
        self.writer.close()


class LeanClient:
    """Keep-alive connections to one ``host:port``, one request at a time on each."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.idle: list[_Connection] = []

    async def __aenter__(self) -> LeanClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for connection in self.idle:
            connection.close()
        self.idle.clear()

    async def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        """``GET path``."""
        return await self.request("GET", path, b"", headers or {})

    async def post(self, path: str, json: Any = None, headers: dict[str, str] | None = None) -> Answer:
        """``POST path`` with a JSON body."""
        return await self.request("POST", path, orjson.dumps(json), headers or {})

    async def request(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        """One request on an idle connection (or a new one); a broken one is not reused.

        A kept-alive connection the server closed meanwhile (its keep-alive timeout) is retried
        once on a new connection, as httpx does: the server read nothing of the request."""
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\n{extra}"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
        ).encode()
        while self.idle:
            connection = self.idle.pop()
            if connection.reader.at_eof():
                connection.close()
                continue
            try:
                return await self._exchange(connection, head, body)
            except asyncio.IncompleteReadError as error:
                if error.partial:
                    raise
        return await self._exchange(await self._connect(), head, body)

    async def _exchange(self, connection: _Connection, head: bytes, body: bytes) -> Answer:
        try:
            async with asyncio.timeout(self.timeout):
                answer, reusable = await connection.exchange(head, body)
        except BaseException:
            connection.close()
            raise
        if reusable:
            self.idle.append(connection)
        else:
            connection.close()
        return answer

    async def _connect(self) -> _Connection:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        return _Connection(reader, writer)
