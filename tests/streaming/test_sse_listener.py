"""One SSE client of the fan-out (gateway.sse_listener), driven through its ASGI ``send`` contract.

The upstream writes each event straight into the client's ``send``; a ``send`` that has to wait (a
full socket) is finished by a task while later events queue and are written as one chunk, in
order; a client a whole backlog behind is dropped with ``slow_consumer`` naming the last event it
will have; history and queued live events are deduplicated.  ``send`` here is a plain coroutine
that records its messages and, when told to, waits as uvicorn's does on a full socket.
"""

from __future__ import annotations

import asyncio

import orjson

from gateway.fanout import END, final_bytes
from gateway.sse_listener import RETRY, Listener, Relayed
from services.streaming.mailbox import SlowConsumer


def _frame(version: int) -> Relayed:
    return (version, 0), f"id: {version}:0\r\nevent: game_event\r\ndata: {{}}\r\n\r\n".encode()


class Socket:
    """An ASGI ``send`` that records what was written and can stall like a full socket."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.complete = False
        self.writable = asyncio.Event()
        self.writable.set()
        self.waits = 0

    async def send(self, message: dict[str, object]) -> None:
        if not self.writable.is_set():
            self.waits += 1
            await self.writable.wait()
        body = message.get("body", b"")
        assert isinstance(body, bytes)
        self.chunks.append(body)
        self.complete = not message.get("more_body", False)

    def versions(self) -> list[int]:
        text = b"".join(self.chunks).decode()
        return [int(line[4:].split(":")[0]) for line in text.split("\r\n") if line.startswith("id: ")]


def test_events_are_written_in_order_at_once_and_coalesced_behind_a_full_socket() -> None:
    async def scenario() -> None:
        socket, listener = Socket(), Listener(16, (0, 0), final_bytes)
        await listener.go_live(socket.send, [])
        for version in (1, 2):
            assert listener.offer(_frame(version))
        assert socket.chunks == [RETRY, _frame(1)[1], _frame(2)[1]]  # retry first; events inline: no task, no wait
        socket.writable.clear()
        for version in range(3, 9):
            assert listener.offer(_frame(version))
        assert socket.versions() == [1, 2] and socket.waits == 1  # 3 waits for the socket, 4-8 queue
        socket.writable.set()
        await asyncio.sleep(0.01)
        assert socket.versions() == list(range(1, 9))
        assert len(socket.chunks) == 5  # retry, 1, 2, then 3 alone, then 4-8 as one chunk
        listener.close()
        assert b"".join(socket.chunks).endswith(END) and socket.complete

    asyncio.run(scenario())


def test_a_client_a_whole_backlog_behind_is_dropped_after_what_it_holds() -> None:
    async def scenario() -> None:
        socket, listener = Socket(), Listener(4, (0, 0), final_bytes)
        await listener.go_live(socket.send, [])
        socket.writable.clear()
        offered = [listener.offer(_frame(v)) for v in range(1, 8)]
        assert offered == [True] * 5 + [False] * 2  # 1 waits, 2-5 fill the backlog of 4
        listener.close(SlowConsumer("4 items behind"))
        assert listener.offer(_frame(9))  # nothing more is taken, silently
        socket.writable.set()
        await asyncio.sleep(0.01)
        assert socket.versions() == [1, 2, 3, 4, 5] and socket.complete
        text = b"".join(socket.chunks).decode()
        error = orjson.loads(text.split("event: error\r\ndata: ")[1].split("\r\n")[0])
        assert error["code"] == "slow_consumer" and error["last_event_id"] == "5:0"
        assert text.endswith(END.decode())

    asyncio.run(scenario())


def test_history_and_events_queued_before_going_live_are_sent_once_in_order() -> None:
    async def scenario() -> None:
        socket, listener = Socket(), Listener(16, (2, 0), final_bytes)
        for version in (4, 5, 6):  # arrived while the route read the history
            assert listener.offer(_frame(version))
        history = [_frame(v) for v in (1, 2, 3, 4, 5)]  # read after subscribing: overlaps
        await listener.go_live(socket.send, history)
        assert listener.offer(_frame(6)) and listener.offer(_frame(7))
        assert socket.versions() == [3, 4, 5, 6, 7]  # after the resume point, each once
        listener.close(None)
        assert socket.complete

    asyncio.run(scenario())


def test_a_stream_that_ends_before_going_live_still_gets_its_end() -> None:
    async def scenario() -> None:
        socket, listener = Socket(), Listener(16, (0, 0), final_bytes)
        listener.offer(_frame(1))
        listener.close(None)
        await listener.go_live(socket.send, [])
        assert socket.versions() == [1] and socket.complete and b"".join(socket.chunks).endswith(END)

    asyncio.run(scenario())


def test_a_batch_is_one_write_and_an_overlapping_one_repeats_nothing() -> None:
    async def scenario() -> None:
        socket, listener = Socket(), Listener(16, (0, 0), final_bytes)
        await listener.go_live(socket.send, [_frame(1), _frame(2)])
        batch = [_frame(v) for v in (3, 4, 5)]
        assert listener.offer_batch(batch, b"".join(frame for _, frame in batch))
        assert len(socket.chunks) == 2 and socket.versions() == [1, 2, 3, 4, 5]  # history, then one chunk
        assert socket.chunks[0].startswith(RETRY)  # the reconnection delay comes with the history
        overlap = [_frame(v) for v in (5, 6)]
        assert listener.offer_batch(overlap, b"".join(frame for _, frame in overlap))
        assert socket.versions() == [1, 2, 3, 4, 5, 6]
        socket.writable.clear()
        assert listener.offer(_frame(7))
        assert not listener.offer_batch([_frame(v) for v in range(8, 30)], b"")  # more than the backlog holds

    asyncio.run(scenario())
