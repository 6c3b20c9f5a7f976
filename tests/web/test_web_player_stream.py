"""The lobby's "My games" kept live by the one player stream (issue #32).

A guest in the web client has three games against a second guest, made over HTTP with the
guest's own token from localStorage while the lobby is open; the second player moves in each
until it is the guest's turn.  "My games" marks all three "Your turn!" at the top without a
reload, and without reading ``GET /v1/me/games`` again: the page opened exactly one
``GET /v1/me/events`` (counted by a wrapper of ``fetch`` and ``EventSource`` installed before the
page's own scripts).  A game the guest resigns moves to the ended group, a game an operator seats
the guest in appears marked as an invitation; leaving the lobby closes the stream.  The lobby
stays legible with the live list.  At a table, a link tells where else it is the player's turn,
kept by the player stream too.

Real stack (Redis, rules services, conductor, uvicorn) and real headless Chromium.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support import secrets
from tests.support.legibility import DESKTOP
from tests.support.webplay import page_url, screenshot, wait_for
from tests.web.test_web_legible import assert_legible

# Installed before any script of each page: counts what the page opens on the player stream (fetch,
# as the SDK reads it, or an EventSource, should the page ever use one), the reads of the list,
# and the stream connections the page closed.
COUNTER = """
(() => {
  const seen = { events: 0, closed: 0, lists: 0 };
  window.__opened = seen;
  const fetched = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes("/v1/me/games")) seen.lists += 1;
    if (url.includes("/v1/me/events")) {
      seen.events += 1;
      if (init && init.signal) init.signal.addEventListener("abort", () => (seen.closed += 1), { once: true });
    }
    return fetched(input, init);
  };
  const Source = window.EventSource;
  window.EventSource = class extends Source {
    constructor(url, options) {
      if (String(url).includes("/v1/me/events")) seen.events += 1;
      super(url, options);
    }
  };
})();
"""
LISTED = """
return [...document.querySelectorAll('#my-games li')].map((li) => ({
  id: li.dataset.gameId, status: li.dataset.status, yourTurn: li.dataset.yourTurn === 'true',
  mark: (li.querySelector('.your-turn-mark') || {}).textContent || ''}));
"""


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _guest(url: str, name: str) -> str:
    session = httpx.post(f"{url}/v1/sessions", json={"name": name}, timeout=30).json()
    secrets.remember(session["token"])
    return str(session["token"])


def _opened(driver: Any) -> dict[str, int]:
    found: dict[str, int] = driver.execute_script("return window.__opened")
    return found


def _listed(driver: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = driver.execute_script(LISTED)
    return found


def _to_act(url: str, game_id: str) -> list[int]:
    answer = httpx.get(f"{url}/v1/games/{game_id}", timeout=30).json()
    return list(answer["to_act"])


def _move_until_their_turn(url: str, game_id: str, token: str) -> None:
    """The second player (seat 1) plays its first legal moves until seat 0 is to act."""
    for _ in range(50):
        if _to_act(url, game_id) == [0]:
            return
        legal = httpx.get(f"{url}/v1/games/{game_id}/legal-moves", headers=_auth(token), timeout=30).json()
        move = {key: value for key, value in legal["moves"][0].items() if key != "text"}
        body = {"move": move, "expected_version": legal["version"]}
        played = httpx.post(f"{url}/v1/games/{game_id}/moves", json=body, headers=_auth(token), timeout=30)
        assert played.status_code == 200, played.text
    raise AssertionError(f"seat 0 never came to act in {game_id}")


def _started(url: str, guest: str, bilal: str) -> str:
    """A Darjeeling game the guest creates with an open seat that Bilal takes; Bilal (seat 1) starts."""
    body = {"game_type": "darjeeling", "players": [{"me": True}, {"open": True}], "options": {"start_player": 1}}
    created = httpx.post(f"{url}/v1/games", json=body, headers=_auth(guest), timeout=30)
    assert created.status_code == 201, created.text
    game_id = str(created.json()["game_id"])
    joined = httpx.post(f"{url}/v1/games/{game_id}/join", json={}, headers=_auth(bilal), timeout=30)
    assert joined.status_code == 200, joined.text
    return game_id


def test_my_games_shows_your_turn_in_three_games_from_one_player_stream(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COUNTER})
    browser.get(page_url(url, ""))
    kept = wait_for(browser, lambda: browser.execute_script("return localStorage.getItem('chaiwala.player')"), 30)
    guest, player_id = json.loads(kept)["token"], json.loads(kept)["player_id"]
    secrets.remember(guest)
    wait_for(browser, lambda: browser.find_elements("css selector", "#my-games ul"), 30, "my games")
    wait_for(browser, lambda: _opened(browser)["events"] == 1, 30, "the player stream")
    browser.execute_script("window.__sameDocument = true")  # gone if the page were loaded again

    bilal = _guest(url, "Bilal")
    games = [_started(url, guest, bilal) for _ in range(3)]

    reading = "return document.querySelector('#my-games').dataset.reading"

    def started() -> bool:
        rows = {row["id"]: row for row in _listed(browser)}
        listed = all(game in rows and rows[game]["status"] == "active" for game in games)
        return listed and browser.execute_script(reading) == "false"  # and no read of the list under way

    wait_for(browser, started, 30, "the started games in my games")  # the stream told; the list was read once more
    assert not any(row["yourTurn"] for row in _listed(browser))  # Bilal starts each game
    lists = _opened(browser)["lists"]

    for game_id in games:
        _move_until_their_turn(url, game_id, bilal)

    def marked() -> bool:
        return [row["id"] for row in _listed(browser)[:3] if row["yourTurn"] and row["mark"]] == games[::-1]

    wait_for(browser, marked, 30, "three games marked your turn, the latest on top")
    assert {row["mark"] for row in _listed(browser)[:3]} == {"Your turn!"}
    opened = _opened(browser)
    assert opened["events"] == 1, opened  # one player stream for all the games
    assert opened["lists"] == lists, opened  # the turns came on the stream, not from reading the list again
    assert browser.execute_script("return window.__sameDocument === true"), "the page was reloaded"
    assert_legible(browser, DESKTOP, "the lobby with live my games")
    screenshot(browser, "lobby-my-games-live")

    resigned = httpx.post(f"{url}/v1/games/{games[1]}/resign", headers=_auth(guest), timeout=30)
    assert resigned.status_code == 200, resigned.text
    wait_for(browser, lambda: _listed(browser)[-1]["id"] == games[1], 30, "the resigned game among the ended")
    assert _listed(browser)[-1]["status"] == "finished" and not _listed(browser)[-1]["yourTurn"]
    # The notice's result gives the place (last, having resigned), as GET /v1/me/games's entry does.
    place = f"#my-games li[data-game-id='{games[1]}'] .place"
    wait_for(browser, lambda: browser.find_elements("css selector", place), 30, "the resigned game's place")
    assert browser.find_element("css selector", place).text == "your place: 2"
    assert [row["id"] for row in _listed(browser)[:2]] == [games[2], games[0]]
    assert _opened(browser) == {"events": 1, "closed": 0, "lists": lists}

    # An operator (this open gateway takes anyone without a bearer as one) seats the guest in a
    # game still waiting for a player: the stream's `invited` brings it into the list, marked.
    players = [{"name": "Chandra"}, {"name": "Guest", "external_id": player_id}, {"open": True}]
    body = {"game_type": "darjeeling", "players": players}
    invited = httpx.post(f"{url}/v1/games", json=body, timeout=30)
    assert invited.status_code == 201, invited.text
    invited_id = str(invited.json()["game_id"])
    mark = f"#my-games li[data-game-id='{invited_id}'][data-status='waiting'] .invited-mark"
    wait_for(browser, lambda: browser.find_elements("css selector", mark), 30, "the invitation in my games")
    assert browser.find_element("css selector", mark).text == "Invited"
    assert _opened(browser)["events"] == 1

    browser.find_element("css selector", f"#my-games li[data-game-id='{games[0]}'] a.play").click()
    wait_for(browser, lambda: _opened(browser)["closed"] == 1, 30, "the player stream closed with the lobby")

    # At a table the player stream says where else it is the player's turn (here: games[2]).
    others = "const a = document.getElementById('other-turns'); return a && !a.hidden ? a.textContent : ''"
    wait_for(browser, lambda: browser.execute_script(others) == "Your turn in another game", 30, "the other turn")
    # The table's own player stream (the lobby's is closed); the link can show from the table's
    # first read of my games, before its stream has opened, so this is waited for too.
    wait_for(browser, lambda: _opened(browser)["events"] == 2, 30, "the table's player stream")
    games.append(_started(url, guest, bilal))
    _move_until_their_turn(url, games[-1], bilal)
    wait_for(browser, lambda: browser.execute_script(others) == "Your turn in 2 other games", 30, "a new turn told")
    assert browser.execute_script("return window.__sameDocument === true"), "the page was reloaded"
