"""The legibility checks themselves (tests/support/legibility.py) find what they are meant to find.

A fixed page with known faults, served from a plain HTTP server and measured in headless Chromium
at the phone size: small HTML text, SVG text scaled down, a small button and a small board move,
a select without a name, a faint highlighted choice; and the same page without them passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import PageServer, chromium
from tests.support.legibility import (
    PHONE,
    axe_violations,
    set_viewport,
    small_tap_targets,
    smallest_text,
    weak_highlights,
)

HEAD = '<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>t</title></head>'
# An SVG 1000 units wide drawn 200 px wide: its 20-unit text reads at 4 px.
FAULTY = (
    HEAD
    + """<body style="background:#fbf8f1"><main>
<p style="font-size:16px">Readable</p>
<p style="font-size:10px">tiny words</p>
<div id="board"><svg viewBox="0 0 1000 200" style="width:200px">
  <text x="10" y="100" font-size="20">scaled down</text>
  <rect data-move-index="0" x="0" y="0" width="50" height="50" fill="#ffd23f" stroke="#f0e68c" stroke-width="3"/>
</svg></div>
<button style="font-size:16px;padding:0">ok</button>
<select><option>one</option></select>
<p style="font-size:16px">A <a href="#x">link in a sentence</a> is exempt.</p>
<span class="sr" style="position:absolute;width:1px;height:1px;overflow:hidden;font-size:8px">for screen readers</span>
</main></body></html>"""
)
FIXED = (
    HEAD
    + """<body style="background:#fbf8f1"><main>
<h1 style="font-size:20px">Fixed</h1>
<p style="font-size:16px">Readable</p>
<div id="board"><svg viewBox="0 0 100 100" style="width:200px">
  <text x="10" y="30" font-size="8">scaled up</text>
  <rect data-move-index="0" x="0" y="40" width="50" height="50" fill="#ffd23f" stroke="#1a1a1a" stroke-width="3"/>
</svg></div>
<button style="font-size:16px;min-width:44px;min-height:44px">ok</button>
<label style="font-size:16px">Pick <select style="min-height:44px"><option>one</option></select></label>
</main></body></html>"""
)


@pytest.fixture(scope="module")
def pages() -> Iterator[PageServer]:
    """The two pages on their own origin."""
    with PageServer({"/faulty": FAULTY, "/fixed": FIXED}) as server:
        yield server


@pytest.fixture(scope="module")
def phone() -> Iterator[Any]:
    """Chromium at the phone size."""
    with chromium() as driver:
        set_viewport(driver, PHONE)
        yield driver


def test_the_checks_find_small_text_scaled_svg_text_small_targets_a_nameless_select_and_a_faint_highlight(
    pages: PageServer, phone: Any
) -> None:
    phone.get(f"{pages.origin}/faulty")
    size, what = smallest_text(phone)
    assert size == pytest.approx(4.0, abs=0.2) and "scaled down" in what and "SVG" in what
    phone.execute_script("document.querySelector('svg text').remove()")
    size, what = smallest_text(phone)
    assert size == pytest.approx(10.0) and "tiny words" in what  # the 1 px screen-reader text is not counted
    small = small_tap_targets(phone)
    assert any(s.startswith("button") for s in small) and any("[data-move-index=0]" in s for s in small)
    assert not any("link in a sentence" in s for s in small)
    found = {v["id"] for v in axe_violations(phone)}
    assert "select-name" in found
    assert "page-has-heading-one" in found  # moderate to axe-core, found all the same (legibility.ALWAYS)
    assert [w.split(" ")[0] for w in weak_highlights(phone)] == ["[data-move-index=0]"]


def test_the_checks_pass_a_page_without_those_faults(pages: PageServer, phone: Any) -> None:
    phone.get(f"{pages.origin}/fixed")
    size, what = smallest_text(phone)
    assert size == pytest.approx(16.0), what  # 8 units at 2 px a unit
    assert small_tap_targets(phone) == []
    assert axe_violations(phone) == []
    assert weak_highlights(phone) == []
