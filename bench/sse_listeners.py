"""The ``sse`` suite's listeners: processes of their own, raw sockets, one ``epoll`` loop each.

A listener in the benchmark's own asyncio process costs a task wake-up and a parse per event; a
thousand of them on the same two cores as the servers measured the client more than the gateway.
Here each :class:`ListenerGroup` is a child process that holds its share of the connections and
does as little as it can per arrival: one ``epoll`` wait, then for each readable socket one
``recv`` and a search for ``id: <version>:`` lines.  What one ``recv`` returned is stamped with the
time that ``recv`` returned: every byte of it had arrived by then.  (It was once stamped with the
time the wait returned, to leave out the client's own work on the batch.  But bytes that arrive
between the wait and the read come back in the same ``recv``: a child descheduled there, as under
a CPU hog, stamped an event sent after its wait with a time before the sending, which the many-
streams suites count as not delivered; the likely cause of three of 680 "missed" in one run of
the listeners' quick slice beside a busy loop.)  Clocks: ``time.perf_counter`` is ``CLOCK_MONOTONIC``,
shared by every process of the machine, so a child's stamps compare with the driver's send times.

The same client measures the baseline: in ``redis`` mode a child holds one raw RESP connection in a
blocking ``XREAD`` of a stream whose entries carry the same ``id:`` line, so the Redis floor and the
gateway are timed alike.  The driver learns progress through one shared integer per child (the
lowest version every open socket of the child has seen) and gets the stamps at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import re
import resource
import select
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from bench.procs import cpu_seconds

ID_LINE = re.compile(rb"\nid: (\d+):")
PROBLEM_CODE = re.compile(rb'"code":\s*"([a-z_]+)"')  # a refusal's problem+json code
BATCH = 100  # connections opened at a time by one child, each waiting for its headers
CONNECT_SECONDS = 30.0
TAIL = 32  # bytes kept per socket, so an id line split over two reads is still found
POLL_SECONDS = 0.05
NOBODY = 2**62  # the progress of a child with no open socket: it holds nobody up
SPAN = 2**32  # a pattern's two groups number an arrival as first * SPAN + second (see numbered)


@dataclass(frozen=True)
class Target:
    """Where a child connects and what it asks for."""

    port: int
    path: str = ""  # SSE: the events path; empty in redis mode
    stream: str = ""  # redis mode: the stream key to follow
    password: str = field(default="", repr=False)  # redis mode: Redis's password (AUTH first)
    # Many streams (bench.many_streams): listener n asks for paths[n] with the header line
    # headers[n] ("" for none), and each arrival is stamped once per (n, number found by pattern:
    # see numbered).
    paths: tuple[str, ...] = ()
    headers: tuple[str, ...] = field(default=(), repr=False)
    pattern: bytes = rb"\nid: (\d+):"


@dataclass
class _Socket:
    sock: socket.socket
    index: int = 0
    seen: int = -1
    tail: bytes = b""
    head: bytes = b""
    open: bool = False


@dataclass
class _Child:
    """One child's state (lives in the child process)."""

    target: Target
    progress: Any
    epoll: select.epoll = field(default_factory=select.epoll)
    sockets: dict[int, _Socket] = field(default_factory=dict)
    arrivals: dict[int, list[float]] = field(default_factory=dict)
    first: dict[tuple[int, int], float] = field(default_factory=dict)  # many-streams mode
    errors: Counter[str] = field(default_factory=Counter)
    opened: int = 0
    ended: int = 0
    heard: Any = None  # shared: how many (listener, number) arrivals this child has stamped so far

    # ---- connecting ---------------------------------------------------------------------------

    def request(self, index: int = 0) -> bytes:
        if self.target.stream:  # AUTH's +OK comes before the reply, which carries no id line
            auth = _resp(b"AUTH", self.target.password.encode()) if self.target.password else b""
            return auth + _xread(self.target.stream, "0-0")
        path, extra = self.target.path, ""
        if self.target.paths:
            path = self.target.paths[index]
            extra = self.target.headers[index] + "\r\n" if self.target.headers and self.target.headers[index] else ""
        return f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n{extra}\r\n".encode()

    def connect(self, count: int, offset: int = 0) -> None:
        for first in range(0, count, BATCH):
            batch = []
            for n in range(first, min(first + BATCH, count)):
                try:
                    sock = socket.create_connection(("127.0.0.1", self.target.port), timeout=CONNECT_SECONDS)
                    sock.sendall(self.request(offset + n))
                except OSError as error:
                    self.errors[type(error).__name__] += 1
                    continue
                sock.setblocking(False)
                self.sockets[sock.fileno()] = _Socket(sock, offset + n, open=bool(self.target.stream))
                self.epoll.register(sock.fileno(), select.EPOLLIN)
                batch.append(sock.fileno())
            self._await_heads(batch)

    def _await_heads(self, batch: list[int]) -> None:
        if self.target.stream:
            self.opened += len(batch)
            return
        deadline = time.monotonic() + CONNECT_SECONDS
        waiting = set(batch)
        while waiting and time.monotonic() < deadline:
            self.receive_ready(self.epoll.poll(POLL_SECONDS))
            waiting = {fd for fd in waiting if fd in self.sockets and not self.sockets[fd].open}
        for fd in waiting:
            self.errors["no_headers"] += 1
            self._drop(fd)

    # ---- receiving ----------------------------------------------------------------------------

    def receive_ready(self, ready: list[tuple[int, int]]) -> None:
        """Read each socket of one wait's ``ready`` list, each read stamped when it returned."""
        for fd, _ in ready:
            self._receive(fd)

    def _receive(self, fd: int) -> None:
        entry = self.sockets.get(fd)
        if entry is None:
            return
        try:
            data = entry.sock.recv(262144)
        except BlockingIOError:
            return
        except OSError as error:
            self.errors[type(error).__name__] += 1
            data = b""
        now = time.perf_counter()  # after the read: nothing it returned can have come later
        if not data:
            self.ended += entry.open
            self._drop(fd)
            return
        if not entry.open:
            data = self._head(fd, entry, data)
        if entry.open and data:
            self._record(entry, entry.tail + data, now)

    def _head(self, fd: int, entry: _Socket, data: bytes) -> bytes:
        entry.head += data
        head, found, body = entry.head.partition(b"\r\n\r\n")
        if not found:
            return b""
        status = head.split(b" ", 2)[1].decode() if b" " in head else "?"
        if status != "200":  # with the problem's code when it came in the same read (which limit said no)
            code = PROBLEM_CODE.search(body)
            self.errors[f"http_{status}" + (f"_{code.group(1).decode()}" if code else "")] += 1
            self._drop(fd)
            return b""
        entry.open, entry.head = True, b""
        self.opened += 1
        return b"\n" + body

    def _record(self, entry: _Socket, text: bytes, now: float) -> None:
        entry.tail = text[-TAIL:]
        if b"event: error" in text:
            code = re.search(rb'"code": ?"([a-z_]+)".*?"detail": ?"([^"]{0,40})', text.partition(b"event: error")[2])
            said = f":{code.group(1).decode()}:{code.group(2).decode()}" if code and self.target.paths else ""
            self.errors["error_event" + said] += 1
        if self.target.paths:  # many streams: the first arrival of each number at each listener
            for match in re.findall(self.target.pattern, text):
                self.first.setdefault((entry.index, numbered(match)), now)
            return
        newest = entry.seen
        for match in ID_LINE.findall(text):
            version = int(match)
            if version > entry.seen and version > newest:
                newest = version
                self.arrivals.setdefault(version, []).append(now)
        if newest > entry.seen:
            entry.seen = newest
            if self.target.stream:  # follow on from the entry just read
                entry.sock.sendall(_xread(self.target.stream, f"{newest}-1"))

    def _drop(self, fd: int) -> None:
        entry = self.sockets.pop(fd)
        self.epoll.unregister(fd)
        entry.sock.close()

    def report_progress(self) -> None:
        live = [entry.seen for entry in self.sockets.values() if entry.open]
        self.progress.value = min(live) if live else NOBODY
        if self.heard is not None:
            self.heard.value = len(self.first)

    def serve(self, commands: Connection) -> None:
        """Receive until told to stop, then send the stamps back."""
        while not commands.poll():
            ready = self.epoll.poll(POLL_SECONDS)
            if not ready:
                continue
            self.receive_ready(ready)
            self.report_progress()
        commands.recv()
        commands.send({"arrivals": self.arrivals, "first": self.first, "ended": self.ended,
                       "errors": dict(self.errors)})  # fmt: skip
        for fd in list(self.sockets):
            self._drop(fd)


def numbered(match: bytes | tuple[bytes, bytes]) -> int:
    """The number a :attr:`Target.pattern` match stamps: its group, or with two groups ``first * SPAN +
    second`` (a player's notices name a seat and a version: two games of one player reach the same
    versions, and only the seat tells their notices apart)."""
    if isinstance(match, tuple):
        return int(match[0]) * SPAN + int(match[1])
    return int(match)


def _xread(stream: str, after: str) -> bytes:
    return _resp(b"XREAD", b"BLOCK", b"0", b"STREAMS", stream.encode(), after.encode())


def _resp(*parts: bytes) -> bytes:
    """One command in RESP."""
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


def _child_main(target: Target, count: int, progress: Any, commands: Connection, offset: int = 0,
                heard: Any = None) -> None:
    with contextlib.suppress(ValueError, OSError):  # thousands of sockets: the hard limit, not the soft one
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    child = _Child(target, progress, heard=heard)
    child.connect(count, offset)
    child.report_progress()
    commands.send({"opened": child.opened, "errors": dict(child.errors)})
    child.serve(commands)


@dataclass
class ListenerGroup:
    """``count`` listeners spread over ``processes`` child processes."""

    target: Target
    count: int
    processes: int
    opened: int = 0
    connect_errors: Counter[str] = field(default_factory=Counter)
    arrivals: dict[int, list[float]] = field(default_factory=dict)
    first: dict[tuple[int, int], float] = field(default_factory=dict)
    ended: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    _children: list[tuple[Any, Connection, Any]] = field(default_factory=list)
    _heard: list[Any] = field(default_factory=list)

    def start(self) -> None:
        """Start the children and wait until each has opened (or failed) its share."""
        context = multiprocessing.get_context("spawn")
        shares = [self.count // self.processes + (i < self.count % self.processes) for i in range(self.processes)]
        offsets = [sum(shares[:i]) for i in range(len(shares))]
        for share, offset in zip(shares, offsets, strict=True):
            ours, theirs = context.Pipe()
            progress, heard = context.RawValue("q", -1), context.RawValue("q", 0)
            args = (self.target, share, progress, theirs, offset, heard)
            process = context.Process(target=_child_main, args=args, daemon=True)
            process.start()
            self._children.append((process, ours, progress))
            self._heard.append(heard)
        for _, pipe, _ in self._children:
            if not pipe.poll(CONNECT_SECONDS * (self.count // BATCH + 2)):
                self.connect_errors["child_timeout"] += 1
                continue
            hello = pipe.recv()
            self.opened += hello["opened"]
            self.connect_errors.update(hello["errors"])

    def cpu(self) -> float:
        """CPU seconds the child processes used so far (their ``recv`` of every delivery)."""
        return sum(cpu_seconds(process.pid) for process, _, _ in self._children)

    def reached(self, version: int) -> bool:
        """Whether every open listener has seen ``version``."""
        return all(progress.value >= version for _, _, progress in self._children)

    def heard(self) -> int:
        """How many (listener, number) arrivals the children have stamped so far (many-streams mode)."""
        return sum(int(value.value) for value in self._heard)

    async def settle(self, least: float = 3.0, most: float = 15.0, step: float = 0.5) -> None:
        """Wait until the arrivals stop coming: at least ``least`` seconds, then until a ``step``
        passes with none new, ``most`` seconds at most.  A fixed wait counted events still on their
        way on a busy machine (p99 deliveries of 3.5 s beside CPU hogs) as missed."""
        await asyncio.sleep(least)
        waited, before = least, self.heard()
        while waited < most:
            await asyncio.sleep(step)
            waited += step
            now = self.heard()
            if now == before:
                return
            before = now

    def stop(self) -> None:
        """Collect every stamp and stop the children."""
        for process, pipe, _ in self._children:
            try:
                pipe.send("stop")
                if pipe.poll(30):
                    result = pipe.recv()
                    for version, stamps in result["arrivals"].items():
                        self.arrivals.setdefault(version, []).extend(stamps)
                    self.first.update(result["first"])
                    self.ended += result["ended"]
                    self.errors.update(result["errors"])
            except (OSError, EOFError):
                self.errors["child_lost"] += 1
            process.join(5)
            if process.is_alive():
                process.kill()
