"""``free_port``: a port handed out once is not handed out again soon, by this process or another.

Every pick is "free now", drawn at random from the same ~22,000 ports below the kernel's
ephemeral range; nothing binds it until its server starts, seconds later. Without the machine's
book of recent picks, a few hundred picks by two processes share a port almost surely (the
birthday bound: 600 picks from 22,000 give about eight pairs), which is how a make run under test
once lost its tournament director to a port already taken.
"""

from __future__ import annotations

import json
import multiprocessing
import time

from services.common.embedded_redis import RESERVED_SECONDS, free_port, reservations_path

PICKS = 300


def _pick_many(count: int) -> list[int]:
    return [free_port() for _ in range(count)]


def test_two_processes_picking_at_once_never_get_the_same_port() -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        theirs = pool.apply_async(_pick_many, (PICKS,))
        ours = _pick_many(PICKS)
        their_ports = theirs.get(timeout=120)
    assert len(set(ours)) == len(ours) and len(set(their_ports)) == len(their_ports)
    assert not set(ours) & set(their_ports)


def test_a_pick_is_booked_for_a_while_and_expired_bookings_are_dropped() -> None:
    port = free_port()
    book = json.loads(reservations_path().read_text(encoding="ascii"))
    until = book[str(port)]
    assert time.time() < until <= time.time() + RESERVED_SECONDS
    assert all(float(when) > time.time() - 5 for when in book.values())  # none long expired kept
