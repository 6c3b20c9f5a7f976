// The Alubari table of the reference web client (see web/tables/ for the table contract).
//
// Everything in an Alubari view is public (the bag and the deck order are never in it), so the
// table draws the whole view.  It is a layout of HTML sections (a CSS grid, alubari/alubari.css),
// not one scaled picture: text keeps its size on a phone and the board reflows instead.
//
// Every legal move is a button where it belongs: placing a worker on an action space, building a
// station, taking a stockyard cube, a Post Office contract or an engine shed Equipment, playing a
// held contract.  The other moves (chai boost, foundry, maintenance, the third worker, ending an
// action...) are buttons of the table's own action bar, which stays at the bottom of the screen
// while the board scrolls, so the board and the choices of a turn are seen together on a phone.

import { html, render } from "../vendor/htm-preact-standalone.js";
import { offers, seatName } from "./drawing.js";
import { term } from "./svg.js";
import { areaName, drawAreas, drawEstates, drawRailway, drawTracks } from "./alubari/board.js";
import { priceOf } from "./alubari/kit.js";
import { drawDesk, drawPlayers, drawScoreSheet } from "./alubari/panels.js";
import { wordsFor } from "./alubari/words.js";

/** Link the table's stylesheet once and wait for it, so the first drawing is already laid out. */
async function loadStyle() {
  if (document.getElementById("alubari-style")) return;
  const link = document.createElement("link");
  link.id = "alubari-style";
  link.rel = "stylesheet";
  link.href = new URL("./alubari/alubari.css", import.meta.url).href;
  const loaded = new Promise((resolve) => {
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", resolve, { once: true }); // an unstyled table still plays
  });
  document.head.append(link);
  await loaded;
}

await loadStyle();

/** Fill `host` with the Alubari table for `table`; returns the legal moves placed on it. */
export function drawTable(host, table) {
  const w = wordsFor(table.words);
  const ctx = { view: table.view, w, table, placed: new Set(), offers: offers(table.legal) };
  // The board's sections first: they take their moves; the action bar gets the rest.
  const sections = [drawStatus(ctx), drawScoreSheet(ctx), drawAreas(ctx), drawDesk(ctx), drawPlayers(ctx),
    drawRailway(ctx), drawEstates(ctx), drawTracks(ctx)];
  const bar = drawActionBar(ctx);
  const root = document.createElement("div"); // a fresh root per drawing: the shell empties `host`
  host.append(root);
  render(html`<div class="alu" data-game="alubari" lang=${table.words === "es" ? "es" : "en"}>
    <div class="alu-board">${sections}</div>${bar}</div>`, root);
  return { placed: ctx.placed };
}

/** Round, stage, the worker being resolved, an open contract window and the ending. */
function drawStatus(ctx) {
  const { view, w, table } = ctx;
  const parts = [`${w.round} ${view.round}`, `${w.stage}: ${term(table, "stage", view.stage)}`];
  const worker = view.worker;
  if (worker) {
    const who = seatName(table, worker.seat, w);
    const step = `${term(table, "worker_stage", worker.stage)} ${worker.count} ${w.of} ${worker.limit}`;
    parts.push(`${w.worker} (${who}): ${worker.area} ${areaName(ctx, worker.area)}, ${w.space} ${worker.space} · ${step}`);
  }
  if (view.contract_window) {
    parts.push(`${w.window} ${view.contract_window.area} (${areaName(ctx, view.contract_window.area)})`);
  }
  if (view.ending && view.ending.extra_round_seat >= 0 && view.ending.reason) {
    parts.push(`${w.ending}: ${term(table, "ending", view.ending.reason)}`);
  }
  return html`<p class="alu-status" data-status="">${parts.join(" · ")}</p>`;
}

/** The viewer's turn: a hint to the board's marked places and a button for every other legal move. */
function drawActionBar(ctx) {
  const { table, w, placed } = ctx;
  const legal = table.legal;
  if (!legal || !legal.moves.length) return null;
  const onBoard = placed.size > 0;
  const rest = legal.moves.map((_, i) => i).filter((i) => !placed.has(i));
  rest.forEach((i) => placed.add(i));
  return html`<section class="alu-actions" aria-labelledby="alu-actions-h">
    <h2 id="alu-actions-h">${w.yourTurn}</h2>
    <p class="alu-actions-hint">${onBoard ? html`<span class="alu-key" aria-hidden="true">▸</span> ${w.boardHint}${rest.length ? ` ${w.orThese}` : "."}` : w.choose}</p>
    ${rest.length ? html`<div class="alu-action-buttons">${rest.map((i) => html`<button type="button"
      class="alu-move" data-move-index=${i} data-costs=${priceOf(legal.moves[i])}>${legal.texts[i] || `#${i}`}</button>`)}</div>` : null}
  </section>`;
}
