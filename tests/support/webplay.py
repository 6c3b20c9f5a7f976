"""Driving the reference web client (``web/``) in a real browser: open a table, click through a game.

Shared by every table's tests (``tests/web/``).  The page's element ids are the shell's
contract (see ``web/README.md``): ``#board``, ``#moves``, ``#log``, ``#turn``, ``#clocks``,
``#result``, ``#lobby``; every clickable legal move, on the board or as a button, carries
``data-move-index``.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from selenium.common.exceptions import JavascriptException, StaleElementReferenceException

from tests.support.browser import console_errors

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"  # git-ignored: screenshots of every table test
LEGAL = "#board [data-move-index], #moves [data-move-index]"
# Installed before a page loads (``Page.addScriptToEvaluateOnNewDocument``): every path the page
# fetches, POSTs in ``window.__posts`` and the rest in ``window.__gets``.
FETCHES = """
window.__posts = [];
window.__gets = [];
const original = window.fetch.bind(window);
window.fetch = (input, init) => {
  const method = ((init && init.method) || (input instanceof Request ? input.method : "GET")).toUpperCase();
  const url = typeof input === "string" ? input : input instanceof Request ? input.url : String(input);
  const path = new URL(url, location.href).pathname;
  (method === "POST" ? window.__posts : window.__gets).push(path);
  return original(input, init);
};
"""


def remember_seat(driver: Any, game_id: str, game_type: str, seat: int, token: str) -> None:
    """Put a seat token into the page's "my games" (localStorage), as the lobby does after a join."""
    script = """
const [gameId, gameType, seat, token] = arguments;
const games = JSON.parse(localStorage.getItem("chaiwala.games") || "[]");
let game = games.find((g) => g.gameId === gameId);
if (!game) {
  game = {gameId, gameType, seats: {}, hostToken: null, name: "", at: new Date().toISOString()};
  games.unshift(game);
}
game.seats[String(seat)] = token;
localStorage.setItem("chaiwala.games", JSON.stringify(games));
"""
    driver.execute_script(script, game_id, game_type, seat, token)


def page_url(base_url: str, hash_route: str, api: str | None = None) -> str:
    """The client's URL at ``base_url`` (served under ``/play/``), optionally against another origin's API."""
    query = f"?api={api}" if api else ""
    return f"{base_url}/play/{query}#/{hash_route}"


def open_table(
    driver: Any, base_url: str, game_id: str, token: str | None, seat: int = 0, api: str | None = None
) -> None:
    """Open a game's table as the seat holding ``token`` (a spectator when ``token`` is None)."""
    driver.get(page_url(base_url, "", api))
    if token is None:
        driver.get(page_url(base_url, f"watch/{game_id}", api))
    else:
        remember_seat(driver, game_id, game_id.rsplit("-", 1)[0], seat, token)
        driver.get(page_url(base_url, f"game/{game_id}/{seat}", api))
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.version !== undefined"), 30)


def wait_for(driver: Any, predicate: Any, timeout: float, what: str = "condition") -> Any:
    """Poll ``predicate()`` until it is truthy; fail with the page's console errors after ``timeout``.

    While the page redraws, a predicate may find an element gone (stale) or a script may meet an
    element not drawn yet (a JavaScript error): that counts as "not yet", and the last such error
    is named if the time runs out.
    """
    deadline = time.monotonic() + timeout
    missed: Exception | None = None  # the last error a predicate met
    while True:
        try:
            value = predicate()
        except (StaleElementReferenceException, JavascriptException) as error:
            value, missed = None, error
        if value:
            return value
        if time.monotonic() > deadline:
            console = console_errors(driver)
            raise AssertionError(f"timed out waiting for {what}; last error: {missed!r}; console: {console}")
        time.sleep(0.05)


def result_visible(driver: Any) -> bool:
    """``#result`` is shown (the game is over)."""
    return bool(driver.execute_script("const r = document.getElementById('result'); return !!r && !r.hidden;"))


def _clickables(driver: Any) -> list[Any]:
    """The offered moves that are displayed now (read in one script: the page redraws often)."""
    script = "return [...document.querySelectorAll(arguments[0])].filter((e) => e.getClientRects().length > 0);"
    found: list[Any] = driver.execute_script(script, LEGAL)
    return found


def _click(driver: Any, element: Any) -> bool:
    """A real click on the element (scrolled into view); where that is refused (SVG), a DOM click.

    Returns False when the page redrew the element away before the click (nothing was clicked).
    """
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'});", element)
        try:
            element.click()
        except StaleElementReferenceException:
            raise
        except WebDriverException:  # intercepted, or not clickable at its centre: dispatch the click instead
            driver.execute_script(
                "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true}));", element
            )
    except StaleElementReferenceException:
        return False
    return True


def play_to_result(driver: Any, timeout: float, seed: int = 0, on_click: Any = None) -> int:
    """Click a random offered move (board or button) whenever there is one, until ``#result`` shows.

    Returns the number of clicks.  Fails on a browser console error or when the game does not
    end within ``timeout`` seconds.  ``on_click(n)`` is called after the n-th click (screenshots).
    """
    chooser = random.Random(seed)
    deadline = time.monotonic() + timeout
    clicks = 0
    errors: list[str] = []
    while not result_visible(driver):
        assert time.monotonic() < deadline, f"no result after {timeout}s and {clicks} clicks"
        errors += console_errors(driver)
        assert not errors, f"browser console errors: {errors}"
        offered = _clickables(driver)
        if not offered:
            time.sleep(0.05)
            continue
        version = driver.execute_script("return document.body.dataset.version")
        if not _click(driver, chooser.choice(offered)):
            continue
        clicks += 1
        if on_click is not None:
            on_click(clicks)
        _wait_after_click(driver, version)
    errors += console_errors(driver)
    assert not errors, f"browser console errors: {errors}"
    return clicks


def _wait_after_click(driver: Any, version: str) -> None:
    """Until the page shows a newer version, a result, or an offer that the click left standing (a table form)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if result_visible(driver) or driver.execute_script("return document.body.dataset.version") != version:
            return
        time.sleep(0.05)


def log_lines(driver: Any) -> list[tuple[str, str]]:
    """The log as shown: ``(event id, sentence)`` per line, in order (without the line's number)."""
    script = """
return [...document.querySelectorAll('#log li')].map(
  (li) => [li.dataset.eventId, (li.querySelector('.log-text') || li).textContent]);
"""
    return [(str(i), str(t)) for i, t in driver.execute_script(script)]


def result_rows(driver: Any) -> dict[str, Any]:
    """``#result`` as data: the winner seats and, per row, seat, rank and score as shown."""
    script = """
const r = document.getElementById('result');
const cell = (tr, name) => tr.querySelector(name).textContent;
const rows = [...r.querySelectorAll('tr[data-seat]')].map((tr) =>
  ({seat: Number(tr.dataset.seat), rank: cell(tr, '.rank'), score: cell(tr, '.score')}));
return JSON.stringify({winners: r.dataset.winners, rows});
"""
    data: dict[str, Any] = json.loads(driver.execute_script(script))
    return data


def screenshot(driver: Any, name: str) -> Path:
    """Save a PNG of the page under ``test-artifacts/web/`` (git-ignored) and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# ---- Choosing moves (webtables) ---------------------------------------------------------------
# Random clicking plays games of hundreds of moves; these helpers let a test choose each move
# from the seat's legal-move list (read from the API, as the page reads it) and then click the
# page's element for exactly that move, on the board when the table placed it there.


@dataclass
class Played:
    """What :func:`play_choosing` clicked: every move kind, and those clicked on the board."""

    clicks: int = 0
    kinds: list[str] = field(default_factory=list)
    on_board: list[str] = field(default_factory=list)


def move_kind(move: dict[str, Any]) -> str:
    """The kind of a legal move as the API lists it (its one field besides ``@type`` and ``text``)."""
    return next(key for key in move if key not in ("@type", "text", "costs"))


OFFERED = """
const index = arguments[0];
for (const [where, onBoard] of [["#board", true], ["#moves", false]]) {
  for (const element of document.querySelectorAll(`${where} [data-move-index="${index}"]`)) {
    if (element.getClientRects().length > 0) return [element, onBoard];
  }
}
return null;
"""


def offered_element(driver: Any, index: int) -> tuple[Any, bool] | None:
    """The page's shown element for legal move ``index`` (the board's first) and whether it is on the board."""
    found = driver.execute_script(OFFERED, index)  # one script: the page redraws often
    return (found[0], bool(found[1])) if found else None


def play_choosing(
    driver: Any,
    api_url: str,
    game_id: str,
    token: str,
    choose: Any,
    timeout: float,
    on_click: Any = None,
) -> Played:
    """Play the seat of ``token`` to ``#result`` by clicking, each time, the move ``choose(moves)`` picks.

    ``choose`` gets the legal moves (API JSON) of the version the page shows and returns an
    index; the page must offer that move (on the board or as a button).  Fails on a console
    error, on a move the page does not offer, or when the game is not over in ``timeout`` s.
    """
    import httpx

    played = Played()
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=api_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as api:
        while not result_visible(driver):
            assert time.monotonic() < deadline, f"no result after {timeout}s and {played.clicks} clicks"
            errors = console_errors(driver)
            assert not errors, f"browser console errors: {errors}"
            version = driver.execute_script("return document.body.dataset.version")
            if not driver.execute_script(f"return document.querySelector('{LEGAL}') !== null"):
                time.sleep(0.03)
                continue
            legal = api.get(f"/v1/games/{game_id}/legal-moves").json()
            if str(legal.get("version")) != version or not legal.get("moves"):
                time.sleep(0.03)
                continue
            index = choose(legal["moves"])
            found = offered_element(driver, index)
            if found is None or not _click(driver, found[0]):  # the page is between two drawings
                time.sleep(0.03)
                continue
            kind = move_kind(legal["moves"][index])
            played.clicks += 1
            played.kinds.append(kind)
            if found[1]:
                played.on_board.append(kind)
            if on_click is not None:
                on_click(played.clicks)
            _wait_after_click(driver, version)
    errors = console_errors(driver)
    assert not errors, f"browser console errors: {errors}"
    return played
