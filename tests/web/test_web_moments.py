"""What just happened and how it ended, in the browser: the last move outlined on the board and
named in words, the log numbered in full, the end screen's score breakdown.

Real stack (rules services, gateway, conductor playing the bots, Redis), real headless Chromium.
"""

from __future__ import annotations

import re
import time
from typing import Any

import httpx
import pytest

from tests.support import webgames
from tests.support.seeds import seed_hex
from tests.support.webplay import (
    log_lines,
    open_table,
    page_url,
    result_rows,
    result_visible,
    screenshot,
    wait_for,
)

FINISH_TIMEOUT = 300  # bots only: a quiet machine finishes each of these games in seconds
BOTS: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "darjeeling": (
        [{"name": "Asha", "bot": "heuristic"}, {"name": "Bot", "bot": "heuristic"}],
        {"seed_hex": seed_hex(11)},
    ),
    "alubari": (
        [{"name": "Asha", "bot": "heuristic"}, {"name": "Bot", "bot": "heuristic"}],
        {"seed_hex": seed_hex(11)},
    ),
    "tea_rum": (
        [{"name": "Asha", "bot": "heuristic"}, {"name": "Bot", "bot": "heuristic"}],
        {"seed_hex": seed_hex(11)},
    ),
    "india_rails": (
        [{"name": "Asha", "bot": "random"}, {"name": "Bot", "bot": "random"}],
        {"seed_hex": seed_hex(11), "options": {"round_limit": 1}},
    ),
}


def _events(url: str, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    answer = httpx.get(f"{url}/v1/games/{game_id}/events", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def _finished(url: str, game_type: str) -> dict[str, Any]:
    """A game of bots only, played to its end by the conductor; its GET answer."""
    players, extra = BOTS[game_type]
    game_id = webgames.create(url, game_type, players, **extra)["game_id"]
    deadline = time.monotonic() + FINISH_TIMEOUT
    while True:
        game = webgames.game(url, game_id)
        if game["status"] == "finished":
            return game
        assert game["status"] == "active" and time.monotonic() < deadline, game["status"]
        time.sleep(0.5)


@pytest.fixture(scope="module")
def finished(stack: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One finished game per game type (created once for this module)."""
    url = str(stack["url"])
    return {game_type: _finished(url, game_type) for game_type in BOTS}


# ---- the last move --------------------------------------------------------------------------


def _latest_move(events: list[dict[str, Any]]) -> tuple[int, list[dict[str, Any]]]:
    """The last version in the log and its events."""
    version = max(int(e.get("version", 0)) for e in events)
    return version, [e for e in events if int(e.get("version", 0)) == version]


def _expected_places(event: dict[str, Any]) -> list[str]:
    """Where a Darjeeling event should be marked (docs/guides/web-client.md); the ships are left out."""

    def space(row: int, col: int) -> str:
        return f".dj-grid .space[data-row='{row}'][data-col='{col}']"

    for kind, body in event.items():
        if kind in ("start_chosen", "tile_taken", "space_refilled"):
            return [space(body.get("row", 0), body.get("col", 0))]
        if kind == "collector_moved":
            return [
                space(body.get("from_row", 0), body.get("from_col", 0)),
                space(body.get("to_row", 0), body.get("to_col", 0)),
            ]
        if kind in ("action_tile_taken", "action_tile_declined"):
            return [f".dj-screen[data-seat='{body.get('seat', 0)}']"]
        if kind in ("crates_scored", "ship_loaded"):
            return [f".dj-score[data-seat='{body.get('seat', 0)}']"]
        if kind in ("tiles_laid_out", "action_played"):
            return [".dj-shipment"]
    return []


def _version(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.version"))


def _click_an_offer(driver: Any) -> None:
    """Click the first move the page offers (read and clicked in one script: the page redraws
    often) and wait until the page shows the version after it."""
    script = """
const offer = [...document.querySelectorAll('#board [data-move-index], #moves [data-move-index]')]
  .find((e) => e.getClientRects().length > 0);
if (!offer) return false;
offer.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));
return true;
"""
    before = _version(driver)
    if driver.execute_script(script):
        wait_for(driver, lambda: _version(driver) != before, 20, "the move to land")


def _bot_moved_last(url: str, game_id: str, token: str) -> bool:
    """It is the person's turn again and the game's latest move is the bot's (seat 1)."""
    game = webgames.game(url, game_id, token)
    events = _events(url, game_id, token)
    return bool(events) and 0 in game["to_act"] and _latest_move(events)[1][0].get("seat") == 1


def test_a_bots_move_is_outlined_and_named_after_it_lands(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "darjeeling", [{"name": "Asha"}, {"name": "Bot", "bot": "heuristic"}], seed=11)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    open_table(browser, url, game_id, token)
    # Asha chooses her start (and answers an action-tile offer if one comes) until the bot has replied.
    deadline = time.monotonic() + 60
    while not _bot_moved_last(url, game_id, token):
        assert time.monotonic() < deadline, "the bot did not reply"
        if browser.execute_script("return document.getElementById('turn').classList.contains('mine')"):
            _click_an_offer(browser)
        time.sleep(0.1)
    version, moved = _latest_move(_events(url, game_id, token))
    # The page has drawn that version, after the events arrived (the redraw kept the outline).
    shown = "return [document.body.dataset.version, document.getElementById('last-move').dataset.version]"
    wait_for(browser, lambda: browser.execute_script(shown) == [str(version), str(version)], 20, "the bot's move")
    line = browser.execute_script(
        "const m = document.getElementById('last-move');"
        "const text = (name) => m.querySelector(name).textContent;"
        "return [m.hidden, text('.last-move-who'), text('.last-move-text')]"
    )
    assert line == [False, "Bot", " ".join(e["text"] for e in moved if e.get("text"))]
    # Its places (the start space, the screen of the action tile, the score line...) are marked,
    # board spaces by a frame drawn over the board, panels by an outline: a shape, not a colour.
    places = [place for event in moved for place in _expected_places(event["event"])]
    assert places, f"no place expected for {moved}"
    for selector in places:
        marked = browser.execute_script(
            "const e = document.querySelector(arguments[0]);"
            "return e && [e.dataset.lastMove, e instanceof SVGElement || getComputedStyle(e).outlineStyle]",
            selector,
        )
        assert marked == [str(version), True if selector.startswith(".dj-grid") else "dashed"], selector
    spaces = sum(1 for place in places if place.startswith(".dj-grid"))
    frames = browser.execute_script("return document.querySelectorAll('#board svg .last-move-mark rect').length")
    assert frames >= 2 * spaces  # a light and a dark frame per space
    # The log marks the lines of that move, and only those.
    latest = browser.execute_script(
        "return [...document.querySelectorAll('#log li.latest')].map((li) => li.dataset.eventId)"
    )
    assert latest == [f"{e['version']}:{e['index']}" for e in moved]
    screenshot(browser, "moments-bot-move")
    # The page built again (as after a reload) shows the same last move, from the stream's history.
    browser.execute_script("window.dispatchEvent(new HashChangeEvent('hashchange'))")
    wait_for(
        browser,
        lambda: browser.execute_script("return document.querySelectorAll('#board [data-last-move]').length") > 0,
        20,
        "the outline on the page built again",
    )
    assert browser.execute_script("return document.getElementById('last-move').dataset.version") == str(version)


# ---- the log --------------------------------------------------------------------------------


def test_the_log_numbers_every_line_in_full(stack: dict[str, Any], browser: Any, finished: Any) -> None:
    url = str(stack["url"])
    game = finished["darjeeling"]
    expected = webgames.event_lines(url, game["game_id"])
    assert len(expected) > 150
    open_table(browser, url, game["game_id"], None)
    wait_for(browser, lambda: len(log_lines(browser)) >= len(expected), 30, "the whole log")
    numbers = browser.execute_script(
        "return [...document.querySelectorAll('#log li .log-n')].map((n) => n.textContent)"
    )
    assert numbers == [f"{n}." for n in range(1, len(expected) + 1)]
    # Line 159: its number is drawn whole inside the log's box, not cut at its left edge.
    fits = browser.execute_script(
        """
const log = document.getElementById('log');
const n = log.children[158].querySelector('.log-n');
n.scrollIntoView({block: 'center'});
const [box, inner] = [log.getBoundingClientRect(), n.getBoundingClientRect()];
return [n.textContent, inner.left >= box.left, inner.right <= box.right, n.scrollWidth <= n.clientWidth];
"""
    )
    assert fits == ["159.", True, True, True]
    screenshot(browser, "moments-log-numbers")


# ---- the end screen -------------------------------------------------------------------------

BREAKDOWN = """
return [...document.querySelectorAll('#result tr[data-seat]')].map((tr) => {
  const cell = document.querySelector(`#result tr[data-breakdown-seat="${tr.dataset.seat}"] td.breakdown`);
  const parts = cell ? [...cell.querySelectorAll('.part:not(.aside)')].map((p) => Number(p.dataset.value)) : [];
  const seat = Number(tr.dataset.seat);
  return {seat, total: cell ? cell.dataset.total : null, parts, text: cell ? cell.textContent : ''};
});
"""


@pytest.mark.parametrize("game_type", sorted(BOTS))
def test_the_end_screen_shows_how_each_score_adds_up(
    stack: dict[str, Any], browser: Any, finished: Any, game_type: str
) -> None:
    url = str(stack["url"])
    game = finished[game_type]
    open_table(browser, url, game["game_id"], None)
    wait_for(browser, lambda: result_visible(browser), 30, "the result")
    rows = browser.execute_script(BREAKDOWN)
    scores = game["result"]["scores"]
    assert len(rows) == len(scores)
    for row in rows:
        assert row["total"] is not None and float(row["total"]) == scores[row["seat"]], row
        assert sum(row["parts"]) == pytest.approx(float(row["total"])), row
        assert row["text"].strip()
    shown = result_rows(browser)
    assert {r["seat"]: float(r["score"]) for r in shown["rows"]} == dict(enumerate(scores))
    screenshot(browser, f"moments-end-{game_type}")


def test_darjeelings_final_panel_shows_the_results_scores(stack: dict[str, Any], browser: Any, finished: Any) -> None:
    """The score panel once showed the track (103, −22) beside a result of 100, −23: the rulebook
    takes a point per half crate left behind the screen, and so does the result."""
    url = str(stack["url"])
    game = finished["darjeeling"]
    penalties = [p.get("penalty", 0) for p in game["state"]["player_states"]]
    assert any(penalties), "this seed's game should end with half crates behind a screen"
    open_table(browser, url, game["game_id"], None)
    wait_for(browser, lambda: result_visible(browser), 30, "the result")
    lines = browser.execute_script(
        "const lines = document.querySelectorAll('.dj-scores .dj-score');"
        "return [...lines].map((d) => [Number(d.dataset.seat), d.textContent])"
    )
    panel = {seat: int(re.search(r":\s*(-?\d+)", text).group(1)) for seat, text in lines}  # type: ignore[union-attr]
    assert panel == {seat: int(score) for seat, score in enumerate(game["result"]["scores"])}
    totals = {row["seat"]: int(row["total"]) for row in browser.execute_script(BREAKDOWN)}
    assert totals == panel


@pytest.mark.parametrize("game_type", sorted(BOTS))
def test_every_game_outlines_a_moves_places_in_the_replay(
    stack: dict[str, Any], browser: Any, finished: Any, game_type: str
) -> None:
    """Each game's first move touches a place of its table (a space, a segment, an action space, a
    ship...): the replay viewer outlines it at that step, as the table page does for the last move."""
    url = str(stack["url"])
    game = finished[game_type]
    browser.get(page_url(url, ""))
    browser.get(page_url(url, f"replay/{game['game_id']}"))
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.version === '0'"), 30, "step 0")
    assert browser.execute_script("return document.querySelectorAll('#board [data-last-move]').length") == 0
    browser.find_element("id", "replay-forward").click()
    marked = "return document.querySelectorAll('#board [data-last-move=\"1\"]').length"
    wait_for(browser, lambda: browser.execute_script(marked) > 0, 30, "the first move's places")
    first = [line for line in webgames.event_lines(url, game["game_id"]) if line[0].startswith("1:")]
    assert browser.execute_script(
        "return [...document.querySelectorAll('#log li.latest')].map((li) => li.dataset.eventId)"
    ) == [i for i, _ in first]
