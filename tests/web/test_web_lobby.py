"""The lobby's time controls and "my games" (issue #34, item 6), and the generic table in words.

A game created from the lobby with a bank and an increment shows that clock on its table and the
API reports the clock and timeout policy chosen; "my games" lists the game where it is the
player's turn first, marked, then the active, waiting and finished ones with their statuses in
words; no code name shows in the lobby or "my games" in English or Spanish; the generic table
labels a real game's view with words.

Real stack (Redis, rules services, conductor, uvicorn) and real headless Chromium.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from tests.support import secrets, webgames
from tests.support.webplay import page_url, remember_seat, screenshot, wait_for
from tests.words.test_sentences import CODE_NAME

SELECT = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}));"
TYPE = "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
STATUS_WORDS = {
    "en": {"active": "In play", "waiting": "Waiting for players", "finished": "Finished", "mark": "Your turn!"},
    "es": {"active": "En juego", "waiting": "Esperando jugadores", "finished": "Terminada", "mark": "¡Tu turno!"},
}


def _open_lobby(driver: Any, url: str, language: str) -> None:
    driver.get(page_url(url, ""))
    driver.execute_script("localStorage.setItem('chaiwala.words', arguments[0])", language)
    driver.refresh()
    wait_for(driver, lambda: driver.find_elements("css selector", "#game-type option"), 30, "the game types")


def _set(driver: Any, element_id: str, value: Any, script: str = TYPE) -> None:
    wait_for(driver, lambda: driver.find_elements("id", element_id), 10, element_id)
    driver.execute_script(script, driver.find_element("id", element_id), str(value))


def _named_player(driver: Any, url: str, name: str) -> str:
    """A guest called ``name`` kept as the page's player (a generated guest name is random: it could
    look like a code name); returns its player token."""
    session = httpx.post(f"{url}/v1/sessions", json={"name": name}, timeout=30).json()
    secrets.remember(session["token"])
    kept = {key: session[key] for key in ("player_id", "token", "expires_at")} | {"name": name}
    driver.get(f"{url}/play/style.css")  # the page's origin without the page, which would make a guest of its own
    driver.execute_script(
        "localStorage.clear(); localStorage.setItem('chaiwala.player', arguments[0]);"
        "localStorage.setItem('chaiwala.name', arguments[1]);",
        json.dumps(kept),
        name,
    )
    return str(session["token"])


def test_a_bank_and_increment_chosen_in_the_lobby_reach_the_api_and_the_table(
    url: str, browser: Any
) -> None:
    for language, words in (("es", "Una reserva de tiempo con incremento"), ("en", "A time bank with an increment")):
        _open_lobby(browser, url, language)
        _set(browser, "clock-kind", "bank", SELECT)
        _set(browser, "on-timeout", "resign", SELECT)
        form = str(browser.execute_script("return document.querySelector('#create').innerText"))
        assert words in form and not CODE_NAME.search(form), (language, CODE_NAME.search(form), form)
    _set(browser, "game-type", "tea_rum", SELECT)
    _set(browser, "bank-min", 5)
    _set(browser, "increment-s", 7)
    _set(browser, "timeouts-to-resign", 2)
    assert "When a clock runs out" in str(browser.execute_script("return document.querySelector('#create').innerText"))
    screenshot(browser, "lobby-time-control")
    browser.find_element("id", "create-game").click()
    refused = "return document.querySelector('#create-error').textContent"
    wait_for(browser, lambda: "#/game/" in browser.current_url or browser.execute_script(refused), 30, "the new game")
    assert "#/game/" in browser.current_url, browser.execute_script(refused)
    game_id = browser.current_url.split("#/game/")[1].split("/")[0]

    game = webgames.game(url, game_id)
    assert game["time_control"] == {"per_turn_s": 0, "bank_s": 300, "increment_s": 7}
    assert game["on_timeout"] == "resign" and game["timeouts_to_resign"] == 2
    assert set(game["clock"]["remaining_s"]) == {"0", "1"}

    shown = "return document.querySelector('#time-control').innerText"
    wait_for(browser, lambda: browser.execute_script(shown), 30, "the table's time control")
    line = str(browser.execute_script(shown))
    assert "5:00 bank + 7 s per move" in line and "timeout 2 resigns the seat" in line, line
    assert browser.find_element("id", "time-control").get_attribute("data-on-timeout") == "resign"
    shown_clock = "return document.querySelector(`#clocks li[data-seat='${arguments[0]}'] .time`).textContent"
    assert browser.execute_script(shown_clock, 1) == "5:00"  # a bot's seat runs no clock: its bank stays whole
    left = re.fullmatch(r"(\d):(\d\d)", str(browser.execute_script(shown_clock, 0)))
    assert left and int(left[1]) * 60 + int(left[2]) <= 300  # the person's bank, counting down from 5:00
    screenshot(browser, "table-time-control")
    browser.execute_script("localStorage.setItem('chaiwala.words', 'es')")
    browser.refresh()
    wait_for(browser, lambda: "de reserva" in str(browser.execute_script(shown) or ""), 30, "the Spanish words")
    assert "5:00 de reserva + 7 s por jugada" in str(browser.execute_script(shown))


def _create_as(url: str, token: str, players: list[dict[str, Any]], **extra: Any) -> str:
    body = {"game_type": "darjeeling", "players": players, **extra}
    answer = httpx.post(f"{url}/v1/games", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["game_id"])


def _listed(driver: Any) -> list[dict[str, Any]]:
    script = """
return [...document.querySelectorAll('#my-games li')].map((li) => ({
  id: li.dataset.gameId, yourTurn: li.dataset.yourTurn === 'true', marked: !!li.querySelector('.your-turn-mark'),
  status: li.querySelector('.status').textContent, type: li.querySelector('.type').textContent,
  seats: li.querySelector('.seats').textContent}));
"""
    found: list[dict[str, Any]] = driver.execute_script(script)
    return found


def _shown_names(driver: Any) -> str:
    """What the lobby shows of its own: the form, "my games", and the listed games' names (not players' names)."""
    script = (
        "return [document.querySelector('#create').innerText, document.querySelector('#my-games').innerText,"
        " ...[...document.querySelectorAll('#lobby h2, #lobby .type')].map((e) => e.textContent)].join('\\n')"
    )
    return str(driver.execute_script(script))


def test_my_games_lists_your_turn_first_marked_with_statuses_in_words(url: str, browser: Any) -> None:
    token = _named_player(browser, url, "Asha")
    me, other = {"me": True}, {"name": "Bilal"}
    yours = _create_as(url, token, [me, other], options={"start_player": 0})  # the oldest: listed first all the same
    theirs = _create_as(url, token, [me, other], options={"start_player": 1})
    waiting = _create_as(url, token, [me, {"open": True}])
    over = _create_as(url, token, [me, other])
    resigned = httpx.post(f"{url}/v1/games/{over}/resign", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert resigned.status_code == 200 and resigned.json()["status"] == "finished", resigned.text
    assert webgames.game(url, yours)["to_act"] == [0] and webgames.game(url, theirs)["to_act"] == [1]
    expected = [(yours, "active", True), (theirs, "active", False), (waiting, "waiting", False)]
    expected.append((over, "finished", False))
    # A game this browser holds only a seat token for (no player id on the seat): the seat to act.
    held = webgames.create(url, "tea_rum", [{"name": "Asha"}, {"name": "Chandra"}])
    seat = webgames.game(url, held["game_id"])["to_act"][0]
    remember_seat(browser, held["game_id"], "tea_rum", seat, held["seats"][seat]["token"])
    secrets.remember(held["seats"][seat]["token"])

    for language in ("en", "es"):
        _open_lobby(browser, url, language)
        words = STATUS_WORDS[language]
        wait_for(browser, lambda: len(_listed(browser)) >= 5, 30, "my games")
        listed = {row["id"]: row for row in _listed(browser)}
        order = [row["id"] for row in _listed(browser)]
        # Both games where it is the player's turn first (newest first between them), then the others.
        assert set(order[:2]) == {yours, held["game_id"]} and order[2:] == [g for g, _, _ in expected[1:]], order
        local = listed[held["game_id"]]
        assert local["yourTurn"] and local["marked"] and local["status"] == words["active"], local
        assert local["type"] == {"en": "Tea & Rum", "es": "Té y Ron"}[language], local
        assert local["seats"] == "Asha, Chandra", local
        for game_id, status, mine in expected:
            row = listed[game_id]
            assert row["status"] == words[status] and row["yourTurn"] == mine and row["marked"] == mine, row
            # The page's player is a guest: its name carries the guest mark (services.identity.player).
            assert row["type"] == "Darjeeling" and re.match(r"Asha \(guest [0-9a-f]{4}\), ", row["seats"]), row
        mark = browser.find_element("css selector", f"#my-games li[data-game-id='{yours}'] .your-turn-mark").text
        assert mark == words["mark"]
        shown = _shown_names(browser)
        assert not CODE_NAME.search(shown), f"{language}: code name {CODE_NAME.search(shown)} in the lobby"
        assert not re.search(r"\b(darjeeling|tea_rum|india_rails|alubari)\b", shown), shown
        screenshot(browser, f"lobby-my-games-{language}")


DRAW = """
const [view, terms, players, done] = arguments;
import(new URL('tables/generic.js', location.href).href).then((module) => {
  const host = document.createElement('div');
  host.id = 'generic-probe';
  document.body.append(host);
  module.drawTable(host, {view, terms, players, seat: 0, legal: null, act: () => {}});
  done(host.innerText);
}).catch((error) => done('failed: ' + error));
"""


def test_the_generic_table_shows_a_real_view_in_words(url: str, browser: Any) -> None:
    browser.get(page_url(url, ""))
    wait_for(browser, lambda: browser.find_elements("css selector", "#game-type option"), 30, "the page")
    described = httpx.get(f"{url}/v1/game-types", timeout=30).json()
    for kind in described:
        terms = {group: t["words"] for group, t in (kind.get("terms") or {}).items()}
        created = webgames.create(url, kind["id"], [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=4)
        state = webgames.game(url, created["game_id"], created["seats"][0]["token"])["state"]
        text = str(browser.execute_async_script(DRAW, state, terms, ["Asha", "Bot"]))
        assert text and not text.startswith("failed"), text
        assert not CODE_NAME.search(text), f"{kind['id']}: code name {CODE_NAME.search(text)} in {text[:300]!r}"
