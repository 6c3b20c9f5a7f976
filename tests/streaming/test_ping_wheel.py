"""The keep-alive wheel (gateway.keepalive): a client is pinged only after a period with no bytes.

Clients are real :class:`gateway.sse_listener.Listener` objects, live on an ASGI ``send`` that
records what was written (as in tests/streaming/test_sse_listener.py); the wheel is turned by
hand with explicit times, one second a period in four ticks.
"""

from __future__ import annotations

import asyncio

from gateway.fanout import final_bytes
from gateway.keepalive import PingWheel
from gateway.sse_listener import PING, Listener

PERIOD, TICK = 1.0, 0.25


class Socket:
    """An ASGI ``send`` that records the body chunks written."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    async def send(self, message: dict[str, object]) -> None:
        body = message.get("body", b"")
        assert isinstance(body, bytes)
        self.chunks.append(body)

    def pings(self) -> int:
        return self.chunks.count(PING)


async def _live(wheel: PingWheel, at: float) -> tuple[Socket, Listener]:
    socket, listener = Socket(), Listener(16, (0, 0), final_bytes)
    await listener.go_live(socket.send, [])
    listener.wrote_at = at  # as if its last bytes went out at ``at`` (the test's own clock)
    wheel.add(listener)
    return socket, listener


def _turn(wheel: PingWheel, start: float, ticks: int) -> float:
    """Turn the wheel ``ticks`` times from ``start`` (one tick apart); the time after the last turn."""
    now = start
    for _ in range(ticks):
        now += TICK
        wheel.turn(now)
    return now


def test_a_silent_client_is_pinged_once_a_period_and_a_client_sent_events_is_not() -> None:
    async def scenario() -> None:
        wheel = PingWheel(PERIOD, TICK)
        silent, _ = await _live(wheel, 0.0)
        busy, talker = await _live(wheel, 0.0)
        now = _turn(wheel, 0.0, 2)
        talker.offer(((1, 0), b"id: 1:0\r\ndata: {}\r\n\r\n"))  # an event half a period in
        talker.wrote_at = now
        now = _turn(wheel, now, 2)  # a period since both were added
        assert (silent.pings(), busy.pings()) == (1, 0)
        now = _turn(wheel, now, 2)  # a period since the event: the busy one is due now
        assert (silent.pings(), busy.pings()) == (1, 1)
        _turn(wheel, now, 4)
        assert (silent.pings(), busy.pings()) == (2, 2)  # and from then on, once a period each

    asyncio.run(scenario())


def test_a_client_that_left_or_ended_falls_out_of_the_wheel_and_is_never_pinged() -> None:
    async def scenario() -> None:
        wheel = PingWheel(PERIOD, TICK)
        left, gone = await _live(wheel, 0.0)
        ended, over = await _live(wheel, 0.0)
        gone.kept = False  # what LiveEvents does when the client leaves
        over.close()  # its stream ended: the final frames, then nothing
        before = len(ended.chunks)
        _turn(wheel, 0.0, 8)
        assert left.pings() == 0 and ended.chunks[before:] == [] and len(wheel) == 0

    asyncio.run(scenario())


def test_a_client_not_yet_live_is_kept_and_pinged_once_it_is() -> None:
    async def scenario() -> None:
        wheel = PingWheel(PERIOD, TICK)
        listener = Listener(16, (0, 0), final_bytes)
        listener.wrote_at = 0.0
        wheel.add(listener)
        now = _turn(wheel, 0.0, 4)  # due, but it has no send yet: no ping, still kept
        assert len(wheel) == 1
        socket = Socket()
        await listener.go_live(socket.send, [])
        listener.wrote_at = now
        _turn(wheel, now, 4)
        assert socket.pings() == 1

    asyncio.run(scenario())
