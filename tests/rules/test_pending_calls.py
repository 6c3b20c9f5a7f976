"""A burst of calls larger than gRPC's own pending-call limits (1,000 soft, 3,000 hard) is served, not
cancelled for its size (``PENDING_CALLS`` in :mod:`services.rules.server`).

:data:`BURST` player streams opened at once on a real rules service (in process; about 6 s) all open,
where gRPC's defaults cancelled about a thousand of them; the options the server is built with are
checked too, at no cost (``make test-fast``, which leaves out slow tests, has that one as well).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

from bench.stream_burst import guests, open_at_once
from services.identity.settings import IdentitySettings
from services.rules.server import server_options
from tests.support import secrets
from tests.support.stack import Services

GAME = "darjeeling"
OLD_HARD_LIMIT = 3_000  # gRPC's own: of 3,000 streams opened together, 715 came back CANCELLED
BURST = 3_500


def test_the_server_holds_a_burst_far_past_grpcs_own_pending_call_limits() -> None:
    options = dict(server_options())
    # Absent, gRPC's defaults (1,000 and 3,000) cancel the newest calls of a burst with a bare CANCELLED.
    assert options["grpc.server.max_pending_requests"] >= 10 * OLD_HARD_LIMIT
    assert options["grpc.server.max_pending_requests_hard_limit"] >= 10 * OLD_HARD_LIMIT


def test_more_player_streams_than_grpcs_old_hard_limit_open_at_once(redis_url: str) -> None:
    services = Services(redis_url, identity=IdentitySettings(session_limit="100000/minute"))
    service = services.start(GAME)
    try:
        # One guest's streams: a player may hold many, and one session keeps the test to the burst.
        (token,) = asyncio.run(guests(service.port, 1))
        secrets.remember(token)
        outcomes = asyncio.run(open_at_once(service.port, [token] * BURST))
        assert outcomes == Counter(open=BURST), json.dumps(outcomes)
    finally:
        services.stop(service)
        services.close()
