"""A page left for another closes its streams, so a browser's next pages never wait for a connection.

Found by the suite's clock: a browser went from the lobby through two tables to a third, and the
third table's requests (its module, its stream ticket) waited about a minute.  Chromium kept each
page it left in its back/forward cache with the page's streams still open, and a browser opens at
most six HTTP/1.1 connections to one host.  Here a table is opened on a gateway of its own (its
game stream, and the player stream), then the browser goes to another address: the gateway's open
SSE streams (``chaiwala_gateway_sse_streams``) must fall back to none; going Back shows the table
read afresh, following its game again.
"""

from __future__ import annotations

from typing import Any

from tests.support import webgames
from tests.support.browser import chromium
from tests.support.stack import Gateway, routes
from tests.support.webplay import LEGAL, page_url, remember_seat, wait_for

BOT = {"name": "Bot", "bot": "random"}


def _open_streams(gateway: Gateway) -> float:
    found = gateway.app.state.metrics.registry.get_sample_value("chaiwala_gateway_sse_streams")
    return float(found or 0)


def _offers_moves(driver: Any) -> bool:
    return bool(driver.execute_script("return document.querySelector(arguments[0])", LEGAL))


def test_a_table_left_for_another_page_closes_its_streams(stack: dict[str, Any], redis_url: str) -> None:
    with Gateway(routes(stack), redis_url=redis_url) as gateway, chromium() as driver:
        created = webgames.create(gateway.url, "darjeeling", [{"name": "Asha"}, BOT], seed=4301)
        game_id = created["game_id"]
        driver.get(page_url(gateway.url, ""))
        remember_seat(driver, game_id, "darjeeling", 0, created["seats"][0]["token"])
        driver.get(page_url(gateway.url, f"game/{game_id}/0"))
        wait_for(driver, lambda: _offers_moves(driver), 60, "the table with its moves")
        wait_for(driver, lambda: _open_streams(gateway) >= 1, 30, "the table's stream open")
        driver.get("about:blank")  # the table may stay whole in the back/forward cache
        wait_for(driver, lambda: _open_streams(gateway) == 0, 30, "every stream of the table left to close")
        driver.back()
        wait_for(driver, lambda: _offers_moves(driver), 60, "the table again, with its moves")
        wait_for(driver, lambda: _open_streams(gateway) >= 1, 30, "its game followed again")
