"""A real browser (headless Chromium) as a frontend on another origin, and the offline docs pages.

The page is served from its own port (another origin than the gateway), so every call is a
real cross-origin request with preflights.  It creates a game, lists legal moves, posts moves
and follows the seat's own live events through ``EventSource`` with a stream ticket.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import PageServer, chromium, console_errors
from tests.support.stack import Gateway

APP_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Chaiwala test app</title></head>
<body><pre id="log"></pre>
<script>
const BASE = new URLSearchParams(location.search).get("api");
const log = (line) => { document.getElementById("log").textContent += line + "\\n"; };

async function call(method, path, token, body) {
  const headers = {};
  if (token) headers["Authorization"] = "Bearer " + token;
  const init = {method, headers};
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    headers["Idempotency-Key"] = crypto.randomUUID();
    init.body = JSON.stringify(body);
  }
  const response = await fetch(BASE + path, init);
  const answer = await response.json();
  if (!response.ok) throw new Error(method + " " + path + " -> " + response.status + " " + answer.code);
  return answer;
}

async function run() {
  const created = await call("POST", "/v1/games", null,
    {game_type: "darjeeling", players: [{name: "Asha"}, {name: "Bilal"}],
     seed_hex: "00000000000000000000000000000015"});
  const id = created.game_id;
  const tokens = created.seats.map((seat) => seat.token);
  const issued = await call("POST", `/v1/games/${id}/stream-tickets`, tokens[0]);
  const events = [];
  let resolveOwnTile;
  const ownTile = new Promise((resolve) => { resolveOwnTile = resolve; });
  const source = new EventSource(`${BASE}/v1/games/${id}/events?ticket=${encodeURIComponent(issued.ticket)}`);
  source.addEventListener("game_event", (message) => {
    const event = JSON.parse(message.data);
    events.push({id: message.lastEventId, event});
    const taken = event.event.tile_taken;
    if (event.seat === 0 && taken && taken.tile) resolveOwnTile(event);
  });
  const opened = new Promise((resolve, reject) => { source.onopen = resolve; source.onerror = reject; });
  await opened;
  let moves = 0, lastLegal = null, found = null;
  while (moves < 40 && found === null) {
    const game = await call("GET", `/v1/games/${id}`, null);
    const seat = game.to_act[0];
    lastLegal = await call("GET", `/v1/games/${id}/legal-moves`, tokens[seat]);
    const body = {move: lastLegal.moves[0], expected_version: lastLegal.version};
    await call("POST", `/v1/games/${id}/moves`, tokens[seat], body);
    moves += 1;
    found = await Promise.race([ownTile, new Promise((resolve) => setTimeout(() => resolve(null), 50))]);
  }
  if (found === null) found = await ownTile;
  source.close();
  return {game_id: id, moves, legal_count: lastLegal.moves.length, own_tile: found.event.tile_taken,
          event_ids: events.map((e) => e.id), expires_at: issued.expires_at};
}

window.result = run().then((value) => ({ok: true, value}), (error) => ({ok: false, error: String(error)}));
</script></body></html>
"""


@pytest.fixture(scope="module")
def page_server() -> Iterator[PageServer]:
    with PageServer({"/app.html": APP_PAGE}) as server:
        yield server


@pytest.fixture(scope="module")
def gateway(stack: dict[str, Any], page_server: PageServer) -> Iterator[Gateway]:
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    with Gateway(addresses, cors_origins=page_server.origin) as started:
        yield started


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


def test_a_page_on_another_origin_plays_and_follows_its_own_events_with_a_ticket(
    browser: Any, page_server: PageServer, gateway: Gateway
) -> None:
    assert page_server.origin != gateway.url
    browser.get(f"{page_server.origin}/app.html?api={gateway.url}")
    outcome = browser.execute_async_script("const done = arguments[0]; window.result.then(done);")
    assert outcome["ok"], outcome.get("error")
    value = outcome["value"]
    assert value["moves"] >= 1 and value["legal_count"] >= 1
    assert "tile" in value["own_tile"], value["own_tile"]  # the seat's hidden tile reached its own stream
    assert value["event_ids"] and all(":" in event_id for event_id in value["event_ids"])
    errors = console_errors(browser)
    assert not errors, errors


def test_a_page_on_an_unlisted_origin_cannot_read_the_api(browser: Any, stack: dict[str, Any]) -> None:
    addresses = {game: svc.address for game, svc in stack["services"].items()}
    closed = Gateway(addresses)  # no origins configured, as in production until set
    server = PageServer({"/app.html": APP_PAGE})
    try:
        browser.get(f"{server.origin}/app.html?api={closed.url}")
        outcome = browser.execute_async_script("const done = arguments[0]; window.result.then(done);")
        assert not outcome["ok"] and "Failed to fetch" in outcome["error"], outcome
        errors = console_errors(browser)
        assert any("CORS" in error for error in errors), errors
    finally:
        server.stop()
        closed.stop()


WAIT_FOR = {
    "/docs": "document.querySelectorAll('.opblock').length",
    "/redoc": "document.querySelectorAll('[data-section-id^=\"tag/\"]').length",
}


@pytest.mark.parametrize("page", sorted(WAIT_FOR))
def test_docs_pages_render_offline_from_the_gateways_own_files(browser: Any, gateway: Gateway, page: str) -> None:
    browser.get(f"{gateway.url}{page}")
    script = f"""
        const done = arguments[0];
        const started = Date.now();
        (function poll() {{
          const count = {WAIT_FOR[page]};
          if (count > 0 || Date.now() - started > 60000) done(count);
          else setTimeout(poll, 100);
        }})();
    """
    rendered = browser.execute_async_script(script)
    assert rendered >= len(WAIT_FOR), f"{page} rendered {rendered} operations or tags"
    resources = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name);")
    assert resources, "the page loaded nothing"
    foreign = [url for url in resources if not url.startswith(gateway.url) and not url.startswith("data:")]
    assert not foreign, f"{page} loaded {json.dumps(foreign)}"
    errors = console_errors(browser)
    assert not errors, errors
