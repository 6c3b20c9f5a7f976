"""The keep-alive of every SSE client of a gateway process: one timer wheel, pings only for the silent.

A ``: ping`` comment keeps an idle connection open through proxies that close silent ones.  Before,
the keeper wrote one to every client once a :data:`PING_SECONDS` round, a thirtieth of them every
half second.  Profiled with 19,000 listeners on one worker (docs/lab/many-listeners.md, "Fan-out
at 19,000 listeners"): the pings were 88 % of the worker's CPU while nothing happened and 17 % of it
while moves were played, more than the events' own fan-out (6 %), and each slice of ~630 writes held
the loop ~8 ms every half second, in front of whatever event came then.

Now a client is due a ping :data:`PING_SECONDS` after the last bytes it was sent
(:attr:`gateway.sse_listener.Listener.wrote_at`), not on a fixed round: a client that got an
event meanwhile is skipped and due again a period after that event.  Clients sit in the slots of
one wheel turned every :data:`TICK_SECONDS` by the process's one keeper task
(:class:`gateway.fanout.LiveEvents`), so a turn touches only the clients due then (~60 of 19,000),
and no client costs a timer or a task of its own.  A client that left or ended falls out of the
wheel when its slot comes round.
"""

from __future__ import annotations

import math

from gateway.sse_listener import Listener

PING_SECONDS = 15.0  # the longest a live client goes without a byte (the AsyncAPI pages say 15 s)
TICK_SECONDS = 0.05  # how often the wheel turns (and the keeper looks whether uvicorn is exiting)


class PingWheel:
    """Clients by when their next ping is due, in slots of :data:`TICK_SECONDS` over one period."""

    def __init__(self, period: float = PING_SECONDS, tick: float = TICK_SECONDS) -> None:
        self.period, self.tick = period, tick
        self.slots: list[list[Listener]] = [[] for _ in range(max(1, round(period / tick)))]
        self.turns = 0  # how many times it turned: the current slot is turns % len(slots)

    def add(self, listener: Listener) -> None:
        """Keep ``listener``: it is due a period from now (it is written to when it goes live)."""
        self._due_in(listener, len(self.slots))

    def _due_in(self, listener: Listener, ticks: int) -> None:
        self.slots[(self.turns + ticks) % len(self.slots)].append(listener)

    def turn(self, now: float) -> int:
        """One tick: ping the clients of the next slot that were sent nothing for a period (less a
        tick, so none waits a whole period more), put the others back where their quiet period ends;
        how many were pinged."""
        self.turns += 1
        index = self.turns % len(self.slots)
        due, self.slots[index] = self.slots[index], []
        pinged = 0
        for listener in due:
            if listener.ended or not listener.kept:
                continue  # it left, or its stream ended: nothing more to keep open
            quiet = now - listener.wrote_at
            if quiet >= self.period - self.tick:
                if listener.ping():
                    listener.wrote_at, pinged = now, pinged + 1  # on the wheel's clock
                self._due_in(listener, len(self.slots))
            else:
                self._due_in(listener, min(len(self.slots), max(1, math.ceil((self.period - quiet) / self.tick))))
        return pinged

    def __len__(self) -> int:
        return sum(len(slot) for slot in self.slots)
