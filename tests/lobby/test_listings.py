"""One page_size rule for every listing, through the real gateway and its backends (issue #13 review).

``GET /v1/games``, ``/v1/tournaments``, ``/v1/ratings/{game_type}`` and
``/v1/webhooks/{id}/deliveries`` read ``page_size`` the same way (``gateway/listing.py``): 1 to
100, default 20; 0, 101, a sign, a non-ASCII digit or a word is 400 ``bad_page_size`` (the
deliveries listing used to take 0 as "the default" and any size up to six digits).  The OpenAPI
document states the same bounds on every listing.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from gateway.listing import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from tests.support.client import assert_problem, auth
from tests.support.stack import WEBHOOK_OPERATOR_KEY

LISTINGS = ["/v1/games", "/v1/tournaments", "/v1/ratings/darjeeling", "/v1/webhooks/{webhook_id}/deliveries"]
OPERATOR = auth(WEBHOOK_OPERATOR_KEY)


@pytest.fixture(scope="module")
def webhook_id(client: httpx.Client) -> Iterator[str]:
    # Loopback is allowed in the test stack; no game finishes while this module runs, and the
    # subscription is gone before the next one.
    body = {"url": "http://127.0.0.1:9/listings", "events": ["game.finished"]}
    created = client.post("/v1/webhooks", json=body, headers=OPERATOR)
    assert created.status_code == 201, created.text
    webhook: str = created.json()["webhook_id"]
    yield webhook
    client.delete(f"/v1/webhooks/{webhook}", headers=OPERATOR)


def _path(listing: str, webhook_id: str) -> str:
    return listing.replace("{webhook_id}", webhook_id)


@pytest.mark.parametrize("listing", LISTINGS)
@pytest.mark.parametrize("size", ["0", "101", "-1", "+5", "ten", "\u00b2", "", "1000000"])
def test_a_page_size_outside_1_to_100_is_a_400_on_every_listing(
    client: httpx.Client, webhook_id: str, listing: str, size: str
) -> None:
    response = client.get(_path(listing, webhook_id), params={"page_size": size}, headers=OPERATOR)
    assert_problem(response, 400, "bad_page_size")


@pytest.mark.parametrize("listing", LISTINGS)
def test_every_listing_takes_1_and_100_and_defaults_to_20(client: httpx.Client, webhook_id: str, listing: str) -> None:
    for size in ("1", str(MAX_PAGE_SIZE), None):
        params = {} if size is None else {"page_size": size}
        response = client.get(_path(listing, webhook_id), params=params, headers=OPERATOR)
        assert response.status_code == 200, response.text


def test_the_default_page_is_20_games(client: httpx.Client) -> None:
    players = [{"name": "Asha"}, {"name": "Bilal"}]
    for _ in range(DEFAULT_PAGE_SIZE + 1 - len(client.get("/v1/games", params={"page_size": "21"}).json()["games"])):
        assert client.post("/v1/games", json={"game_type": "darjeeling", "players": players}).status_code == 201
    listing = client.get("/v1/games").json()
    assert len(listing["games"]) == DEFAULT_PAGE_SIZE and listing["next_page_token"]


def test_the_document_states_the_same_bounds_on_every_listing(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for listing in [*LISTINGS[:2], "/v1/ratings/{game_type}", LISTINGS[3]]:
        parameters = {p["name"]: p for p in paths[listing]["get"]["parameters"]}
        schema = parameters["page_size"]["schema"]
        assert (schema["minimum"], schema["maximum"], schema["default"]) == (1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE)
