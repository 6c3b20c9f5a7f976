"""Darjeeling and India Rails in the browser: a person's seat plays a whole game against a bot only
by clicking what the page offers, while a second browser watches as a spectator.

Real stack (rules services, gateway, conductor, Redis), real headless Chromium.  Each test writes
screenshots of its table (start, middle, end) under ``test-artifacts/web/`` and checks the player's
page at the desktop size is legible there (tests/support/legibility.py assert_legible; the
legibility test plays these two tables at the phone's size only).
"""

from __future__ import annotations

from typing import Any

from tests.support import webgames
from tests.support.legibility import DESKTOP, assert_end_explained, assert_legible, set_viewport
from tests.support.webplay import (
    log_lines,
    open_table,
    play_to_result,
    result_rows,
    result_visible,
    screenshot,
    wait_for,
)

MIDDLE_CLICK = 10
PLAY_TIMEOUT = 400  # a cap for a loaded machine; a quiet one plays each game in well under a minute


def _status(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.status || ''"))


def _count(driver: Any, selector: str) -> int:
    return int(driver.execute_script("return document.querySelectorAll(arguments[0]).length", selector))


def _count_while_active(driver: Any, selector: str) -> int:
    """How many ``selector`` match while the page shows an active game (0 once it does not).

    Status and count are read in one script: two reads could straddle the redraw at the game's end,
    when every screen is opened.
    """
    script = (
        "return document.body.dataset.status === 'active'"
        " ? document.querySelectorAll(arguments[0]).length : 0"
    )
    return int(driver.execute_script(script, selector))


def _same_logs(url: str, game_id: str, token: str, player: Any, spectator: Any) -> None:
    """Each page's log is exactly the API's events for its viewer; the spectator's are among the player's."""
    seat_lines = webgames.event_lines(url, game_id, token)
    public_lines = webgames.event_lines(url, game_id)
    wait_for(player, lambda: len(log_lines(player)) >= len(seat_lines), 20, "the player's log")
    wait_for(spectator, lambda: len(log_lines(spectator)) >= len(public_lines), 20, "the spectator's log")
    assert log_lines(player) == seat_lines
    assert log_lines(spectator) == public_lines
    assert {i for i, _ in public_lines} <= {i for i, _ in seat_lines}


def _open_seat_and_spectator(
    browser: Any, second_browser: Any, url: str, created: dict[str, Any], game: str, drawn: str, at_least: int
) -> None:
    """Seat 0's table at the desktop size and a spectator's, once ``at_least`` of ``drawn`` are on
    the seat's board; its start shot and checked legible."""
    set_viewport(browser, DESKTOP)
    open_table(browser, url, created["game_id"], created["seats"][0]["token"])
    open_table(second_browser, url, created["game_id"], None)
    wait_for(browser, lambda: _count(browser, drawn) >= at_least, 30, f"the {game} board")
    screenshot(browser, f"{game}-start")
    assert_legible(browser, DESKTOP, f"{game} at its start")


def _in_the_middle(browser: Any, second_browser: Any, game: str) -> bool:
    """The middle's shots (the seat's and the spectator's), and the seat's page checked legible
    unless the game has just ended (its end is checked at the result)."""
    screenshot(browser, f"{game}-middle")
    screenshot(second_browser, f"{game}-spectator")
    if result_visible(browser):
        return False
    assert_legible(browser, DESKTOP, f"{game} in its middle")
    return True


def _at_the_end(browser: Any, game: str, url: str, game_id: str) -> None:
    """The result's shot, the seat's page checked legible, the end explained (Asha against Bot)."""
    screenshot(browser, f"{game}-end")
    assert_legible(browser, DESKTOP, f"{game} at its end")
    assert_end_explained(browser, game, ("Asha", "Bot"), webgames.game(url, game_id)["result"]["winners"])


def _check_result(url: str, game_id: str, driver: Any) -> None:
    result = webgames.game(url, game_id)["result"]
    shown = result_rows(driver)
    assert shown["winners"] == ",".join(str(s) for s in result["winners"])
    for row in shown["rows"]:
        assert row["rank"] == str(result["ranking"][row["seat"]])
        assert float(row["score"]) == result["scores"][row["seat"]]


def test_darjeeling_played_by_clicks_to_the_result_with_a_spectator(
    stack: dict[str, Any], browser: Any, second_browser: Any
) -> None:
    url = str(stack["url"])
    # The heuristic bot races to the goal, which keeps the game short against random clicks.
    created = webgames.create(url, "darjeeling", [{"name": "Asha"}, {"name": "Bot", "bot": "heuristic"}], seed=11)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    _open_seat_and_spectator(browser, second_browser, url, created, "darjeeling", "#board svg .space", 1)
    seen = {"own_tiles": False, "middle": False}

    def each_click(clicks: int) -> None:
        # While the game goes on, tiles behind a screen are drawn for their owner only.
        assert _count_while_active(second_browser, ".dj-screen .dj-tile") == 0
        if _count_while_active(browser, ".dj-screen.mine .dj-tile") > 0:
            seen["own_tiles"] = True
        if clicks == MIDDLE_CLICK:
            seen["middle"] = _in_the_middle(browser, second_browser, "darjeeling")

    clicks = play_to_result(browser, PLAY_TIMEOUT, seed=1, on_click=each_click)
    assert clicks > MIDDLE_CLICK and seen["own_tiles"] and seen["middle"]
    _at_the_end(browser, "darjeeling", url, game_id)
    _check_result(url, game_id, browser)
    wait_for(second_browser, lambda: result_visible(second_browser), 30, "the spectator's result")
    _same_logs(url, game_id, token, browser, second_browser)

    # The replay viewer: the result links to it; it steps through the game move by move.
    browser.find_element("css selector", "#result a[href*='#/replay/']").click()
    at_start = "return document.body.dataset.version === '0'"
    wait_for(browser, lambda: browser.execute_script(at_start), 20, "the replay's start")
    for _ in range(3):
        browser.find_element("id", "replay-forward").click()
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.version === '3'"), 20, "move 3")
    wait_for(browser, lambda: _count(browser, "#board svg .collector") > 0, 20, "the replayed board")
    early = [line for line in webgames.event_lines(url, game_id, token) if int(line[0].split(":")[0]) <= 3]
    assert log_lines(browser) == early
    screenshot(browser, "darjeeling-replay")


def test_india_rails_played_by_clicks_to_the_result_with_a_spectator(
    stack: dict[str, Any], browser: Any, second_browser: Any
) -> None:
    url = str(stack["url"])
    players = [{"name": "Asha"}, {"name": "Bot", "bot": "random"}]
    # One round (the platform's round limit) keeps the game short; the map and every phase stay.
    created = webgames.create(url, "india_rails", players, seed=5, options={"round_limit": 1})
    game_id, token = created["game_id"], created["seats"][0]["token"]
    _open_seat_and_spectator(browser, second_browser, url, created, "india_rails", "#board svg .milepost", 2001)
    seen = {"placed": 0, "middle": False}

    def each_click(clicks: int) -> None:
        # Cash behind the screen: the seat sees its own, the spectator sees it hidden.
        # Status and cash are read in one script: the page may redraw (the game ending) between two reads.
        status, hidden = second_browser.execute_script(
            "return [document.body.dataset.status || '', document.querySelector('.ir-cash').dataset.hidden]"
        )
        if status == "active":
            assert hidden == "true"
        assert browser.execute_script("return document.querySelector('.ir-player.mine .ir-cash').dataset.hidden") == (
            "false"
        )
        seen["placed"] += _count(browser, "#board [data-move-index]")
        if clicks == MIDDLE_CLICK:
            seen["middle"] = _in_the_middle(browser, second_browser, "india_rails")

    clicks = play_to_result(browser, PLAY_TIMEOUT, seed=2, on_click=each_click)
    assert clicks > MIDDLE_CLICK and seen["placed"] > 0  # track was built by clicking the map
    assert seen["middle"]
    _at_the_end(browser, "india_rails", url, game_id)
    _check_result(url, game_id, browser)
    wait_for(second_browser, lambda: result_visible(second_browser), 30, "the spectator's result")
    _same_logs(url, game_id, token, browser, second_browser)
