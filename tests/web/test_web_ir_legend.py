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
        " text: li.textContent, swatch: !!li.querySelector('svg.ir-swatch :is(circle, rect, line)')}))"
    )
    return list(driver.execute_script(script))


def test_the_india_rails_table_has_a_legend_of_every_terrain_and_its_price(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
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
