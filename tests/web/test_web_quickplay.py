"""The lobby's "Play now" (quick play, issue #45): the waiting view with the time waited, how many search
in the pool and a cancel button; matched with a second player, the page goes straight to the table at the
player's seat; cancelled, the ticket is cancelled on the server.

Real stack (Redis, rules services, conductor, the matchmaker process, uvicorn) and real headless Chromium.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support import secrets
from tests.support.webplay import page_url, screenshot, wait_for
from tests.web.test_web_lobby import SELECT, _set

WAIT = "return document.querySelector('#quick-wait')"


def _open(driver: Any, url: str) -> str:
    """The lobby with its quick-play form; the page's guest token."""
    driver.get(page_url(url, ""))
    wait_for(driver, lambda: driver.find_elements("css selector", "#quick-game-type option"), 30, "the quick-play form")
    kept = wait_for(driver, lambda: driver.execute_script("return localStorage.getItem('chaiwala.player')"), 30)
    token = str(json.loads(kept)["token"])
    secrets.remember(token)
    return token


def _waiting(driver: Any, url: str, per_turn_s: int) -> str:
    """The lobby's Play now pressed with :func:`_choose`'s choices: the waiting view; the guest's token."""
    token = _open(driver, url)
    _choose(driver, per_turn_s)
    driver.find_element("id", "play-now").click()
    wait_for(driver, lambda: driver.execute_script(WAIT + "?.dataset.ticketId"), 30, "the waiting view")
    return token


def _choose(driver: Any, per_turn_s: int) -> None:
    """Darjeeling for two, a per-turn clock of its own (the test's own pool), no bots."""
    _set(driver, "quick-game-type", "darjeeling", SELECT)
    _set(driver, "quick-clock-kind", "per_turn", SELECT)
    _set(driver, "quick-per-turn-s", per_turn_s)
    if driver.find_element("id", "quick-bots").is_selected():
        driver.find_element("id", "quick-bots").click()
    assert not driver.find_elements("id", "quick-rated")  # the browser's guest plays casual


def _tickets(url: str, token: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{url}/v1/me/tickets", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()["tickets"]
    return found


def test_play_now_waits_then_opens_the_table_at_the_players_seat(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    token = _waiting(browser, url, 5401)
    waited = "return document.querySelector('#quick-waited').textContent"
    wait_for(browser, lambda: browser.execute_script(waited) not in ("0:00", None), 10, "the time waited ticking")
    assert browser.execute_script("return document.querySelector('#quick-pool').textContent") == "1"
    screenshot(browser, "quick-play-waiting")
    (ticket,) = [t for t in _tickets(url, token) if t["status"] == "searching"]

    other = httpx.post(f"{url}/v1/sessions", json={"name": "Stranger"}, timeout=30).json()
    secrets.remember(other["token"])
    body = {"game_type": "darjeeling", "player_counts": [2], "time_control": {"per_turn_s": 5401}}
    made = httpx.post(f"{url}/v1/matchmaking/tickets", json=body, headers={"Authorization": f"Bearer {other['token']}"},
                      timeout=30)  # fmt: skip
    assert made.status_code == 201, made.text

    wait_for(browser, lambda: "#/game/" in browser.current_url, 30, "the table")
    game_id, seat = browser.current_url.split("#/game/")[1].split("/")[:2]
    matched = next(t for t in _tickets(url, token) if t["ticket_id"] == ticket["ticket_id"])
    assert matched["status"] == "matched" and matched["game_id"] == game_id and str(matched["seat"]) == seat
    wait_for(browser, lambda: browser.find_elements("id", "actions"), 30, "the table's actions")
    screenshot(browser, "quick-play-table")


def test_cancel_in_the_waiting_view_cancels_the_ticket(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    token = _waiting(browser, url, 5402)
    browser.find_element("id", "quick-cancel").click()
    wait_for(browser, lambda: browser.find_elements("id", "play-now"), 30, "the form again")
    assert [t["status"] for t in _tickets(url, token)] == ["cancelled"]
    assert not browser.execute_script("return document.querySelector('#quick-error').textContent")
