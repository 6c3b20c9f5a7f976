"""Store outages as seen by a background process (any of those :mod:`services.processes` runs).

Their loops run every fraction of a second; with Redis away each pass fails the same way, so
logging every failure (with its traceback) would bury everything else in the log.  One
:class:`StoreWatch` per process tells each loop's failures apart: an unreachable store
(:func:`services.common.store.is_unavailable`, or a ``store_unavailable`` refusal) is logged
once when it starts, as a warning ``store_unavailable``, and once when a pass succeeds again,
as ``store_available`` at info level with how long it lasted; the gauge
``chaiwala_store_available`` (1 or 0) and the counter ``chaiwala_store_outages_total`` say the
same to Prometheus.  Any other error is a bug or a refusal: :meth:`StoreWatch.failed` leaves it
to the loop, which logs it as before (with its traceback).
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter, Gauge

from services.common.errors import ServiceError
from services.common.store import is_unavailable

STORE_AVAILABLE = Gauge(
    "chaiwala_store_available", "1 while this process's background loops reach Redis, 0 during an outage"
)
STORE_OUTAGES = Counter("chaiwala_store_outages", "Redis outages this process's background loops went through")


def is_store_outage(error: BaseException) -> bool:
    """Whether ``error`` means the store is not answering (rather than a refusal or a bug)."""
    if isinstance(error, ServiceError):
        return error.code == "store_unavailable"
    return is_unavailable(error)


class StoreWatch:
    """Whether the store answers, as this process's loops last found it (one per process)."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.down_since: float | None = None
        STORE_AVAILABLE.set(1)

    @property
    def down(self) -> bool:
        """Whether a loop last found the store away (a loop that would wait long between passes
        waits its short pause instead, so the outage's end is seen, logged and counted at once)."""
        return self.down_since is not None

    def failed(self, error: BaseException, during: str) -> bool:
        """A loop's pass (``during``) failed with ``error``: whether it was the store being away
        (logged at its start only); ``False`` leaves the error to the caller to log."""
        if not is_store_outage(error):
            return False
        if self.down_since is None:
            self.down_since = time.monotonic()
            STORE_AVAILABLE.set(0)
            STORE_OUTAGES.inc()
            self.log.warning("store_unavailable", during=during, error=type(error).__name__)
        return True

    def answered(self) -> None:
        """A loop's pass reached the store: the end of an outage, if there was one."""
        if self.down_since is None:
            return
        lasted = time.monotonic() - self.down_since
        self.down_since = None
        STORE_AVAILABLE.set(1)
        self.log.info("store_available", down_seconds=round(lasted, 1))
