"""CORS through the real gateway: a preflight for every route the app has, exposed headers, refusals.

Routes are read from the running application itself, so a route added later is checked too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from gateway.route_table import flat_routes
from tests.support.client import assert_problem, auth, create_game
from tests.support.stack import Gateway, routes

ORIGIN = "http://app.chaiwala.test:5173"
REQUESTED_HEADERS = "authorization, content-type, idempotency-key, last-event-id, if-none-match"


@pytest.fixture(scope="module")
def cors_gateway(stack: dict[str, Any]) -> Iterator[Gateway]:
    with Gateway(routes(stack), cors_origins=f"{ORIGIN}, https://other.chaiwala.test/") as gateway:
        yield gateway


@pytest.fixture(scope="module")
def client(cors_gateway: Gateway) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=cors_gateway.url, timeout=60) as http:
        yield http


def _routes(gateway: Gateway) -> list[tuple[str, str]]:
    return [(method, route.path) for route in flat_routes(gateway.app.routes) for method in route.methods]


def _preflight(client: httpx.Client, method: str, path: str, origin: str = ORIGIN) -> httpx.Response:
    headers = {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": REQUESTED_HEADERS,
    }
    return client.options(path, headers=headers)


def test_every_route_of_the_app_is_covered(cors_gateway: Gateway) -> None:
    routes = _routes(cors_gateway)
    assert ("POST", "/v1/games") in routes and ("GET", "/v1/games/{game_id}/events") in routes
    assert ("POST", "/v1/games/{game_id}/stream-tickets") in routes


def test_preflight_of_every_route_succeeds_with_the_headers_a_browser_app_sends(
    cors_gateway: Gateway, client: httpx.Client
) -> None:
    created = create_game(client, "darjeeling", [{"name": "Asha"}, {"name": "Bilal"}], seed=3)
    for method, template in _routes(cors_gateway):
        path = template.replace("{game_id}", created["game_id"])
        response = _preflight(client, method, path)
        label = f"OPTIONS {path} for {method}"
        assert response.status_code == 200, f"{label}: {response.status_code} {response.text}"
        assert response.headers["access-control-allow-origin"] == ORIGIN, label
        assert method in response.headers["access-control-allow-methods"].split(", "), label
        allowed = {h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")}
        assert set(REQUESTED_HEADERS.split(", ")) <= allowed, label
        assert "access-control-allow-credentials" not in response.headers, label


def test_actual_responses_name_the_origin_and_expose_the_headers_a_client_reads(client: httpx.Client) -> None:
    created = create_game(client, "darjeeling", [{"name": "Asha"}, {"name": "Bilal"}], seed=4)
    token = created["seats"][0]["token"]
    response = client.get(
        f"/v1/games/{created['game_id']}/legal-moves", headers={"Origin": ORIGIN, **auth(token)}
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ORIGIN
    exposed = {h.strip().lower() for h in response.headers["access-control-expose-headers"].split(",")}
    assert {"location", "retry-after", "etag"} <= exposed
    # A problem answer is readable by the page too.
    missing = client.get("/v1/games/darjeeling-000000000000000000000000", headers={"Origin": ORIGIN})
    assert_problem(missing, 404, "game_not_found")
    assert missing.headers["access-control-allow-origin"] == ORIGIN


def test_a_listed_origin_with_a_trailing_slash_in_the_setting_is_allowed(client: httpx.Client) -> None:
    response = _preflight(client, "GET", "/v1/game-types", origin="https://other.chaiwala.test")
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://other.chaiwala.test"


def test_an_unlisted_origin_is_refused_as_problem_json_and_gets_no_allow_origin(client: httpx.Client) -> None:
    response = _preflight(client, "POST", "/v1/games", origin="https://evil.example")
    body = assert_problem(response, 400, "cors_refused")
    assert "origin" in body["detail"]
    assert "access-control-allow-origin" not in response.headers
    simple = client.get("/v1/game-types", headers={"Origin": "https://evil.example"})
    assert simple.status_code == 200
    assert "access-control-allow-origin" not in simple.headers


def test_an_unknown_request_header_or_method_is_refused(client: httpx.Client) -> None:
    headers = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-evil"}
    assert_problem(client.options("/v1/games", headers=headers), 400, "cors_refused")
    # No route takes PATCH (DELETE is served since DELETE /v1/webhooks/{id}, PUT since PUT
    # /v1/me/preferences), so a PATCH preflight is refused.
    assert_problem(_preflight(client, "PATCH", "/v1/games"), 400, "cors_refused")


def test_with_no_origins_configured_every_preflight_is_refused(stack: dict[str, Any]) -> None:
    gateway = Gateway({game: svc.address for game, svc in stack["services"].items()})
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as http:
            assert_problem(_preflight(http, "GET", "/v1/game-types"), 400, "cors_refused")
    finally:
        gateway.stop()


def test_any_origin_when_configured_with_a_star(stack: dict[str, Any]) -> None:
    gateway = Gateway({game: svc.address for game, svc in stack["services"].items()}, cors_origins="*")
    try:
        with httpx.Client(base_url=gateway.url, timeout=60) as http:
            response = _preflight(http, "POST", "/v1/games", origin="http://localhost:3000")
            assert response.status_code == 200, response.text
            assert response.headers["access-control-allow-origin"] == "*"
    finally:
        gateway.stop()
