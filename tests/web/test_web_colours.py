"""Nothing by colour alone (issue #42, item 3).

Seat colours are far from every resource's colour (Darjeeling's teas, Tea & Rum's goods, India
Rails' terrain), measured as CIE76 colour differences of the palettes the page itself imports;
while a seat plays Darjeeling by clicks, every tea tile and demand square drawn carries its tea's
letter, every crate its seat's pattern and every collector its seat's number; India Rails' terrain
has one shape per terrain.

Real stack (Redis, rules services, conductor, uvicorn) and real headless Chromium.
"""

from __future__ import annotations

import contextlib
import random
from itertools import combinations
from typing import Any

from tests.support import webgames
from tests.support.webplay import open_table, page_url, play_choosing, screenshot, wait_for

SEAT_TO_RESOURCE = 25.0  # CIE76: about the difference of two clearly different hues
SEAT_TO_SEAT = 30.0
PALETTES = """
const done = arguments[arguments.length - 1];
Promise.all([import('./tables/svg.js'), import('./tables/darjeeling.js'), import('./tables/tea_rum/words.js'),
  import('./tables/india_rails_legend.js')])
  .then(([svg, dj, tr, ir]) =>
    done({seats: svg.SEAT_COLOURS, tea: dj.TEA, goods: tr.RESOURCE_COLOURS, terrain: ir.TERRAIN}))
  .catch((error) => done({error: String(error)}));
"""
# Every mark that would otherwise differ by colour only, with what it carries besides.
MARKS = """
const tiles = [...document.querySelectorAll('#board .space.tile')];
const demand = [...document.querySelectorAll('#board .demand')];
const crates = [...document.querySelectorAll('#board .crate')];
const collectors = [...document.querySelectorAll('#board .collector')];
const letter = (node) => (node.querySelector('text') || {}).textContent || '';
const patterned = (node) => {
  const id = (node.getAttribute('fill') || '').match(/^url\\(#(seat-mark-\\d+)\\)$/);
  return !!id && !!node.ownerSVGElement.querySelector(`pattern#${id[1]}`) && id[1] === `seat-mark-${node.dataset.seat}`;
};
return {
  tiles: tiles.length, demand: demand.length, crates: crates.length, collectors: collectors.length,
  bad: [
    ...tiles.filter((t) => !/^[A-Z]$/.test(letter(t))).map((t) => 'tile ' + t.dataset.variety),
    ...demand.filter((d) => !/^[A-Z]$/.test(letter(d))).map((d) => 'demand ' + d.dataset.variety),
    ...crates.filter((c) => !patterned(c)).map((c) => `crate of seat ${c.dataset.seat}: ${c.getAttribute('fill')}`),
    ...collectors.filter((c) => letter(c) !== String(Number(c.dataset.seat) + 1))
      .map((c) => `collector ${c.dataset.seat}`),
  ],
  letters: Object.fromEntries(tiles.map((t) => [t.dataset.variety, letter(t)])),
};
"""


def _lab(colour: str) -> tuple[float, float, float]:
    """sRGB hex to CIE L*a*b* (D65)."""
    r, g, b = (int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))
    r, g, b = (((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in (r, g, b))
    x = (r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047
    y = r * 0.2126 + g * 0.7152 + b * 0.0722
    z = (r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883
    fx, fy, fz = (v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _difference(one: str, other: str) -> float:
    return float(sum((p - q) ** 2 for p, q in zip(_lab(one), _lab(other), strict=True)) ** 0.5)


def test_seat_colours_are_far_from_every_resource_colour_and_from_each_other(
    stack: dict[str, Any], browser: Any
) -> None:
    browser.get(page_url(str(stack["url"]), ""))
    browser.set_script_timeout(30)
    palettes = browser.execute_async_script(PALETTES)
    assert "error" not in palettes, palettes
    resources = {f"{group} {k}": v for group in ("tea", "goods", "terrain") for k, v in palettes[group].items()}
    seats = palettes["seats"]
    assert len(seats) == 6 and len(resources) == 17
    close = [
        (seat, name, round(_difference(seat, colour), 1))
        for seat in seats
        for name, colour in resources.items()
        if _difference(seat, colour) < SEAT_TO_RESOURCE
    ]
    assert close == [], close
    alike = [(a, b) for a, b in combinations(seats, 2) if _difference(a, b) < SEAT_TO_SEAT]
    assert alike == [], alike


class _Enough(Exception):
    """Enough of the game was seen."""


def test_darjeeling_tiles_demand_crates_and_collectors_carry_more_than_a_colour(
    stack: dict[str, Any], browser: Any
) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "darjeeling", [{"name": "Asha"}, {"name": "Bot", "bot": "heuristic"}], seed=12)
    game_id, token = created["game_id"], created["seats"][0]["token"]
    open_table(browser, url, game_id, token)
    wait_for(browser, lambda: browser.find_elements("css selector", "#board .space.tile"), 30, "the tiles")
    seen = {"tiles": 0, "demand": 0, "crates": 0, "collectors": 0}

    def check(_clicks: int) -> None:
        marks = browser.execute_script(MARKS)
        assert marks["bad"] == [], marks["bad"]
        assert set(marks["letters"].items()) <= {("BLACK", "B"), ("GREEN", "G"), ("WHITE", "W"), ("RED", "R")}
        for key in seen:
            seen[key] = max(seen[key], marks[key])
        if seen["crates"] >= 2 and seen["collectors"] == 2:
            raise _Enough

    check(0)
    pick = random.Random(5)
    with contextlib.suppress(_Enough):  # enough seen: the rest of the game is not needed
        play_choosing(browser, url, game_id, token, lambda moves: pick.randrange(len(moves)), 400, on_click=check)
    screenshot(browser, "darjeeling-marks")
    assert all(seen.values()), seen  # each kind of mark was drawn and checked


def test_india_rails_terrain_has_one_shape_per_terrain(stack: dict[str, Any], browser: Any) -> None:
    url = str(stack["url"])
    created = webgames.create(url, "india_rails", [{"name": "Asha"}, {"name": "Bot", "bot": "random"}], seed=3)
    open_table(browser, url, created["game_id"], None)
    wait_for(browser, lambda: browser.find_elements("css selector", "#board .milepost"), 30, "the map")
    shapes = browser.execute_script(
        "const seen = {}; for (const m of document.querySelectorAll('#board .milepost')) {"
        " const points = (m.getAttribute('points') || '').trim().split(/\\s+/).filter(Boolean).length;"
        " (seen[m.dataset.terrain] ||= new Set()).add(m.tagName + points); }"
        " return Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, [...v]]));"
    )
    assert {"clear", "mountain", "alpine", "desert"} <= set(shapes), shapes
    assert all(len(kinds) == 1 for kinds in shapes.values()), shapes  # one shape per terrain
    plain = {k: v[0] for k, v in shapes.items() if k not in ("city", "major")}  # cities: squares, named on the map
    assert len(set(plain.values())) == len(plain), plain  # and a different one for each terrain
