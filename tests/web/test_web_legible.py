"""Every table, the lobby with my games, and the replay viewer are legible on a desktop and a phone.

At 1400×1000 and at 390×844 (a phone, emulated as a mobile viewport): no rendered text is below
12 CSS px (SVG text measured at its size on screen), axe-core finds no serious or critical
violation, the choices highlighted on a board have an outline of 3:1 contrast (WCAG AA for
graphics), and on the phone every tap target is at least 44 px in both dimensions.  Each table is
checked at its start, in its middle and at its end, while a seat plays the game to the result
screen by clicks only (against a bot).  Real stack, real headless Chromium.

Every check also takes a screenshot (``test-artifacts/web/legible-*.png``); with
``CHAIWALA_SCREENSHOTS`` set to a folder, ``tools/screenshots.py`` (``make screenshots``) keeps them
there as ``<game>-<desktop|phone>-<start|middle|end>.png`` (the docs' pictures).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import webgames
from tests.support.browser import chromium
from tests.support.legibility import (
    DESKTOP,
    MIN_TEXT_PX,
    PHONE,
    SIZES,
    Size,
    assert_end_explained,
    assert_legible,
    open_page_at,
    open_table_at,
    smallest_text,
)
from tests.support.webplay import (
    move_kind,
    play_choosing,
    remember_seat,
    result_visible,
    screenshot,
    wait_for,
)

GAMES = ("alubari", "darjeeling", "tea_rum", "india_rails")
# Tables another browser test plays by clicks to their end at a size while checking the same
# legibility (assert_legible) at the start, in the middle and at the end: Alubari and Tea & Rum at
# both sizes (test_web_alubari.py, test_web_tea_rum.py), Darjeeling and India Rails at the desktop's
# (test_web_tables.py).  They are played here only when screenshots are kept for the docs (make
# screenshots), so that make test plays no whole game twice.
PLAYED_ELSEWHERE = () if os.environ.get("CHAIWALA_SCREENSHOTS") else (
    *((size, game) for size in SIZES for game in ("alubari", "tea_rum")),
    *((DESKTOP, game) for game in ("darjeeling", "india_rails")),
)
PLAYS = [(size, game) for size in SIZES for game in GAMES if (size, game) not in PLAYED_ELSEWHERE]
MIDDLE_CLICK = 8
PLAY_TIMEOUT = 400  # a cap for a loaded machine
# Short games: India Rails for one round; the heuristic bots race to the end.
OPTIONS: dict[str, dict[str, Any]] = {"india_rails": {"round_limit": 1}}
BOT = {"alubari": "heuristic", "darjeeling": "heuristic", "tea_rum": "heuristic", "india_rails": "random"}
# Moves that end a seat's part of a turn: a seat that prefers them gives the game to the bot's pace.
ENDING = ("end_turn", "end_action", "pass_ships", "finish_final", "skip_action", "decline_temp_worker")
CHEAP = ("chai_boost", "maintain_equipment")
HURRIED = ("alubari", "tea_rum")


@pytest.fixture(params=SIZES, ids=[size.name for size in SIZES])
def sized(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Size]]:
    """A fresh Chromium whose viewport is a desktop's or a phone's."""
    with chromium() as driver:
        yield driver, request.param


def shoot(driver: Any, name: str, focus: str = "#board") -> None:
    """A screenshot with ``focus`` at the top of the screen (or in sight, for ``#result``) under
    test-artifacts/web/, and a copy under $CHAIWALA_SCREENSHOTS when it is set."""
    block = "nearest" if focus == "#result" else "start"
    driver.execute_script(
        "const e = document.querySelector(arguments[0]); if (e) e.scrollIntoView({block: arguments[1]});", focus, block
    )
    path = screenshot(driver, f"legible-{name}")
    kept = os.environ.get("CHAIWALA_SCREENSHOTS")
    if kept:
        shutil.copyfile(path, os.path.join(kept, f"{name}.png"))


def chooser(game: str, seed: int) -> Any:
    """A seat's moves: seeded random ones; in the long games (Alubari, Tea & Rum) the seat ends its
    part of the turn whenever it may, so that the bot's pace ends the game."""
    pick = random.Random(seed)
    hurried = game in HURRIED

    def choose(moves: list[dict[str, Any]]) -> int:
        kinds = [move_kind(move) for move in moves]
        for kind in ENDING if hurried else ():
            if kind in kinds:
                return kinds.index(kind)
        for i, kind in enumerate(kinds):  # decline what costs without scoring
            if kind in CHEAP and not (moves[i][kind].get("use") or moves[i][kind].get("pay")):
                return i
        return pick.randrange(len(moves))

    return choose


@pytest.mark.parametrize(
    ("sized", "game"), PLAYS, indirect=["sized"], ids=[f"{size.name}-{game}" for size, game in PLAYS]
)
def test_a_table_is_legible_at_its_start_middle_and_end_while_a_seat_plays_it_by_clicks(
    stack: dict[str, Any], sized: tuple[Any, Size], game: str
) -> None:
    driver, size = sized
    url = str(stack["url"])
    players = [{"name": "Asha"}, {"name": "Bot", "bot": BOT[game]}]
    created = webgames.create(url, game, players, seed=11, options=OPTIONS.get(game, {}))
    game_id, token = created["game_id"], created["seats"][0]["token"]
    open_table_at(driver, size, url, game_id, token)
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.status === 'active'"), 30)
    assert_legible(driver, size, f"{game} at its start")
    shoot(driver, f"{game}-{size.name}-start")
    middle: dict[str, bool] = {}

    def at_middle(clicks: int) -> None:
        if clicks >= MIDDLE_CLICK and not middle and not result_visible(driver):
            middle["checked"] = True
            assert_legible(driver, size, f"{game} in its middle")
            shoot(driver, f"{game}-{size.name}-middle")

    played = play_choosing(driver, url, game_id, token, chooser(game, 5), PLAY_TIMEOUT, on_click=at_middle)
    assert middle, f"the game ended after {played.clicks} clicks, before its middle was checked"
    assert webgames.game(url, game_id)["status"] == "finished"
    assert_legible(driver, size, f"{game} at its end")
    assert_end_explained(driver, game, ("Asha", "Bot"), webgames.game(url, game_id)["result"]["winners"])
    shoot(driver, f"{game}-{size.name}-end", "#result")


def test_the_lobby_and_my_games_are_legible(stack: dict[str, Any], sized: tuple[Any, Size]) -> None:
    driver, size = sized
    url = str(stack["url"])
    open_page_at(driver, size, url, "", "#lobby #create-game")
    for game in ("darjeeling", "india_rails"):  # my games lists a running game of each
        created = webgames.create(url, game, [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=3)
        remember_seat(driver, created["game_id"], game, 0, created["seats"][0]["token"])
    open_page_at(driver, size, url, "", "#my-games li[data-game-id]")
    wait_for(driver, lambda: driver.find_elements("css selector", "#game-type option"), 30, "the game types")
    assert_legible(driver, size, "the lobby")
    shoot(driver, f"lobby-{size.name}", "body")


def test_the_replay_viewer_is_legible(stack: dict[str, Any], sized: tuple[Any, Size]) -> None:
    driver, size = sized
    url = str(stack["url"])
    bots = [{"name": "Bot A", "bot": "heuristic"}, {"name": "Bot B", "bot": "heuristic"}]
    created = webgames.create(url, "darjeeling", bots, seed=7)
    game_id = created["game_id"]
    wait_for(driver, lambda: webgames.game(url, game_id)["status"] == "finished", 120, "a game of bots to end")
    open_page_at(driver, size, url, f"replay/{game_id}", "#replay-forward")
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.version === '0'"), 30)
    for _ in range(4):
        driver.find_element("id", "replay-forward").click()
    wait_for(driver, lambda: driver.execute_script("return document.body.dataset.version === '4'"), 30, "move 4")
    assert_legible(driver, size, "the replay viewer")
    shoot(driver, f"replay-{size.name}", "body")


def test_india_rails_whole_map_fits_the_phone_and_hides_the_words_it_would_shrink(stack: dict[str, Any]) -> None:
    url = str(stack["url"])
    players = [{"name": "Asha"}, {"name": "Bot", "bot": "random"}]
    created = webgames.create(url, "india_rails", players, seed=11, options={"round_limit": 1})
    with chromium() as driver:
        open_table_at(driver, PHONE, url, created["game_id"], created["seats"][0]["token"])
        wait_for(driver, lambda: driver.find_elements("css selector", "#board [data-move-index]"), 30, "the choices")
        frame = "const f = document.querySelector('.ir-viewport'); return [f.scrollWidth, f.clientWidth];"
        wide, shown = driver.execute_script(frame)
        assert wide > 4 * shown  # at its phone scale the map is many screens wide
        driver.find_element("css selector", "button.ir-zoom").click()
        wide, shown = driver.execute_script(frame)
        assert wide <= shown + 1  # the whole map in the frame
        assert smallest_text(driver)[0] >= MIN_TEXT_PX  # its city names are hidden, not shrunk
        assert driver.find_elements("css selector", "svg.ir-board.ir-no-words")
        driver.find_element("css selector", "button.ir-zoom").click()
        assert driver.execute_script(frame)[0] > 4 * shown
