"""The web client plays a game it has never heard of: Pile (tests/support/tinygame), registered
only by the tests, on the generic table (web/tables/generic.js), to the result and through the
replay viewer.  The client learns the game from GET /v1/game-types (no ``table`` module: the
generic one), so nothing in web/ names it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import webgames
from tests.support.tinygame.stack import GAME, pile_stack
from tests.support.webplay import log_lines, open_table, play_to_result, result_rows, wait_for


@pytest.fixture(scope="module")
def pile_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Pile's gateway (it serves the web client under /play/), over its own stack."""
    with pile_stack(tmp_path_factory.mktemp("tinygame-web")) as running:
        yield str(running["url"])


def _fields(driver: Any) -> list[str]:
    script = "return [...document.querySelectorAll('#board .generic-view dt')].map((e) => e.dataset.field);"
    found: list[str] = driver.execute_script(script)
    return found


def test_the_generic_table_plays_the_test_game_to_the_result_and_replays_it(pile_url: str, browser: Any) -> None:
    created = webgames.create(pile_url, GAME, [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=5)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    open_table(browser, pile_url, game_id, token)
    wait_for(browser, lambda: "pile" in _fields(browser), 30, "the generic table's fields")
    assert browser.execute_script("return !document.querySelector('[data-game]')")  # no game's own table

    clicks = play_to_result(browser, 120, seed=3)
    result = webgames.game(pile_url, game_id)["result"]
    assert clicks >= 1 and result_rows(browser)["winners"] == ",".join(str(s) for s in result["winners"])

    browser.find_element("css selector", "#result a[href*='#/replay/']").click()
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.version === '0'"), 20, "start")
    browser.find_element("id", "replay-forward").click()
    wait_for(browser, lambda: browser.execute_script("return document.body.dataset.version === '1'"), 20, "move 1")
    wait_for(browser, lambda: "pile" in _fields(browser), 20, "the replayed generic table")
    first = [line for line in webgames.event_lines(pile_url, game_id, token) if int(line[0].split(":")[0]) <= 1]
    # Pile has no words of its own (no seeds/tinygame): the log lists the same events, by id.
    assert [line[0] for line in log_lines(browser)] == [line[0] for line in first] == ["1:0"]
