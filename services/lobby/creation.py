"""What a new game's request decides beyond its seats: time control and timeout policy."""

from __future__ import annotations

from chaiwala.v1 import rules_pb2
from services.clock import clock as clocks
from services.common import errors
from services.common.lifecycle import DEFAULT_TIMEOUTS_TO_RESIGN, ON_TIMEOUT, Lifecycle

MAX_TIMEOUTS_TO_RESIGN = 100


def lifecycle_from(request: rules_pb2.CreateGameRequest, seats: int) -> Lifecycle:
    """The initial platform state of a game: its clock (if any) and what a timeout leads to."""
    on_timeout = request.on_timeout or "bot"
    if on_timeout not in ON_TIMEOUT:
        raise errors.invalid("bad_on_timeout", f"on_timeout is one of {', '.join(ON_TIMEOUT)}")
    if request.timeouts_to_resign > MAX_TIMEOUTS_TO_RESIGN:
        raise errors.invalid("bad_on_timeout", f"timeouts_to_resign is at most {MAX_TIMEOUTS_TO_RESIGN}")
    clock = None
    if request.HasField("clock"):
        spec = request.clock
        try:
            clock = clocks.new_clock(spec.per_turn_s, spec.bank_s, spec.increment_s, seats)
        except clocks.BadClock as error:
            raise errors.invalid("bad_clock", str(error)) from None
    return Lifecycle(
        timeouts=[0] * seats,
        clock=clock,
        on_timeout=on_timeout,
        timeouts_to_resign=request.timeouts_to_resign or DEFAULT_TIMEOUTS_TO_RESIGN,
    )


def waiting_snapshot() -> bytes:
    """The snapshot stored while a game waits for players: nothing is set up yet."""
    return b"{}"
