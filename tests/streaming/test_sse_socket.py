"""The lean SSE write path (gateway.sse_socket) under a real uvicorn, read by a raw socket.

Under uvicorn a live SSE client's chunks go straight to its transport, past the ASGI stack; the
response start and the last chunk still go through it.  Checked here on the wire: the stream is
valid chunked HTTP with every event once and in order, the lean path was the one taken, and a
client that stops reading hands over to the waiting path (the ASGI ``send``) without a gap or a
repeat, until it is dropped with ``slow_consumer`` naming the last event it got.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from gateway.fanout import final_bytes
from gateway.sse_listener import Listener, LiveStream, Relayed
from gateway.sse_socket import frame
from services.streaming.mailbox import SlowConsumer
from tests.support.client import unchunk
from tests.support.uvicorn_thread import ServedApp

PADDING = 2000  # bytes per event, so a client that stops reading fills its socket soon


def _event(version: int, padding: int = 0) -> Relayed:
    data = orjson.dumps({"v": version, "pad": "x" * padding}).decode()
    return (version, 0), f"id: {version}:0\r\nevent: game_event\r\ndata: {data}\r\n\r\n".encode()


class Streams(ServedApp):
    """A real uvicorn serving one SSE route whose listeners the test drives from its own thread."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        super().__init__(send_buffer=4096)  # accepted sockets fill soon

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.loop = asyncio.get_running_loop()
        listener = Listener(8, (0, 0), final_bytes)
        self.listeners.append(listener)
        await LiveStream(listener, [_event(1)])(scope, receive, send)

    def call(self, work: Any) -> Any:
        """Run ``work()`` on the server's loop (where listeners live) and return what it returned."""
        assert self.loop is not None

        async def run() -> Any:
            return work()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)


@pytest.fixture
def streams() -> Iterator[Streams]:
    with Streams() as running:
        yield running


def _open(port: int) -> tuple[socket.socket, bytes]:
    client = socket.create_connection(("127.0.0.1", port), timeout=10)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.sendall(b"GET /events HTTP/1.1\r\nhost: test\r\naccept: text/event-stream\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        head += client.recv(4096)
    head, _, rest = head.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head.lower()
    return client, rest


def _read_all(client: socket.socket, rest: bytes) -> bytes:
    while not rest.endswith(b"0\r\n\r\n"):
        data = client.recv(65536)
        assert data, "the stream closed without its last chunk"
        rest += data
    return rest


def _ids(body: bytes) -> list[int]:
    return [int(line[4:].split(b":")[0]) for line in body.split(b"\r\n") if line.startswith(b"id: ")]


def _wait_listeners(streams: Streams, count: int) -> None:
    deadline = time.monotonic() + 10
    while len(streams.listeners) < count or streams.call(lambda: streams.listeners[-1].send is None):
        assert time.monotonic() < deadline, "the stream did not go live"
        time.sleep(0.01)


def test_live_chunks_go_straight_to_the_socket_and_the_stream_stays_valid_chunked_http(streams: Streams) -> None:
    client, rest = _open(streams.port)
    _wait_listeners(streams, 1)
    listener = streams.listeners[0]
    assert streams.call(lambda: listener.socket is not None)  # the lean path is the one in use
    batch = [_event(2), _event(3)]
    chunk = b"".join(data for _, data in batch)
    streams.call(lambda: listener.offer_batch(batch, chunk, frame(chunk)))
    streams.call(lambda: listener.offer(_event(3)))  # a repeat is never written
    streams.call(lambda: listener.offer(_event(4)))  # no framed bytes given: framed here
    streams.call(lambda: listener.close())
    body = unchunk(_read_all(client, rest))
    client.close()
    assert _ids(body) == [1, 2, 3, 4]
    assert body.endswith(b"event: end\r\ndata: {}\r\n\r\n")


def test_a_client_that_stops_reading_hands_over_to_the_waiting_path_then_is_dropped(streams: Streams) -> None:
    client, rest = _open(streams.port)
    _wait_listeners(streams, 1)
    listener = streams.listeners[0]
    offered, version = [], 2
    # The client reads nothing: the socket fills, the ASGI send waits, the backlog fills, then the drop.
    while streams.call(lambda v=version: listener.offer(_event(v, PADDING))) and version < 5000:
        offered.append(version)
        version += 1
    assert version < 5000, "the backlog never filled"
    assert streams.call(lambda: listener.writing is not None)  # the waiting path took over
    streams.call(lambda: listener.close(SlowConsumer("behind")))  # what the upstream does then
    body = unchunk(_read_all(client, rest))
    client.close()
    assert _ids(body) == [1, *offered]  # every event it took, once, in order
    error = orjson.loads(body.split(b"event: error\r\ndata: ", 1)[1].split(b"\r\n", 1)[0])
    assert error["code"] == "slow_consumer" and error["last_event_id"] == f"{offered[-1]}:0"
