"""Words, prices and rules in the browser (issue #34): the lobby shows the API's option words, not
code names; a hovered costly Darjeeling move shows its price before the click and the score then
changes by exactly that; every table's "Rules" button opens the game's summary.

Real stack and real headless Chromium, as the other web tests.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains

from tests.support import webgames
from tests.support.webplay import open_table, page_url, screenshot, wait_for
from tests.words.test_sentences import CODE_NAME

GAMES = ("alubari", "darjeeling", "india_rails", "tea_rum")


def _lobby_text(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('#create').innerText")).strip()


def _choose(driver: Any, game: str) -> None:
    driver.execute_script(
        "const s = document.querySelector('#game-type'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('change', {bubbles: true}));",
        game,
    )


def test_the_lobby_shows_option_words_and_no_code_names(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    for language, title in (("en", "Tea & Rum"), ("es", "Té y Ron")):
        browser.get(page_url(url, ""))
        browser.execute_script("localStorage.setItem('chaiwala.words', arguments[0])", language)
        browser.refresh()
        wait_for(browser, lambda: len(browser.find_elements("css selector", "#game-type option")) == 4, 30, "games")
        names = [o.text for o in browser.find_elements("css selector", "#game-type option")]
        assert title in names, names
        for game in GAMES:
            _choose(browser, game)
            wait_for(browser, lambda g=game: browser.execute_script(
                "return document.querySelector('#game-type').value === arguments[0]", g), 10, game)  # fmt: skip
            shown = _lobby_text(browser)
            assert not CODE_NAME.search(shown), f"{language}/{game}: code name {CODE_NAME.search(shown)} in the lobby"
            if game == "darjeeling":
                region = browser.find_element("css selector", "select[name=region]")
                assert "Sri Lanka" in region.text
            if game == "india_rails":
                screenshot(browser, f"lobby-india-rails-{language}")
    # A value chosen from the words goes out as the option's own value.
    _choose(browser, "darjeeling")
    browser.execute_script(
        "const s = document.querySelector('select[name=start_player]'); s.value = '1';"
        "s.dispatchEvent(new Event('change', {bubbles: true}));"
    )
    browser.find_element("id", "create-game").click()
    # The page may have left the lobby between reading the URL and this script: no error line then.
    refused = "const e = document.querySelector('#create-error'); return e ? e.textContent : ''"
    wait_for(browser, lambda: "#/game/" in browser.current_url or browser.execute_script(refused), 30, "the new game")
    assert "#/game/" in browser.current_url, browser.execute_script(refused)
    game_id = browser.current_url.split("#/game/")[1].split("/")[0]
    replay = httpx.get(f"{url}/v1/games/{game_id}")
    assert replay.status_code == 200


def _post(url: str, game_id: str, token: str, move: dict[str, Any], version: int) -> None:
    body = {"move": move, "expected_version": version}
    answer = httpx.post(f"{url}/v1/games/{game_id}/moves", json=body, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text


def _to_costly_collector_move(url: str, game_id: str, tokens: dict[int, str]) -> None:
    """Play first legal moves (over the API) until seat 0 may walk its collector at a price."""
    for _ in range(60):
        seat = webgames.game(url, game_id)["to_act"][0]
        listing = httpx.get(f"{url}/v1/games/{game_id}/legal-moves",
                            headers={"Authorization": f"Bearer {tokens[seat]}"}).json()  # fmt: skip
        if seat == 0 and any("move_collector" in m and m["costs"] for m in listing["moves"]):
            return
        _post(url, game_id, tokens[seat], listing["moves"][0], listing["version"])
    raise AssertionError("seat 0 never had a costly collector move")


def _score(driver: Any) -> int:
    text = str(driver.execute_script("return document.querySelector('.dj-score[data-seat=\"0\"]').textContent"))
    found = re.search(r":\s*(-?\d+)\s*$", text)
    assert found, text
    return int(found.group(1))


_COSTLY = (
    "const moves = [...document.querySelectorAll('#board .dj-grid [data-move-index]')];"
    "const costly = moves.find((e) => (e.querySelector('title')?.textContent || '').includes('Costs'));"
    "return costly ? costly.dataset.moveIndex : null;"
)


def _costly_move_index(driver: Any) -> str | None:
    """The first costly move's index, read in one script: the table may redraw its board at any
    moment (a stream event after the first paint), so no element is held across calls."""
    index = driver.execute_script(_COSTLY)
    return None if index is None else str(index)


def _move_element(driver: Any, index: str) -> Any:
    return driver.find_element("css selector", f"#board .dj-grid [data-move-index='{index}']")


def _hover_text(driver: Any) -> str:
    return str(driver.execute_script("return document.getElementById('hover').innerText")).strip()


def _hover_price(driver: Any, index: str) -> int:
    """Hover the move and read its price from the hover line; a redraw between finding the element
    and hovering it makes the element stale, so look it up again and hover once more."""
    for _ in range(5):
        try:
            ActionChains(driver).move_to_element(_move_element(driver, index)).perform()
        except StaleElementReferenceException:
            continue
        wait_for(driver, lambda: "Costs" in _hover_text(driver), 10, "the hovered move's sentence")
        found = re.search(r"Costs (\d+) points?\.$", _hover_text(driver))
        assert found, _hover_text(driver)
        return int(found.group(1))
    raise AssertionError("the board kept redrawing under the pointer")


def _click_move(driver: Any, index: str) -> None:
    for _ in range(5):
        try:
            _move_element(driver, index).click()
            return
        except StaleElementReferenceException:
            continue
    raise AssertionError("the board kept redrawing under the pointer")


def test_a_hovered_costly_move_shows_its_price_and_the_score_changes_by_exactly_that(
    stack: dict[str, Any], browser: Any
) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "darjeeling", [{"name": "Asha"}, {"name": "Bilal"}], seed=3,
                              options={"start_player": 0})  # fmt: skip
    game_id = created["game_id"]
    tokens = {s["seat"]: s["token"] for s in created["seats"]}
    _to_costly_collector_move(url, game_id, tokens)
    open_table(browser, url, game_id, tokens[0])
    wait_for(browser, lambda: browser.find_elements("css selector", "#board .dj-grid [data-move-index]"), 30, "moves")
    # The board is labelled as the sentences count: rows and columns from 1.
    assert browser.find_elements("css selector", "#board .dj-row-label[data-row='1']")
    assert browser.find_elements("css selector", "#board .dj-col-label[data-col='1']")
    index = _costly_move_index(browser)
    assert index is not None, "no costly move is on the board"
    price = _hover_price(browser, index)
    assert browser.find_element("id", "hover").get_attribute("data-costs") == f"points:{price}"
    screenshot(browser, "darjeeling-costly-hover")
    before, version = _score(browser), webgames.game(url, game_id)["version"]
    _click_move(browser, index)
    wait_for(browser, lambda: webgames.game(url, game_id)["version"] > version, 30, "the move")
    wait_for(browser, lambda: _score(browser) != before, 30, "the new score")
    assert _score(browser) == before - price


def test_the_rules_button_opens_the_summary(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "tea_rum", [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=2)
    open_table(browser, url, created["game_id"], created["seats"][0]["token"])
    wait_for(browser, lambda: browser.find_elements("id", "rules-button"), 30, "the Rules button")
    assert "Tea & Rum" in browser.find_element("id", "game-title").text
    browser.find_element("id", "rules-button").click()
    wait_for(browser, lambda: browser.execute_script("return document.querySelector('#rules').open"), 10, "rules")
    heading = browser.find_element("css selector", "#rules h2").text
    assert heading.startswith("Tea & Rum")
    assert "Pirate King" in browser.find_element("css selector", "#rules .rules-text").text
    screenshot(browser, "tea-rum-rules")
    browser.find_element("id", "rules-close").click()
    wait_for(browser, lambda: not browser.execute_script("return document.querySelector('#rules').open"), 10, "closed")


def _shown(driver: Any, selector: str) -> str:
    script = "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent).join(' | ')"
    return str(driver.execute_script(script, selector))


def test_tables_show_the_api_words_for_stages_phases_and_cards(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    cases = [
        ("alubari", "#board [data-status], #board text", "Stage: placing workers"),
        ("india_rails", ".ir-status", "phase: initial building"),
        ("india_rails", ".ir-train", "freight (speed 9, holds 2)"),  # was "freight (9/2)", a code name elsewhere
        ("tea_rum", "#board [data-allegiance]", "needs: "),
    ]
    conditions = httpx.get(f"{url}/v1/game-types").json()
    words = next(t for t in conditions if t["id"] == "tea_rum")["terms"]["condition"]["words"]
    for game, selector, expected in cases:
        created = webgames.create(url, game, [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=6)
        open_table(browser, url, created["game_id"], created["seats"][0]["token"])
        wait_for(browser, lambda s=selector: _shown(browser, s), 30, f"the {game} table")
        shown = _shown(browser, selector)
        assert expected.lower() in shown.lower(), shown[:400]
        found = CODE_NAME.findall(shown)
        assert not found, f"{game}: code names {found[:5]} on the table"
        if game == "tea_rum":  # the allegiances' conditions in the API's words (which ones depends on the deal)
            assert any(f"needs: {word.lower()} " in shown.lower() for word in words.values()), shown[:400]
