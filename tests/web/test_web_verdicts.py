"""Every end screen says who won and why, in the game's own terms (issue #42, item 4).

Tables of bots play to their end on the real stack (India Rails with a round limit of 3, so it ends
by that limit); a spectator's page then shows the winners and a line that explains them: Tea &
Rum's Governor and Pirate King (and, with two players, the victory type cards), India Rails' limit
and its ranking, the highest score elsewhere.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.support import webgames
from tests.support.webplay import open_table, wait_for

BOT = {"name": "Bot", "bot": "random"}
CASES = {
    "tea_rum": ({}, ("Pirate King", "victory type cards")),
    "india_rails": ({"round_limit": 3}, ("round limit", "network that joins the major cities")),
    "darjeeling": ({}, ("highest final score",)),
}


def _finished(url: str, game_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        game: dict[str, Any] = httpx.get(f"{url}/v1/games/{game_id}", timeout=30).json()
        if game["status"] == "finished":
            return game
        time.sleep(0.5)
    raise AssertionError(f"{game_id} did not finish in {timeout} s")


@pytest.mark.parametrize("game", sorted(CASES))
def test_the_end_screen_says_who_won_and_why(stack: dict[str, Any], browser: Any, game: str) -> None:
    url = str(stack["url"])
    options, phrases = CASES[game]
    players = [{"name": "Asha", "bot": "random"}, {"name": "Bilal", "bot": "random"}]
    created = webgames.create(url, game, players, **({"options": options} if options else {}))
    final = _finished(url, created["game_id"], 240)
    open_table(browser, url, created["game_id"], None)
    wait_for(browser, lambda: browser.find_elements("css selector", "#result:not([hidden]) h2"), 30, "the result")
    heading = browser.find_element("css selector", "#result h2").text
    names = ["Asha", "Bilal"]
    for seat in final["result"]["winners"]:
        assert names[seat] in heading, heading
    verdict = browser.find_element("css selector", "#verdict").text
    for phrase in phrases:
        assert phrase in verdict, verdict
