"""When the limit store does not answer, the limits that guard against abuse refuse (issue #44, item 6).

A real gateway whose limit store is a Redis address nothing listens on (a refused connection, as
when Redis is gone), in front of the session's real rules services (whose own Redis is up): a
guest session, a game creation and a failed authentication get 503 ``store_unavailable`` with
``Retry-After`` instead of going through uncounted; a plain read is still served (its rate limits
let it through, counted in ``chaiwala_gateway_limit_errors_total``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.client import assert_problem, auth, create_game
from tests.support.metrics import samples_sum, scrape
from tests.support.stack import Gateway, free_port, routes

GAME = "darjeeling"


@pytest.fixture(scope="module")
def blind_gateway(stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway whose limit store (``REDIS_URL``) refuses every connection."""
    with Gateway(routes(stack), redis_url=f"redis://127.0.0.1:{free_port()}/0") as gateway:
        yield gateway


def _assert_store_refusal(response: httpx.Response, limit: str) -> None:
    body = assert_problem(response, 503, "store_unavailable")
    assert limit in body["detail"]
    assert int(response.headers["retry-after"]) >= 1


def test_quotas_and_failed_logins_refuse_when_their_store_fails(blind_gateway: Gateway, client: httpx.Client) -> None:
    created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}])  # through the shared stack
    with httpx.Client(base_url=blind_gateway.url, timeout=60) as http:
        before = client.get(f"/v1/games/{created['game_id']}").json()["version"]
        assert http.get(f"/v1/games/{created['game_id']}").status_code == 200  # rates: let through
        _assert_store_refusal(http.post("/v1/sessions"), "session_quota")
        two = {"game_type": GAME, "players": [{"name": "a"}, {"name": "b"}]}
        _assert_store_refusal(http.post("/v1/games", json=two), "create_quota")
        wrong = http.get(f"/v1/games/{created['game_id']}/legal-moves", headers=auth("not-a-token"))
        _assert_store_refusal(wrong, "auth_failures")
        metrics = scrape(f"{blind_gateway.url}/metrics")
    assert samples_sum(metrics, "chaiwala_gateway_limit_errors_total") >= 4
    assert client.get(f"/v1/games/{created['game_id']}").json()["version"] == before  # nothing changed


@pytest.fixture()
def blind_small_gateway(stack: dict[str, Any]) -> Iterator[Gateway]:
    """A gateway whose limit store refuses every connection, allowing one stream per credential."""
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    gateway = Gateway(addresses, redis_url=f"redis://127.0.0.1:{free_port()}/0", sse_streams_per_token=1)
    try:
        yield gateway
    finally:
        gateway.stop()


def test_event_streams_are_served_and_capped_in_the_process_when_their_store_fails(
    blind_small_gateway: Gateway, client: httpx.Client
) -> None:
    # A live stream is not refused because its lease store is down: this process counts it, as
    # before the caps were shared, and its cap still holds.
    created = create_game(client, GAME, [{"name": "a"}, {"name": "b"}])  # through the shared stack
    headers = {"Accept": "text/event-stream", **auth(created["seats"][0]["token"])}
    path = f"/v1/games/{created['game_id']}/events"
    with httpx.Client(base_url=blind_small_gateway.url, timeout=60) as http:
        with http.stream("GET", path, headers=headers) as first:
            assert first.status_code == 200
            with http.stream("GET", path, headers=headers) as second:
                second.read()
                body = assert_problem(second, 503, "too_many_streams")
                assert body["detail"] == "too many open event streams (sse streams per token: 1)"
        metrics = scrape(f"{blind_small_gateway.url}/metrics")
    assert samples_sum(metrics, "chaiwala_gateway_limit_errors_total") >= 2  # both leases failed, counted
