"""Notifications in the web client, in real headless Chromium: the service worker registers, a push
delivered to it through the DevTools protocol (``ServiceWorker.deliverPushMessage``) shows a
notification carrying the table's link, and that link opens the table; the settings page saves the
player's preferences through the real NotifyService.

What headless Chromium cannot do: click a notification (no DevTools method raises
``notificationclick``), nor subscribe with a real push service (``pushManager.subscribe`` needs the
browser vendor's service, out of reach here).  So the click handler of ``web/sw.js`` is exercised
up to the link it opens: the notification's ``data.url`` is checked, then opened as the click would.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support.webplay import wait_for

ASYNC = "const done = arguments[arguments.length - 1];"


def _notifications(browser: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = browser.execute_async_script(
        ASYNC + "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => done(ns.map("
        "(n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data}))));"
    )
    return found


def test_a_pushed_turn_shows_a_notification_whose_link_opens_the_table(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    created = httpx.post(f"{url}/v1/games", json={"game_type": "darjeeling", "players": [
        {"name": "Asha"}, {"name": "Bot", "bot": "random"}]}, timeout=30)  # fmt: skip
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    browser.get(f"{url}/play/")
    active = "navigator.serviceWorker.ready.then((r) => done(r.active && r.scope));"
    scope = browser.execute_async_script(ASYNC + active)
    assert scope == f"{url}/play/"
    browser.execute_cdp_cmd("Browser.grantPermissions", {"origin": url, "permissions": ["notifications"]})
    browser.execute_cdp_cmd("ServiceWorker.enable", {})
    payload = {"type": "your_turn", "game_id": game_id, "title": "Your turn", "body": "Your turn in Darjeeling.",
               "url": f"/play/#/game/{game_id}/0", "tag": "turn-1"}  # fmt: skip

    def deliver() -> list[dict[str, Any]]:
        # A fresh profile has one registration; its id is a small number the protocol gives no way to
        # look up here, and delivering to an id that does not exist does nothing: try the first few.
        # A push that met the worker while it was (re)starting is delivered again: the same tag
        # replaces, so one notification shows whatever the number of deliveries.
        for registration in range(8):
            browser.execute_cdp_cmd("ServiceWorker.deliverPushMessage",
                                    {"origin": url, "registrationId": str(registration), "data": json.dumps(payload)})
        return _notifications(browser)

    wait_for(browser, deliver, 30, "the notification shown")
    (shown,) = _notifications(browser)
    assert shown["title"] == "Your turn" and shown["tag"] == "turn-1"
    assert shown["data"]["url"] == f"{url}/play/#/game/{game_id}/0"
    browser.get(shown["data"]["url"])  # what the click handler opens (web/sw.js)
    wait_for(browser, lambda: browser.find_elements("id", "table-page"), 20, "the table")
    assert game_id in browser.current_url


def test_the_settings_page_saves_the_players_preferences(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    browser.get(f"{url}/play/#/settings")
    wait_for(browser, lambda: browser.find_elements("id", "save-settings"), 20, "the settings form")
    assert browser.find_element("id", "notify-me").text == "Notify me when it's my turn"
    browser.find_element("css selector", "#notices input[name=game_finished]").click()
    fill = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
    browser.execute_script(fill, browser.find_element("id", "quiet-start"), "22:00")
    browser.execute_script(fill, browser.find_element("id", "quiet-end"), "07:30")
    browser.execute_script(fill, browser.find_element("id", "time-zone"), "Europe/Madrid")
    browser.find_element("id", "save-settings").click()
    wait_for(browser, lambda: browser.find_element("id", "settings-said").text == "Saved.", 20, "saved")
    token = json.loads(browser.execute_script("return localStorage.getItem('chaiwala.player')"))["token"]
    saved = httpx.get(f"{url}/v1/me/preferences", headers={"Authorization": f"Bearer {token}"}, timeout=30).json()
    assert saved["quiet_hours"] == {"start": "22:00", "end": "07:30"} and saved["time_zone"] == "Europe/Madrid"
    assert "game_finished" not in saved["notices"] and "your_turn" in saved["notices"]
