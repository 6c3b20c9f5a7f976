"""The benchmark listeners' arrival stamps (bench/sse_listeners.py): never earlier than the bytes.

An event that reaches a socket after the listener's ``epoll`` wait returned, but before its
``recv``, comes back in that same read. Stamped with the wait's time, it looked older than its own
sending, and the many-streams suites counted it as not delivered (``before_send``).
"""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Callable
from types import SimpleNamespace

from bench.many_streams import Sent, deliveries
from bench.sse_listeners import Target, _Child, _Socket


def _event(version: int) -> bytes:
    return b"id: %d:0\nevent: game_event\ndata: {}\n\n" % version


class _Meanwhile(socket.socket):
    """A listener socket whose read first runs ``meanwhile``: what happens while the child reads
    (or is descheduled before) a socket earlier in the batch."""

    meanwhile: Callable[[], None] = staticmethod(lambda: None)

    def recv(self, size: int, flags: int = 0) -> bytes:
        type(self).meanwhile()
        return super().recv(size, flags)


def test_an_event_arriving_between_the_wait_and_the_read_is_stamped_after_its_send() -> None:
    """Two listeners readable in one wait; while the first is read, an event is sent to the second.
    Its read returns that event too: its stamp may not be older than the sending."""
    first_server, first_plain = socket.socketpair()
    second_server, second = socket.socketpair()
    first = _Meanwhile(fileno=first_plain.detach())
    child = _Child(Target(0, paths=("/v1/games/g/events",) * 2), SimpleNamespace(value=-1))
    sent = Sent()

    def send_to_the_second() -> None:
        sent.expected[(1, 2)] = time.perf_counter()
        second_server.sendall(_event(2))

    _Meanwhile.meanwhile = staticmethod(send_to_the_second)
    try:
        for index, sock in enumerate((first, second)):
            sock.setblocking(False)
            child.sockets[sock.fileno()] = _Socket(sock, index=index, tail=b"\n", open=True)
            child.epoll.register(sock.fileno(), select.EPOLLIN)
        first_server.sendall(_event(1))
        second_server.sendall(_event(1))
        ready = []
        while len(ready) < 2:  # the wait returns with both readable, event 2 not yet sent
            ready = child.epoll.poll(5)
        ready.sort(key=lambda item: item[0] != first.fileno())  # the first is read first
        child.receive_ready(ready)
        assert {(1, 1), (1, 2)} <= set(child.first), child.first
        counted = deliveries(sent, child.first)
        assert (counted["deliveries"], counted["missed"], counted["before_send"]) == (1, 0, 0), counted
    finally:
        child.epoll.close()
        for sock in (first, second, first_server, second_server):
            sock.close()


def test_an_event_that_never_came_is_missed_and_one_stamped_early_is_told_apart() -> None:
    sent = Sent()
    sent.expected[(0, 1)] = 10.0
    sent.expected[(0, 2)] = 10.0
    counted = deliveries(sent, {(0, 1): 9.5})
    assert (counted["deliveries"], counted["missed"], counted["before_send"]) == (0, 2, 1)
