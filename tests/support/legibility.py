"""Legibility checks of the web client in a real browser: text size, axe-core, tap targets, window sizes.

Every check runs in the page (one script each, the page redraws often) and returns data for a test
to assert on, with a description of each offender for the failure message:

- :func:`smallest_text` — the smallest rendered text over every visible text node, HTML and SVG
  (SVG text is scaled by its element's screen CTM, so a board drawn small counts as small);
- :func:`axe_violations` — axe-core (pinned in ``tools/browser/package.json``, installed by
  ``make browser-tools``) run on the page, its violations of the given impacts;
- :func:`small_tap_targets` — the interactive elements smaller than a size in either dimension;
- :func:`weak_highlights` — the choices on an SVG board whose outline lacks WCAG AA's 3:1 contrast;
- :func:`actions_apart_from_board` — whether the turn's actions leave the screen while the board is on it;
- :func:`end_position_off_centre` — whether a finished game's board is seen whole and centred;
- :func:`assert_end_explained` — the end screen centred, naming the winners and saying why they won;
- :func:`assert_legible` — all of these on the page now, one failure naming every problem;
- :func:`set_viewport` / :func:`open_table_at` / :func:`open_page_at` — the page at a desktop or
  phone size (the phone emulated as a mobile viewport, so ``meta viewport`` and media queries
  apply as on a phone).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tests.support.webplay import open_table, page_url, wait_for

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "tools" / "browser" / "node_modules" / "axe-core" / "axe.min.js"


class Size(NamedTuple):
    """A window size the web client is checked at."""

    name: str
    width: int
    height: int
    mobile: bool


DESKTOP = Size("desktop", 1400, 1000, False)
PHONE = Size("phone", 390, 844, True)
SIZES = (DESKTOP, PHONE)
MIN_TEXT_PX = 12.0
MIN_TAP_PX = 44.0


# ---- Window sizes -------------------------------------------------------------------------------


def set_viewport(driver: Any, size: Size) -> None:
    """Make the page's viewport exactly ``size`` (CSS px); a phone size is emulated as a mobile device.

    A headless window's size is not its viewport's, and only a mobile emulation honours the page's
    ``meta viewport`` and touch, so the viewport is set through the DevTools protocol.
    """
    driver.set_window_size(size.width, size.height)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size.width, "height": size.height, "deviceScaleFactor": 1, "mobile": size.mobile},
    )
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": size.mobile})


def open_table_at(driver: Any, size: Size, base_url: str, game_id: str, token: str | None, seat: int = 0) -> None:
    """Open a game's table at ``size`` as the seat holding ``token`` (a spectator when None); wait for it."""
    set_viewport(driver, size)
    open_table(driver, base_url, game_id, token, seat)
    wait_for(driver, lambda: driver.execute_script(_BOARD_DRAWN), 30, "the table's board")


def open_page_at(driver: Any, size: Size, base_url: str, hash_route: str, ready: str) -> None:
    """Open the client at ``#/hash_route`` at ``size`` and wait until the CSS selector ``ready`` matches."""
    set_viewport(driver, size)
    driver.get(page_url(base_url, hash_route))
    script = "return document.querySelector(arguments[0]) !== null"
    wait_for(driver, lambda: driver.execute_script(script, ready), 30, f"{ready} on #/{hash_route}")


_BOARD_DRAWN = "const b = document.getElementById('board'); return !!b && b.childElementCount > 0;"


# ---- Text size ----------------------------------------------------------------------------------

_SMALLEST_TEXT = """
const SKIP = "script, style, noscript, template, title, desc, metadata, option";
const describe = (el) => {
  const id = el.id ? '#' + el.id : '';
  const cls = typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
  return el.tagName.toLowerCase() + id + cls;
};
const scaleOf = (el) => {
  // An SVG text's font size is in its user units: its screen CTM says how big one unit is on screen.
  const owner = el.closest('text') || el;
  if (!(owner instanceof SVGGraphicsElement)) return 1;
  const m = owner.getScreenCTM();
  return m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 1;
};
let best = [Infinity, 'no visible text'];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const range = document.createRange();
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.textContent.trim();
  const el = node.parentElement;
  if (!text || !el || el.closest(SKIP)) continue;
  const style = getComputedStyle(el);
  if (style.visibility !== 'visible' || Number(style.opacity) === 0) continue;
  range.selectNodeContents(node);
  const box = range.getBoundingClientRect();
  const own = el.getBoundingClientRect();  // a screen-reader-only box of 1 px shows nothing of its text
  if (box.width < 2 || box.height < 2 || own.width < 2 || own.height < 2) continue;
  const isSvg = el instanceof SVGElement;
  const px = parseFloat(style.fontSize) * (isSvg ? scaleOf(el) : 1);
  if (px < best[0]) {
    best = [px, `${describe(el)} "${text.slice(0, 40)}" at ${px.toFixed(1)}px${isSvg ? ' (SVG, scaled)' : ''}`];
  }
}
return best[0] === Infinity ? [0, best[1]] : best;
"""


def smallest_text(driver: Any) -> tuple[float, str]:
    """The smallest rendered font size (CSS px) over every visible text node, and which text that is.

    SVG text counts at its size on screen (its font size times its screen CTM's scale); text that
    is not rendered (``hidden``, ``display: none``, ``visibility: hidden``, zero opacity, SVG
    ``<title>`` tooltips, a visually hidden label of 1 px) does not count.  A page without any
    visible text answers ``(0, "no visible text")``, which fails any minimum.
    """
    size, what = driver.execute_script(_SMALLEST_TEXT)
    return float(size), str(what)


# ---- axe-core -----------------------------------------------------------------------------------

_RUN_AXE = """
const done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']})
  .then((r) => done(JSON.stringify(r.violations)))
  .catch((e) => done(JSON.stringify({error: String(e)})));
"""


# Found whatever their impact: a page without its level-one heading is "moderate" to axe-core, and
# issue #42 asks every page for one.
ALWAYS = ("page-has-heading-one",)


def axe_violations(driver: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict[str, Any]]:
    """axe-core's violations on the page now, those of the given impacts (and those in ``ALWAYS``).

    Each is ``{"id", "impact", "help", "nodes": [{"target", "summary"}]}``.  axe-core comes from the
    pinned npm package in ``tools/browser`` (``make browser-tools``); it is injected into the page
    each call (a page that navigated has lost it).
    """
    assert AXE_JS.is_file(), f"{AXE_JS} is missing: run `make browser-tools` (npm ci in tools/browser)"
    if not driver.execute_script("return typeof window.axe === 'object'"):
        driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    answer = json.loads(driver.execute_async_script(_RUN_AXE))
    assert not isinstance(answer, dict), f"axe-core failed: {answer}"
    found = []
    for violation in answer:
        if violation.get("impact") not in impacts and violation["id"] not in ALWAYS:
            continue
        nodes = [{"target": n.get("target"), "summary": n.get("failureSummary", "")} for n in violation["nodes"]]
        found.append({"id": violation["id"], "impact": violation["impact"], "help": violation["help"], "nodes": nodes})
    return found


def describe_violations(violations: list[dict[str, Any]], nodes: int = 3) -> str:
    """The violations in a few lines for a failure message (the first ``nodes`` targets of each)."""
    lines = []
    for v in violations:
        targets = "; ".join(f"{n['target']}: {n['summary']}".replace("\n", " ") for n in v["nodes"][:nodes])
        lines.append(f"{v['impact']} {v['id']} ({v['help']}, {len(v['nodes'])} nodes): {targets}")
    return "\n".join(lines)


# ---- Tap targets --------------------------------------------------------------------------------

_SMALL_TARGETS = """
const minPx = arguments[0];
const CLICKABLE = ["button", "a[href]", "input:not([type=hidden])", "select", "textarea", "summary",
  "[role=button]", "#board [data-move-index]", "#moves [data-move-index]"].join(", ");
const describe = (el) => {
  const id = el.id ? '#' + el.id : '';
  const index = el.dataset && el.dataset.moveIndex !== undefined ? `[data-move-index=${el.dataset.moveIndex}]` : '';
  const label = (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 30);
  return el.tagName.toLowerCase() + id + index + (label ? ` "${label}"` : '');
};
const inSentence = (el) => {
  // WCAG's inline exception: a link inside a sentence is sized by the text around it.
  if (el.tagName !== 'A' || getComputedStyle(el).display !== 'inline') return false;
  return [...el.parentElement.childNodes].some((n) => n !== el && n.nodeType === 3 && n.textContent.trim());
};
const small = [];
for (const el of document.querySelectorAll(CLICKABLE)) {
  if (el.disabled || el.closest('[hidden], [inert]') || !el.getClientRects().length) continue;
  if (getComputedStyle(el).visibility !== 'visible' || inSentence(el)) continue;
  // A check box or radio button inside its label is tapped through the whole label.
  const wrapped = (el.type === 'checkbox' || el.type === 'radio') && el.closest('label');
  const box = (wrapped || el).getBoundingClientRect();
  if (box.width < minPx || box.height < minPx) {
    small.push(`${describe(el)} ${box.width.toFixed(0)}x${box.height.toFixed(0)}`);
  }
}
return small;
"""


def small_tap_targets(driver: Any, min_px: float = MIN_TAP_PX) -> list[str]:
    """The shown interactive elements smaller than ``min_px`` CSS px in width or height, described.

    Interactive: buttons, links, inputs, selects, text areas, summaries, ``[role=button]`` and
    every offered move (``[data-move-index]`` in ``#board`` or ``#moves``).  Disabled ones, a link
    inside a sentence (WCAG's inline exception) and hidden ones do not count; a check box or radio
    button inside its ``<label>`` is measured as the label (a tap on the label works it).
    """
    found: list[str] = driver.execute_script(_SMALL_TARGETS, min_px)
    return found


# ---- Highlighted choices ------------------------------------------------------------------------

_HIGHLIGHTS = """
const minRatio = arguments[0];
const rgb = (value) => (value.match(/[\\d.]+/g) || []).map(Number);
const luminance = ([r, g, b]) => {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
const ratio = (a, b) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
const paper = rgb(getComputedStyle(document.body).backgroundColor);
const weak = [];
for (const el of document.querySelectorAll('#board svg [data-move-index]')) {
  if (!el.getClientRects().length) continue;
  // The outline that marks the choice: the element's own stroke, else its first stroked part's.
  const stroked = [el, ...el.querySelectorAll('*')].find((e) => {
    const s = getComputedStyle(e);
    return s.stroke && s.stroke !== 'none' && parseFloat(s.strokeWidth) > 0 && (rgb(s.stroke)[3] ?? 1) > 0;
  });
  const colour = stroked ? rgb(getComputedStyle(stroked).stroke) : null;
  const found = colour ? ratio(colour.slice(0, 3), paper) : 0;
  const said = colour ? `rgb(${colour.join(',')})` : 'none';
  if (found < minRatio) weak.push(`[data-move-index=${el.dataset.moveIndex}] outline ${said} ${found.toFixed(2)}:1`);
}
return weak;
"""


def weak_highlights(driver: Any, min_ratio: float = 3.0) -> list[str]:
    """The choices highlighted on an SVG board whose outline has less than ``min_ratio`` contrast with the page.

    WCAG AA asks 3:1 of the graphics needed to see a control; a choice on the board is seen by its
    outline (its own stroke or its first stroked part's), measured against the page's background.
    """
    found: list[str] = driver.execute_script(_HIGHLIGHTS, min_ratio)
    return found


# ---- The board and the actions of a turn together -----------------------------------------------

_ACTIONS_IN_SIGHT = """
const board = document.getElementById('board');
const actions = document.querySelector('#moves [data-move-index], #board [data-move-index], #turn');
if (!board || !actions) return 'no board or no actions on the page';
const moves = document.querySelector('#moves');
const shown = [board, moves && moves.childElementCount ? moves : document.getElementById('turn')];
for (const [where, block] of [['start', 'start'], ['end', 'end']]) {
  board.scrollIntoView({block});
  for (const el of shown) {
    const box = el.getBoundingClientRect();
    const inSight = box.bottom > 0 && box.top < innerHeight && box.height > 0;
    const said = `#${el.id} is out of sight (top ${box.top.toFixed(0)}, screen ${innerHeight})`;
    if (!inSight) return `with the board's ${where} in sight, ${said}`;
  }
}
return '';
"""


def actions_apart_from_board(driver: Any) -> str:
    """Why the actions of the turn leave the screen while the board is on it ('' when they never do).

    The board is scrolled so that its top, then its bottom, is at the edge of the screen; each time
    the move buttons (or the turn line when every move is on the board) must be on the screen too:
    they fit one screen with the board or stick with it while it scrolls.
    """
    found: str = driver.execute_script(_ACTIONS_IN_SIGHT)
    return found


_END_POSITION = """
const board = document.getElementById('board');
const problems = [];
if (!board || !board.firstElementChild) return ['no board drawn'];
if (window.scrollX > 1) problems.push(`the page is scrolled ${window.scrollX} px sideways`);
for (const box of [board, ...board.querySelectorAll('*')]) {
  if (box.matches('.ir-viewport')) continue;  // India Rails' map frame pans on purpose: checked below
  const style = getComputedStyle(box);
  if (!/(auto|scroll)/.test(style.overflowX) && box !== board) continue;
  if (box.scrollLeft > 1) problems.push(`${box.id || box.className} is scrolled ${box.scrollLeft} px sideways`);
  const over = box.scrollWidth - box.clientWidth;
  if (over > 2) problems.push(`${box.id || box.className} is ${over} px wider than its frame`);
}
const frame = board.querySelector('.ir-viewport');
const pieces = frame ? [...frame.querySelectorAll('.track, .train')].map((n) => n.getBoundingClientRect()) : [];
if (frame && pieces.length) {
  const f = frame.getBoundingClientRect();
  const x = (Math.min(...pieces.map((r) => r.left)) + Math.max(...pieces.map((r) => r.right))) / 2;
  const y = (Math.min(...pieces.map((r) => r.top)) + Math.max(...pieces.map((r) => r.bottom))) / 2;
  if (Math.abs(x - (f.left + f.width / 2)) > f.width / 4 || Math.abs(y - (f.top + f.height / 2)) > f.height / 4) {
    const at = `(${Math.round(x - f.left)}, ${Math.round(y - f.top)}) px`;
    problems.push(`the map frame is off the play: its middle at ${at} of ${f.width}×${f.height}`);
  }
}
return problems;
"""


def end_position_off_centre(driver: Any) -> list[str]:
    """What keeps the end position from being seen whole and centred (issue #42, item 4): the page or
    a box of the board scrolled sideways or wider than its frame, or India Rails' map frame (which
    pans) not showing the middle of the players' track and trains in its middle half."""
    return list(driver.execute_script(_END_POSITION))


def assert_legible(driver: Any, size: Size, where: str) -> None:
    """The page now: text at least 12 px, no serious/critical axe violation, highlighted choices at
    3:1, 44 px tap targets on a phone, the turn's actions beside the board.

    Every check runs before any fails, so one failure tells all that is wrong with the page.
    """
    problems = []
    px, what = smallest_text(driver)
    if px < MIN_TEXT_PX:
        problems.append(f"the smallest text is {what}")
    violations = axe_violations(driver)
    if violations:
        problems.append(f"axe-core found\n{describe_violations(violations)}")
    weak = weak_highlights(driver)
    if weak:
        problems.append(f"highlighted choices under 3:1 contrast: {weak[:8]} ({len(weak)} in all)")
    small = small_tap_targets(driver) if size == PHONE else []
    if small:
        problems.append(f"tap targets under 44 px: {small[:8]} ({len(small)} in all)")
    my_turn = driver.execute_script("return !!document.querySelector('#turn.mine')")
    apart = actions_apart_from_board(driver) if my_turn else ""
    if apart:
        problems.append(apart)
    assert not problems, f"{where} at {size.name}:\n" + "\n".join(problems)


# What each end screen's verdict says of why the winners won (web/tables/verdicts.js; issue #42
# item 4): one of these phrases, in English.
VERDICT = {
    "alubari": ("highest final score",),
    "darjeeling": ("highest final score",),
    "tea_rum": ("Pirate King",),
    "india_rails": ("round limit", "joined the major cities"),
}


def assert_end_explained(driver: Any, game: str, names: Sequence[str], winners: Sequence[int]) -> None:
    """A finished table: its end position seen whole and centred, the result's heading naming every
    winner (``names`` by seat) and the verdict saying why, in the game's own terms."""
    off = end_position_off_centre(driver)
    assert not off, f"{game} at its end: {off}"
    heading = driver.find_element("css selector", "#result h2").text
    for seat in winners:
        assert names[seat] in heading, heading
    verdict = driver.find_element("css selector", "#verdict").text
    assert any(phrase in verdict for phrase in VERDICT[game]), verdict

