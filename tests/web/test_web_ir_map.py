"""India Rails' terrain legend (issue #42, item 6): every terrain with its symbol and its build
price, in English and Spanish, and the prices those of the content (seeds/india_rails/costs.json).

Real stack and real headless Chromium, as the other web tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support import webgames
from tests.support.webplay import open_table, page_url, wait_for

ROOT = Path(__file__).resolve().parents[2]
COSTS = json.loads((ROOT / "seeds/india_rails/costs.json").read_text())
# Every terrain a milepost has on the map, plus crossing a river.
TERRAINS = {p["terrain"] for p in json.loads((ROOT / "seeds/india_rails/map.json").read_text())["mileposts"]}
EXPECTED = {kind: COSTS["build"][kind]["cost"] for kind in TERRAINS | {"city", "major"}}
EXPECTED["river"] = COSTS["river_surcharge"]["cost"]
WORDS = {"en": ("Building prices", "Mountain"), "es": ("Precios de construcción", "Montaña")}


def _legend(driver: Any) -> list[dict[str, Any]]:
    script = (
        "return [...document.querySelectorAll('.ir-legend li')].map((li) => ({kind: li.dataset.terrain,"
        " text: li.textContent, swatch: !!li.querySelector('svg.ir-swatch :is(circle, rect, line, polygon)')}))"
    )
    return list(driver.execute_script(script))


def test_the_india_rails_table_has_a_legend_of_every_terrain_and_its_price(url: str, browser: Any) -> None:
    created = webgames.create(url, "india_rails", [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=42)
    for language, (title, mountain) in WORDS.items():
        browser.get(page_url(url, ""))
        browser.execute_script("localStorage.setItem('chaiwala.words', arguments[0])", language)
        open_table(browser, url, created["game_id"], created["seats"][0]["token"])
        wait_for(browser, lambda: _legend(browser), 30, "the legend")
        lines = _legend(browser)
        assert {line["kind"] for line in lines} == set(EXPECTED), lines
        for line in lines:
            price = re.search(r"\+?(\d+)M", line["text"])
            assert price and int(price.group(1)) == EXPECTED[line["kind"]], line
            assert line["swatch"], line
        heading = browser.execute_script("return document.querySelector('.ir-legend strong').textContent")
        assert heading == title
        assert any(mountain in line["text"] for line in lines), lines


MARKERS_OVER_NAMES = """
const board = document.querySelector('.ir-board');
const labels = board.querySelector('.ir-labels');
const markers = [...board.querySelectorAll('.legal')];
const painted = markers.flatMap((m) => [...m.querySelectorAll('circle, rect')].filter((s) => {
  const style = getComputedStyle(s);
  return style.fill !== 'none' && style.fill !== 'transparent' && style.fill !== 'rgba(0, 0, 0, 0)';
}));
const names = [...labels.querySelectorAll('text')].map((t) => {
  const b = t.getBBox();
  return {name: t.textContent, x: b.x + b.width / 2, y: b.y + b.height / 2};
});
const covered = [];
for (const n of names) for (const s of painted) {
  const b = s.getBBox();
  if (n.x >= b.x && n.x <= b.x + b.width && n.y >= b.y && n.y <= b.y + b.height) covered.push(n.name);
}
return {markers: markers.length, names: names.length, covered,
  above: markers.every((m) => m.compareDocumentPosition(labels) & Node.DOCUMENT_POSITION_FOLLOWING),
  clickThrough: getComputedStyle(labels).pointerEvents};
"""


def test_choice_markers_leave_city_names_readable_and_clickable_below(url: str, browser: Any) -> None:
    created = webgames.create(url, "india_rails", [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=43)
    open_table(browser, url, created["game_id"], created["seats"][0]["token"])
    wait_for(browser, lambda: browser.execute_script("return document.querySelectorAll('.ir-board .legal').length"), 30)
    found = browser.execute_script(MARKERS_OVER_NAMES)
    assert found["markers"] > 10 and found["names"] > 40, found
    assert found["above"], "the city names are drawn above every choice marker"
    assert found["clickThrough"] == "none", "a name over a marker must not take its click"
    assert not found["covered"], f"markers painted over the middle of {found['covered']}"
    # A marker under a name still plays: the topmost clickable thing at its middle is the marker.
    hit = browser.execute_script(
        "const m = document.querySelector('.ir-board .legal .ir-hit'); m.scrollIntoView({block: 'center'});"
        "const r = m.getBoundingClientRect();"
        "const at = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        "return at && at.closest('.legal') === m.closest('.legal');"
    )
    assert hit
