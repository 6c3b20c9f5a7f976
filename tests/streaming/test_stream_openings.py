"""A call waiting for a busy rules process is left to the gateway's deadline, not cut by gRPC.

gRPC cancels a call that a server has not taken up within ``grpc.server_max_unrequested_time_in_server``
(30 s by default) with a bare CANCELLED, which the gateway can only answer 503
``service_unavailable``: a burst of player streams opening at once got 55 of those at 10,000
players.  Reproduced with a real rules service and gateway whose loop was held 36 s while four
player streams opened (docs/lab/many-listeners.md, 2026-12-07): three 503s at gRPC's default, four
streams served with the rules service's setting.  That takes the whole 36 s, so the suite keeps
only the sizing: the rules service waits longer than the gateway's own deadline, whose 504
``timeout`` names what happened.
"""

from __future__ import annotations

from gateway.settings import GatewaySettings
from services.rules.server import UNREQUESTED_SECONDS


def test_the_rules_service_waits_for_a_call_longer_than_the_gateway_does() -> None:
    deadline = GatewaySettings.model_fields["rpc_timeout_seconds"].default
    assert isinstance(deadline, float)
    assert deadline < UNREQUESTED_SECONDS
