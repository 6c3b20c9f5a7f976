"""A whole response leaves in one write (gateway.one_write), through a real uvicorn and raw sockets.

The app records the writes uvicorn's cycle makes to its connection's transport: a JSON answer is
one write, head and body together, and keep-alive and ``Connection: close`` behave as before; a
stream's head (no length) is not held back until its first chunk; a body in several messages
goes out as it comes.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.responses import JSONResponse

from gateway.sse_socket import RAW_SEND
from tests.support.uvicorn_thread import ServedApp


class Recorder:
    """The connection's transport, noting every write made through it."""

    def __init__(self, transport: Any, writes: list[bytes]) -> None:
        self.transport = transport
        self.writes = writes

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class Server(ServedApp):
    """A real uvicorn (the gateway's config) serving three routes whose writes are recorded."""

    def __init__(self) -> None:
        self.writes: list[list[bytes]] = []
        self.stream_may_go_on = threading.Event()
        super().__init__()

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        cycle = scope[RAW_SEND].__self__
        writes: list[bytes] = []
        self.writes.append(writes)
        cycle.transport = Recorder(cycle.transport, writes)
        if scope["path"] == "/json":
            await JSONResponse({"answer": 42})(scope, receive, send)
        elif scope["path"] == "/parts":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"6")]})
            await send({"type": "http.response.body", "body": b"abc", "more_body": True})
            await send({"type": "http.response.body", "body": b"def"})
        else:
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
            while not self.stream_may_go_on.is_set():  # the client must see the head before any chunk
                await asyncio.sleep(0.01)
            await send({"type": "http.response.body", "body": b"chunk"})


@pytest.fixture
def server() -> Iterator[Server]:
    with Server() as running:
        yield running


def _request(client: socket.socket, path: str, close: bool = False) -> None:
    extra = b"connection: close\r\n" if close else b""
    client.sendall(b"GET %s HTTP/1.1\r\nhost: test\r\n%s\r\n" % (path.encode(), extra))


def _answer(client: socket.socket, length: int) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < length:
        received = client.recv(65536)
        assert received, data
        data += received
    return data


def test_a_json_answer_is_one_write_and_keep_alive_and_close_still_work(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
        for close in (False, True):
            _request(client, "/json", close=close)
            answer = _answer(client, len(b'{"answer":42}'))
            assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"answer":42}')
        assert client.recv(65536) == b""  # closed after the answer that asked for it
    assert [len(writes) for writes in server.writes] == [1, 1]
    assert server.writes[0][0].startswith(b"HTTP/1.1 200") and server.writes[0][0].endswith(b'{"answer":42}')


def test_a_body_in_parts_goes_out_as_it_comes(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
        _request(client, "/parts")
        assert _answer(client, 6).endswith(b"\r\n\r\nabcdef")
    assert [part[-3:] for part in server.writes[0]][1:] == [b"abc", b"def"]


def test_a_stream_head_is_not_held_back(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
        _request(client, "/stream")
        head = b""
        while b"\r\n\r\n" not in head:  # arrives while the app still waits to send its first chunk
            head += client.recv(65536)
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head
        server.stream_may_go_on.set()
        body = head.partition(b"\r\n\r\n")[2]
        while not body.endswith(b"0\r\n\r\n"):
            body += client.recv(65536)
        assert b"chunk" in body
