"""The web client's shell in the browser: a dropped stream, a phone, the lobby, another origin.

Real stack and real headless Chromium, as in ``test_web_tables.py``.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support import webgames
from tests.support.browser import chromium, console_errors
from tests.support.cut_proxy import CutProxy
from tests.support.stack import Gateway
from tests.support.webplay import ROOT, log_lines, open_table, screenshot, wait_for

RANDOM_BOT = {"name": "Bot", "bot": "random"}


def _version(driver: Any) -> int:
    return int(driver.execute_script("return Number(document.body.dataset.version || -1)"))


def _my_turn(driver: Any) -> bool:
    return bool(driver.execute_script("return document.getElementById('turn').classList.contains('mine')"))


def _click_first_offer(driver: Any) -> None:
    """A real click (selenium's, no script) on the first move the page offers."""
    from selenium.common.exceptions import StaleElementReferenceException

    before = _version(driver)
    offers = "#board [data-move-index], #moves [data-move-index]"
    for _ in range(20):  # the page may redraw between finding the offer and clicking it
        wait_for(driver, lambda: _my_turn(driver) and driver.find_elements("css selector", offers), 20)
        found = driver.find_elements("css selector", offers)
        if not found:  # redrawn since the wait saw it: look again
            continue
        offer = found[0]
        try:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", offer)
            offer.click()
            break
        except StaleElementReferenceException:
            continue
    wait_for(driver, lambda: _version(driver) > before, 20, "the move to land")


@pytest.fixture
def proxy(stack: dict[str, Any]) -> Iterator[CutProxy]:
    """A proxy in front of the suite's gateway whose connections can be cut."""
    cutter = CutProxy(stack["gateway"].port)
    try:
        yield cutter
    finally:
        cutter.stop()


def test_a_dropped_stream_resumes_without_losing_or_repeating_a_line(
    stack: dict[str, Any], browser: Any, proxy: CutProxy
) -> None:
    url = str(stack["url"])
    game_id, token = webgames.create_for_first_seat(url, "darjeeling", [{"name": "Asha"}, RANDOM_BOT], seed=23)
    open_table(browser, proxy.origin, game_id, token)
    for _ in range(3):
        for _ in range(3):
            _click_first_offer(browser)
        assert proxy.cut() >= 1  # the live stream (and any keep-alive connection) drops here
    _click_first_offer(browser)
    wait_for(browser, lambda: _my_turn(browser), 30, "the bot's reply")
    # The page and the API are compared until they agree: the bot may still be replying, so one
    # fetch of the API can be behind the page. A lost or repeated line never agrees.
    seen: dict[str, Any] = {}

    def agree() -> bool:
        seen["api"] = webgames.event_lines(url, game_id, token)
        seen["page"] = log_lines(browser)
        return bool(seen["page"] == seen["api"])

    wait_for(browser, agree, 30, "the log to match the API's events")
    assert seen["page"] == seen["api"]  # in order, nothing lost, nothing twice
    resumed = [head for head in proxy.request_heads(f"/v1/games/{game_id}/events") if "last-event-id:" in head.lower()]
    assert resumed, "the browser never resumed a stream with Last-Event-ID"
    # Chromium reports what the proxy cut (the stream, or a keep-alive request mid-body) as failed
    # loads (net::ERR_...); anything else is an error of the page.
    cut = (f"/v1/games/{game_id}/events", "net::ERR_")
    assert [line for line in console_errors(browser) if not any(mark in line for mark in cut)] == []


def test_a_phone_sized_table_scales_and_keeps_its_controls_reachable(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    clock = {"per_turn_s": 600}
    created = webgames.create(url, "darjeeling", [{"name": "Asha"}, RANDOM_BOT], seed=31, clock=clock)
    with chromium() as phone:
        phone.set_window_size(390, 844)
        open_table(phone, url, created["game_id"], created["seats"][0]["token"])
        wait_for(phone, lambda: phone.find_elements("css selector", "#board svg .space"), 20, "the board")
        viewport = phone.execute_script("return document.documentElement.clientWidth")
        assert phone.execute_script("return document.documentElement.scrollWidth") <= viewport  # no sideways scroll
        board = phone.execute_script("return document.querySelector('#board svg').getBoundingClientRect().width")
        assert 300 <= board <= viewport
        screenshot(phone, "darjeeling-phone")
        # Each seat's clock, the seat to act's counting down from ten minutes.
        clocks = phone.execute_script(
            "return [...document.querySelectorAll('#clocks li')].map((li) => [li.dataset.seat, li.textContent]);"
        )
        assert [seat for seat, _ in clocks] == ["0", "1"]
        assert re.search(r"\b(10:00|9:[0-5]\d)\b", clocks[0][1]) and "Asha" in clocks[0][1]
        for _ in range(3):  # starting position on the board, then whatever comes: all real taps
            _click_first_offer(phone)
        assert console_errors(phone) == []


def test_lobby_creates_with_a_bot_and_an_open_seat_and_another_person_joins(
    stack: dict[str, Any], browser: Any, second_browser: Any
) -> None:
    url = str(stack["url"])
    browser.get(f"{url}/play/")
    wait_for(browser, lambda: browser.find_elements("css selector", "#lobby #game-type option"), 20, "game types")
    select = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
    browser.execute_script(select, browser.find_element("id", "game-type"), "darjeeling")
    browser.execute_script(select, browser.find_element("id", "player-count"), "3")
    kinds = browser.find_elements("css selector", "select.seat-kind")
    assert len(kinds) == 3
    browser.execute_script(select, kinds[1], "open")
    browser.execute_script(select, kinds[2], "bot:random")
    browser.find_element("id", "player-name").send_keys("Asha")
    browser.find_element("id", "create-game").click()
    wait_for(browser, lambda: "#/game/" in browser.current_url, 20, "the new table")
    game_id = browser.current_url.split("#/game/")[1].split("/")[0]
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.status") == "waiting", 20)
    seats = webgames.game(url, game_id)["seats"]
    # The page's player is a guest: its seat shows the guest mark (services.identity.player).
    assert re.fullmatch(r"Asha \(guest [0-9a-f]{4}\)", seats[0]["name"])
    assert seats[1]["open"] and seats[2]["bot"] == "random"

    second_browser.get(f"{url}/play/")
    listed = f"#open-games li[data-game-id='{game_id}'] button.join"
    wait_for(second_browser, lambda: second_browser.find_elements("css selector", listed), 20, "the open game")
    second_browser.find_element("css selector", listed).click()
    # The join page asks the joiner's name (issue #42, item 7): nobody plays as a made-up guest.
    wait_for(second_browser, lambda: second_browser.find_elements("id", "join-name"), 20, "the join page")
    second_browser.find_element("id", "join-name").send_keys("Bilal")
    second_browser.find_element("id", "join-game").click()
    wait_for(second_browser, lambda: f"#/game/{game_id}" in second_browser.current_url, 20, "joining")
    for person in (browser, second_browser):
        wait_for(person, lambda p=person: p.execute_script("return document.body.dataset.status") == "active", 30)
    # A guest is shown with its guest mark ("Bilal (guest 3f9a)"): the name typed comes first.
    assert webgames.game(url, game_id)["seats"][1]["name"].split(" (guest")[0] == "Bilal"

    kept = json.loads(browser.execute_script("return localStorage.getItem('chaiwala.games')"))
    mine = next(g for g in kept if g["gameId"] == game_id)
    assert set(mine["seats"]) == {"0"} and mine["hostToken"]
    browser.get(f"{url}/play/#/")
    wait_for(browser, lambda: browser.find_elements("css selector", f"#my-games li[data-game-id='{game_id}']"), 20)
    running = f"#running-games li[data-game-id='{game_id}']"
    wait_for(browser, lambda: browser.find_elements("css selector", running), 20, "the running game")
    screenshot(browser, "lobby")
    assert console_errors(browser) == [] and console_errors(second_browser) == []


@pytest.fixture
def other_origin() -> Iterator[str]:
    """The repository's files from a plain static HTTP server on its own port (another origin)."""
    handler = functools.partial(_QuietFiles, directory=str(ROOT))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


def test_the_page_works_from_another_origin(stack: dict[str, Any], browser: Any, other_origin: str) -> None:
    addresses = {game: service.address for game, service in stack["services"].items()}
    gateway = Gateway(addresses, redis_url=stack["gateway"].settings.redis_url, cors_origins=other_origin)
    try:
        created = webgames.create(gateway.url, "darjeeling", [{"name": "Asha"}, RANDOM_BOT], seed=41)
        browser.get(f"{other_origin}/web/index.html?api={gateway.url}#/")
        wait_for(browser, lambda: browser.find_elements("css selector", "#lobby #game-type option"), 20, "game types")
        browser.get(f"{other_origin}/web/index.html?api={gateway.url}#/")
        script = """
const [gameId, token] = arguments;
localStorage.setItem("chaiwala.games", JSON.stringify([{gameId, gameType: "darjeeling", seats: {"0": token}}]));
localStorage.setItem("chaiwala.words", "es");
"""
        browser.execute_script(script, created["game_id"], created["seats"][0]["token"])
        browser.get(f"{other_origin}/web/index.html?api={gateway.url}#/game/{created['game_id']}")
        for _ in range(2):
            _click_first_offer(browser)
        wait_for(browser, lambda: len(log_lines(browser)) > 0, 20, "events over the ticketed stream")
        wait_for(browser, lambda: _my_turn(browser), 30, "the bot's reply")
        # In Spanish, as chosen on the page: the stream's words come with ?lang= (no headers in EventSource).
        spanish = webgames.event_lines(gateway.url, created["game_id"], created["seats"][0]["token"], "es")
        wait_for(browser, lambda: len(log_lines(browser)) >= len(spanish), 20, "the whole log")
        assert log_lines(browser) == spanish
        assert browser.find_element("id", "turn").text == "Tu turno"
        assert console_errors(browser) == []
    finally:
        gateway.stop()
