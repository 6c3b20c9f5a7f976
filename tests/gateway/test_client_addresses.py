"""Client addresses from trusted proxies only, and failed authentications that lock nobody else out
(issue #44, item 2), through real gateways in front of the session's real rules services.

Every gateway here counts in its own memory (no limit store), so its counts are this test's alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support import secrets
from tests.support.client import assert_problem, auth, two_humans
from tests.support.stack import Gateway

GAME = "darjeeling"
SESSIONS = 3  # the session quota of these gateways, per client address and minute


@pytest.fixture()
def gateway(request: pytest.FixtureRequest, stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway with the test's ``gateway`` marker's settings, counting in its own memory."""
    marker = request.node.get_closest_marker("gateway")
    overrides = {"session_limit": f"{SESSIONS}/minute", **(marker.kwargs if marker else {})}
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    served = Gateway(addresses, service_webhook=stack["webhook"].address, **overrides)
    try:
        yield served
    finally:
        served.stop()


def _sessions(url: str, forwarded: list[str]) -> list[int]:
    """One guest session per forwarded address claimed; the status of each."""
    statuses = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for address in forwarded:
            answer = client.post("/v1/sessions", headers={"X-Forwarded-For": address})
            if answer.status_code == 201:
                secrets.remember(answer.json()["token"])
            statuses.append(answer.status_code)
    return statuses


def test_forwarded_addresses_from_an_untrusted_peer_are_ignored(gateway: Gateway) -> None:
    forged = [f"198.51.100.{n}" for n in range(SESSIONS + 2)]  # a new address on every request
    assert _sessions(gateway.url, forged) == [201] * SESSIONS + [429, 429]  # all counted as the peer


@pytest.mark.gateway(trusted_proxies="127.0.0.0/8, ::1")
def test_forwarded_addresses_from_a_trusted_proxy_are_the_clients(gateway: Gateway) -> None:
    clients = [f"198.51.100.{n}" for n in range(SESSIONS + 2)]
    assert _sessions(gateway.url, clients) == [201] * (SESSIONS + 2)  # each its own client
    one = ["203.0.113.7"] * (SESSIONS + 1)
    assert _sessions(gateway.url, one) == [201] * SESSIONS + [429]  # and one client is one
    # The right-most address the trusted proxy did not add is the client's (a client's own
    # X-Forwarded-For entries come first and are not believed).
    chained = [f"10.9.9.{n}, 203.0.113.7" for n in range(2)]
    assert _sessions(gateway.url, chained) == [429, 429]


def test_a_bad_trusted_proxy_setting_stops_the_gateway(stack: dict[str, Any]) -> None:
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    with pytest.raises(ValueError, match="CHAIWALA_TRUSTED_PROXIES"):
        Gateway(addresses, trusted_proxies="10.0.0.0/8, the-ingress")


# Per hour, not per minute: on a loaded machine 25 requests can take longer than one refill.
@pytest.mark.gateway(auth_failure_limit="7/hour")
def test_25_bad_tokens_from_one_address_do_not_stop_a_valid_token(gateway: Gateway, stack: dict[str, Any]) -> None:
    with httpx.Client(base_url=str(stack["url"]), timeout=30) as main:
        game_id, tokens = two_humans(main, GAME)
    path = f"/v1/games/{game_id}"
    with httpx.Client(base_url=gateway.url, timeout=30) as client:
        answers = [client.get(path, headers=auth(f"guess-{attempt}")).status_code for attempt in range(25)]
        assert answers == [401] * 7 + [429] * 18  # past the address's bucket, failures are 429
        assert client.get(path, headers=auth(tokens[0])).status_code == 200  # a valid token is served
        assert client.get(path, headers=auth(tokens[1])).status_code == 200
        # A credential that keeps failing is refused before any service, by its own bucket.
        for _ in range(7):
            client.get(path, headers=auth("one-dead-token"))
        refused = assert_problem(client.get(path, headers=auth("one-dead-token")), 429, "rate_limited")
        assert refused["detail"].startswith("auth_failures limit of ")
        assert client.get(path, headers=auth(tokens[0])).status_code == 200
    metrics = httpx.get(f"{gateway.url}/metrics", timeout=10).text
    assert 'chaiwala_gateway_limited_total{limit="auth_failures"}' in metrics
