"""The rules a newcomer plays from, opened where a game is chosen and where it is played (issue #42, item 5).

Real stack (Redis, rules services, gateway) and real headless Chromium: the lobby's "Rules" button
beside the game picker opens the chosen game's rules — both parts, its tables, in the chosen
language — and a table's "Rules" button opens its own game's; on a phone the page never widens
(tables scroll inside the dialog). The Markdown is drawn with textContent only: markup in a table
cell stays text.
"""

from __future__ import annotations

from typing import Any

from tests.support import webgames
from tests.support.seeds import seed_hex
from tests.support.webplay import open_table, page_url, screenshot, wait_for

OPEN = "return Boolean(document.querySelector('#rules') && document.querySelector('#rules').open)"


def _choose(driver: Any, game: str) -> None:
    driver.execute_script(
        "const s = document.querySelector('#game-type'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('change', {bubbles: true}));",
        game,
    )
    wait_for(driver, lambda: driver.execute_script(
        "return document.querySelector('#game-type').value === arguments[0]", game), 10, game)  # fmt: skip


def _shown(driver: Any) -> dict[str, Any]:
    """What the open dialog shows: its game, headings, the table cells and the text."""
    return dict(driver.execute_script("""
const d = document.querySelector('#rules');
return {game: d.dataset.gameType, title: d.querySelector('h2') ? d.querySelector('h2').textContent : '',
        parts: [...d.querySelectorAll('h3')].map((h) => h.textContent),
        cells: [...d.querySelectorAll('.rules-table td')].map((c) => c.textContent),
        heads: d.querySelectorAll('.rules-table th').length, text: d.innerText};
"""))  # fmt: skip


def _open_from_lobby(driver: Any, game: str) -> dict[str, Any]:
    _choose(driver, game)
    driver.find_element("id", "lobby-rules").click()
    wait_for(driver, lambda: driver.execute_script(OPEN), 15, "the rules dialog")
    wait_for(driver, lambda: _shown(driver)["game"] == game and _shown(driver)["parts"], 15, f"{game}'s rules")
    return _shown(driver)


def _close(driver: Any) -> None:
    driver.find_element("id", "rules-close").click()
    wait_for(driver, lambda: not driver.execute_script(OPEN), 10, "the dialog closed")


def test_rules_open_from_the_lobby_picker_and_from_a_table(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    browser.get(page_url(url, ""))
    wait_for(browser, lambda: len(browser.find_elements("css selector", "#game-type option")) == 4, 30, "games")

    shown = _open_from_lobby(browser, "india_rails")
    assert shown["title"].startswith("India Rails") and shown["parts"] == ["Quick start", "Reference"]
    assert "250M" in shown["text"] and shown["heads"] > 0
    assert "5M" in shown["cells"] and "Super Freight" in shown["cells"], "the reference's tables are drawn as tables"
    assert "|" not in shown["text"], "no raw table syntax is left"
    screenshot(browser, "lobby-rules-india-rails")
    _close(browser)

    # The picker's choice decides which game's rules open; the dialog is reused, not stacked.
    shown = _open_from_lobby(browser, "alubari")
    assert shown["title"].startswith("Alubari") and "Lay Track" in shown["text"]
    assert len(browser.find_elements("css selector", "dialog#rules")) == 1
    _close(browser)

    # In Spanish, from the lobby, on a phone: both parts, and the page does not widen.
    browser.execute_script("localStorage.setItem('chaiwala.words', 'es')")
    browser.set_window_size(390, 844)
    browser.refresh()
    wait_for(browser, lambda: len(browser.find_elements("css selector", "#game-type option")) == 4, 30, "games")
    shown = _open_from_lobby(browser, "darjeeling")
    assert shown["parts"] == ["Inicio rápido", "Referencia"] and "1, 1, 2, 2, 2, 3, 3" in shown["cells"]
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(browser, "lobby-rules-darjeeling-phone-es")
    _close(browser)
    browser.execute_script("localStorage.setItem('chaiwala.words', 'en')")
    browser.set_window_size(1280, 900)

    # From a table: its own game's rules, in the same dialog.
    players = [{"name": "Asha"}, {"name": "Bot", "bot": "random"}]
    created = webgames.create(url, "tea_rum", players, seed_hex=seed_hex(3))
    open_table(browser, url, created["game_id"], created["seats"][0]["token"])
    wait_for(browser, lambda: browser.find_elements("id", "rules-button"), 30, "the table's Rules button")
    browser.find_element("id", "rules-button").click()
    wait_for(browser, lambda: browser.execute_script(OPEN), 15, "the rules dialog")
    wait_for(browser, lambda: _shown(browser)["game"] == "tea_rum" and _shown(browser)["parts"], 15, "Tea & Rum")
    shown = _shown(browser)
    assert shown["title"].startswith("Tea & Rum") and shown["parts"] == ["Quick start", "Reference"]
    assert "Pirate King" in shown["text"] and "$7" in shown["cells"]
    _close(browser)


def test_rules_markdown_never_becomes_markup(stack: dict[str, Any], browser: Any) -> None:
    browser.get(page_url(str(stack["url"]), ""))
    wait_for(browser, lambda: browser.find_elements("id", "lobby-rules"), 30, "the lobby")
    drawn = browser.execute_async_script("""
const done = arguments[arguments.length - 1];
import(new URL('js/rules.js', location.href).href).then((m) => {
  const box = document.createElement('div');
  box.append(m.markdown('# T\\n\\n| a | b |\\n|---|---|\\n| <img src=x> | **<b>x</b>** |\\n\\n- `<i>c</i>`'));
  done({imgs: box.querySelectorAll('img, b, i').length,
        cells: [...box.querySelectorAll('td')].map((c) => c.textContent),
        code: box.querySelector('li code').textContent});
});
""")  # fmt: skip
    assert drawn == {"imgs": 0, "cells": ["<img src=x>", "<b>x</b>"], "code": "<i>c</i>"}
