"""The ``sse`` suite's floor: a bare asyncio server writing the same event bytes to the same listeners.

What can this machine physically do for one move and N listeners?  Each worker of this server
(as many as the gateway runs, sharing one port with ``SO_REUSEPORT`` as the gateway's do) answers
``GET`` with the headers of a chunked ``text/event-stream`` and keeps the socket (32 KiB send
buffer, as the gateway's SSE sockets).  On a private control connection per worker, the driver
hands it a move's SSE bytes (the very frames the gateway sent for that game's moves); the worker
frames them as one HTTP chunk and writes them to each of its listeners with one ``transport.write``
each, on uvloop when installed (uvicorn's loop), then acknowledges.  No routing, no gRPC, no
Redis, no rules: the latency from "bytes handed over" to "the listener's ``recv`` returned" is
the fan-out's floor on these cores, measured by the same listener processes
(:mod:`bench.sse_listeners`) in the same run as the gateway's figure.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import resource
import socket
import struct
from multiprocessing.connection import Connection
from typing import Any

from bench.procs import cpu_seconds
from gateway.sse_socket import STREAM_SEND_BUFFER, frame
from services.common.embedded_redis import free_port

HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-store\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
START_SECONDS = 30.0


class _Stream(asyncio.Protocol):
    """One listener: its request head, then the stream's chunks (of every topic, or of its path's)."""

    def __init__(self, listeners: set[Any], topics: dict[bytes, set[Any]]) -> None:
        self.listeners = listeners
        self.topics = topics
        self.topic = b""
        self.head = b""
        self.transport: Any = None  # uvloop's transports are no asyncio.Transport subclass

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)

    def data_received(self, data: bytes) -> None:
        if self.transport is None or self.transport in self.listeners:
            return
        self.head += data
        if b"\r\n\r\n" in self.head:
            self.transport.write(HEAD)
            self.listeners.add(self.transport)
            self.topic = self.head.split(b" ", 2)[1]
            self.topics.setdefault(self.topic, set()).add(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.listeners.discard(self.transport)
            self.topics.get(self.topic, set()).discard(self.transport)


async def _control(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, listeners: set[Any],
                   topics: dict[bytes, set[Any]]) -> None:  # fmt: skip
    """Each message: 4-byte length, 2-byte topic length, the topic (a request path; empty: every
    listener), the SSE bytes; written to the topic's listeners, then one byte back."""
    while True:
        try:
            size, length = struct.unpack("!IH", await reader.readexactly(6))
            topic = await reader.readexactly(length)
            data = await reader.readexactly(size)
        except asyncio.IncompleteReadError:
            return
        framed = frame(data)
        for transport in list(topics.get(topic, ()) if topic else listeners):
            if not transport.is_closing():
                transport.write(framed)
        writer.write(b"k")


async def _worker(port: int, report: Connection) -> None:
    loop = asyncio.get_running_loop()
    listeners: set[Any] = set()
    topics: dict[bytes, set[Any]] = {}
    shared = socket.socket()
    shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    shared.bind(("127.0.0.1", port))
    server = await loop.create_server(lambda: _Stream(listeners, topics), sock=shared, backlog=4096)

    async def control(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _control(reader, writer, listeners, topics)
        done.set()

    done = asyncio.Event()
    controller = await asyncio.start_server(control, "127.0.0.1", 0)
    report.send(controller.sockets[0].getsockname()[1])
    await done.wait()
    server.close()
    controller.close()


def _worker_main(port: int, report: Connection) -> None:
    with contextlib.suppress(ValueError, OSError):  # as the gateway: the hard open-file limit
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(_worker(port, report))


class FloorServer:
    """``workers`` bare server processes on one port; :meth:`publish` hands bytes to all of them."""

    def __init__(self, workers: int) -> None:
        self.port = free_port()
        self.workers = max(1, workers)
        self.processes: list[Any] = []
        self.controls: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def start(self) -> None:
        """Start the workers and connect to each one's control port."""
        context = multiprocessing.get_context("spawn")
        for _ in range(self.workers):
            ours, theirs = context.Pipe()
            process = context.Process(target=_worker_main, args=(self.port, theirs), daemon=True)
            process.start()
            self.processes.append(process)
            if not await asyncio.to_thread(ours.poll, START_SECONDS):
                raise RuntimeError("the floor server did not start")
            self.controls.append(await asyncio.open_connection("127.0.0.1", ours.recv()))

    async def publish(self, data: bytes, topic: str = "") -> None:
        """Every worker writes ``data`` to each of its listeners of ``topic`` (a request path; "":
        all of them), sent to all workers first."""
        path = topic.encode()
        message = struct.pack("!IH", len(data), len(path)) + path + data
        for _, writer in self.controls:
            writer.write(message)
        for reader, _ in self.controls:
            await reader.readexactly(1)

    def cpu(self) -> float:
        """CPU seconds the workers used so far."""
        return sum(cpu_seconds(process.pid) for process in self.processes)

    async def stop(self) -> None:
        """Close the control connections (each worker exits), then reap the processes."""
        for _, writer in self.controls:
            writer.close()
        for process in self.processes:
            await asyncio.to_thread(process.join, 5)
            if process.is_alive():
                process.kill()


def worker_sockets(pids: list[int]) -> dict[int, int]:
    """How many sockets each process holds open (for the spread of listeners over workers)."""
    counts = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            counts[pid] = sum(1 for fd in os.listdir(f"/proc/{pid}/fd") if _is_socket(pid, fd))
    return counts


def _is_socket(pid: int, fd: str) -> bool:
    try:
        return os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
    except OSError:
        return False
