"""India Rails: a run of segments built in one gesture and confirmed once, and a map a phone can
pan and zoom (issue #42, item 6).

Real stack, real headless Chromium.  A seat in its first building turn switches "Build a path" on,
picks a first segment and three more mileposts (clicks on a desktop, touch taps through the
DevTools protocol on a phone); before it confirms, the path's running cost is on screen and
nothing is posted; one confirm posts one request, and the engine's answer is the path: the seat's
track holds every segment, its cash fell by the total shown, the log's prices are those printed
on the map.  The offers from the path's end are then the engine's own building choices from there
(the forecast of india_rails_path.js against services/india_rails/track.py).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from tests.support import webgames
from tests.support.legibility import DESKTOP, MIN_TEXT_PX, PHONE, SIZES, Size, set_viewport, smallest_text
from tests.support.webplay import FETCHES, open_table, screenshot, wait_for

ROOT = Path(__file__).resolve().parents[2]
COSTS = json.loads((ROOT / "seeds/india_rails/costs.json").read_text())
BOT = {"name": "Bot", "bot": "random"}
EXTENSIONS = 3  # mileposts picked after the first segment


def _api(url: str, path: str, token: str) -> Any:
    answer = httpx.get(f"{url}{path}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _press(driver: Any, size: Size, node: Any) -> None:
    """A click on a desktop, a real touch tap (CDP) on the phone; the node is scrolled to the middle first."""
    box = driver.execute_script(
        "const n = arguments[0]; n.scrollIntoView({block: 'center', inline: 'center'});"
        "const r = n.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];",
        node,
    )
    if size == DESKTOP:
        node.click()
        return
    point = [{"x": box[0], "y": box[1]}]
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _offers(driver: Any) -> list[dict[str, Any]]:
    script = (
        "return [...document.querySelectorAll('.ir-step')]"
        ".map((s) => ({from: Number(s.dataset.from), to: Number(s.dataset.to), cost: Number(s.dataset.cost)}))"
    )
    return list(driver.execute_script(script))


def _panel(driver: Any, segments: int) -> Any:
    """The path's panel once it counts ``segments`` segments."""
    css = f".ir-path-panel[data-segments='{segments}']"
    return wait_for(driver, lambda: driver.find_elements("css selector", css), 10, f"a path of {segments}")[0]


def _cheapest(driver: Any, size: Size, keys: bool = False) -> dict[str, Any]:
    """Take the cheapest offer (the first of equals), by a press or (``keys``) Tab to it and Enter;
    its milepost and price.  Each offer says where it goes and its price to a screen reader."""
    offers = _offers(driver)
    assert offers, "the path offers no continuation"
    labels = [node.get_attribute("aria-label") for node in driver.find_elements("css selector", ".ir-step")]
    for offer, label in zip(offers, labels, strict=True):
        assert re.fullmatch(rf"Extend the path to .+: \+{offer['cost']}M \(\d+M in all\)", label), label
    best = min(range(len(offers)), key=lambda i: offers[i]["cost"])
    if not keys:
        _press(driver, size, driver.find_elements("css selector", ".ir-step")[best])
        return offers[best]
    # From the panel's last button, Tab goes to the map's frame, then to the offers in their order.
    driver.execute_script("document.getElementById('ir-path-clear').focus()")
    for _ in range(best + 2):
        ActionChains(driver).send_keys(Keys.TAB).perform()
    focused = "return [Number(document.activeElement.dataset.to), document.activeElement.matches('.ir-step')]"
    assert driver.execute_script(focused) == [offers[best]["to"], True]
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    return offers[best]


@pytest.mark.parametrize("size", SIZES, ids=[s.name for s in SIZES])
def test_a_path_of_segments_is_priced_then_built_with_one_confirm(
    stack: dict[str, Any], browser: Any, size: Size
) -> None:
    url = str(stack["url"])
    game_id, token = webgames.create_for_first_seat(url, "india_rails", [{"name": "Asha"}, BOT], seed=21)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCHES})
    set_viewport(browser, size)
    open_table(browser, url, game_id, token)
    ready = "return !!document.querySelector('#turn.mine') && !!document.querySelector('.ir-path-toggle')"
    wait_for(browser, lambda: browser.execute_script(ready), 60, "the seat's building turn")
    rules = browser.execute_script("return import('./tables/india_rails_legend.js').then((m) => m.RULES)")
    limits = COSTS["city_entry_limit"]
    assert rules == {
        "budget": COSTS["turn_budget"]["cost"],
        "majorSegmentsPerTurn": COSTS["major_segments_per_turn"]["cost"],
        "entry": {"small": limits["small"], "medium": limits["medium"], "perPlayer": limits["per_player"]},
    }
    before = webgames.game(url, game_id, token)
    cash = before["state"]["players"][0].get("cash", 0)
    browser.execute_script("window.__posts = []")

    _press(browser, size, browser.find_element("css selector", ".ir-path-toggle"))
    wait_for(browser, lambda: browser.find_elements("css selector", ".ir-step"), 10, "the first segments")
    first = _offers(browser)[0]
    _press(browser, size, browser.find_element("css selector", ".ir-step"))
    path, prices = [first["from"], first["to"]], [first["cost"]]
    for step in range(EXTENSIONS):
        _panel(browser, len(prices))
        # The last step on a desktop by the keyboard (Tab to the offer, Enter).
        taken = _cheapest(browser, size, keys=size == DESKTOP and step == EXTENSIONS - 1)
        path.append(taken["to"])
        prices.append(taken["cost"])
    panel = _panel(browser, len(prices))
    total = sum(prices)
    assert panel.get_attribute("data-total") == str(total)
    assert f"{len(prices)} segments, {total}M" in panel.text, panel.text  # the cost, on screen before confirming
    shown = browser.execute_script("return document.querySelector('.ir-path-line').dataset.posts")
    assert shown == " ".join(map(str, path))
    offered = {o["to"] for o in _offers(browser)}  # the forecast's continuations from the path's end
    assert browser.execute_script("return window.__posts") == [], "a move was posted before the confirm"
    shot = screenshot(browser, f"india_rails-path-{size.name}")
    if os.environ.get("CHAIWALA_SCREENSHOTS"):  # make screenshots keeps it for the docs (tools/screenshots.py)
        shutil.copyfile(shot, Path(os.environ["CHAIWALA_SCREENSHOTS"]) / f"india_rails-{size.name}-path.png")

    version = int(browser.execute_script("return Number(document.body.dataset.version)"))
    _press(browser, size, browser.find_element("id", "ir-path-build"))
    landed = "return Number(document.body.dataset.version) > arguments[0]"
    wait_for(browser, lambda: browser.execute_script(landed, version), 30, "the path to land")
    assert browser.execute_script("return window.__posts") == [f"/v1/games/{game_id}/moves"], "one request for the path"

    after = webgames.game(url, game_id, token)["state"]["players"][0]
    track = {frozenset((s.get("a", 0), s.get("b", 0))) for s in after.get("track", [])}
    assert {frozenset(step) for step in itertools.pairwise(path)} <= track
    assert after.get("cash", 0) == cash - total
    events = _api(url, f"/v1/games/{game_id}/events", token)
    built = [e["text"] for e in events if e.get("version", 0) > version and e.get("seat", 0) == 0]
    assert len(built) >= len(prices), built
    assert all(f"for {p}M" in text for text, p in zip(built, prices, strict=False)), (built, prices)
    # The engine's own choices from the path's end, after the path: the forecast offered exactly these.
    legal = _api(url, f"/v1/games/{game_id}/legal-moves", token)
    engine = {
        m["build_track"].get("to_milepost", 0)
        for m in legal.get("moves", [])
        if "build_track" in m and m["build_track"].get("from_milepost", 0) == path[-1]
    }
    assert engine == offered, (engine, offered)
    # Zoomed out, the map writes no word below 12 px (it hides them where they would shrink).
    _press(browser, size, browser.find_element("css selector", ".ir-zoom-out"))
    assert smallest_text(browser)[0] >= MIN_TEXT_PX


def _drag(driver: Any, at: list[float], dx: float, dy: float) -> None:
    """A finger put down at ``at`` and moved ``dx`` left and ``dy`` up in ten steps, then lifted."""
    for step in range(11):
        point = [{"x": at[0] + dx / 2 - dx * step / 10, "y": at[1] + dy / 2 - dy * step / 10}]
        kind = "touchMove" if step else "touchStart"
        driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": point})
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_the_phone_map_pans_by_touch_and_zooms_and_keeps_its_names(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "india_rails", [{"name": "Asha"}, BOT], seed=22)
    set_viewport(browser, PHONE)
    open_table(browser, url, created["game_id"], None)
    wait_for(browser, lambda: browser.find_elements("css selector", ".ir-viewport .city"), 30, "the map")
    where = "const v = document.querySelector('.ir-viewport'); return [v.scrollLeft, v.scrollTop];"
    start = browser.execute_script(where)
    box = browser.execute_script(
        "const v = document.querySelector('.ir-viewport'); v.scrollIntoView({block: 'center'});"
        "const r = v.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];"
    )
    # A finger's drags (real touch events), right to left, then bottom to top: the map moves under it.
    _drag(browser, box, 150, 0)
    wait_for(browser, lambda: browser.execute_script(where)[0] > start[0] + 50, 5, "the map to pan sideways")
    _drag(browser, box, 0, 150)
    wait_for(browser, lambda: browser.execute_script(where)[1] > start[1] + 50, 5, "the map to pan up")
    width = "return document.querySelector('svg.ir-board').getBoundingClientRect().width"
    wide = browser.execute_script(width)
    browser.find_element("css selector", ".ir-zoom-out").click()
    assert browser.execute_script(width) < wide * 0.8
    assert smallest_text(browser)[0] >= MIN_TEXT_PX  # zoomed out, the names still read
    browser.find_element("css selector", ".ir-zoom-in").click()
    browser.find_element("css selector", ".ir-zoom-in").click()
    assert browser.execute_script(width) > wide * 1.2
    # Every city's name lies inside the map's own box (none cut at the map's edge).
    cut = browser.execute_script(
        "const svg = document.querySelector('svg.ir-board');"
        "const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);"
        "return [...svg.querySelectorAll('.ir-labels text')].map((t) => [t.textContent, t.getBBox()])"
        ".filter(([, b]) => b.x < x || b.y < y || b.x + b.width > x + w || b.y + b.height > y + h).map(([n]) => n);"
    )
    assert cut == [], cut
