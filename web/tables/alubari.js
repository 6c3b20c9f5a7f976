// The Alubari table of the reference web client (see web/tables/ for the table contract).
//
// Everything in an Alubari view is public (the bag and the deck order are never in it), so the
// table draws the whole view.  It is a layout of HTML sections (a CSS grid, alubari/alubari.css),
// not one scaled picture: text keeps its size on a phone and the board reflows instead.
//
// Every board move is a button where it belongs: placing a worker on an action space, building a
// station, taking a stockyard cube, a Post Office contract or an engine shed Equipment, playing a
// held contract.  The other moves (chai boost, foundry, maintenance, the third worker, ending an
// action...) stay buttons of the shell, whose action bar sticks to the bottom of a phone's screen.
// Under the status line the table says where this turn's board choices are, with a button that
// scrolls to them (the railway is far down on a phone).

import { html, render } from "../vendor/htm-preact-standalone.js";
import { offers, seatName } from "./drawing.js";
import { term } from "./svg.js";
import { areaName, drawAreas, drawEstates, drawRailway, drawTracks } from "./alubari/board.js";
import { drawDesk, drawPlayers, drawScoreSheet } from "./alubari/panels.js";
import { wordsFor } from "./alubari/words.js";
// What the shell shows of this game beyond the board: the end screen's breakdown and verdict,
// the places a move touched (web/tables/breakdowns.js, verdicts.js, places.js).
export { alubariBreakdown as breakdown } from "./breakdowns.js";
export { highestScoreVerdict as verdict } from "./verdicts.js";
export { alubariMarks as marks } from "./places.js";

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
  const sections = [drawStatus(ctx), drawScoreSheet(ctx), drawAreas(ctx), drawDesk(ctx), drawPlayers(ctx),
    drawRailway(ctx), drawEstates(ctx), drawTracks(ctx)];
  sections.splice(1, 0, drawWhere(ctx)); // once every section has taken its moves
  const root = document.createElement("div"); // a fresh root per drawing: the shell empties `host`
  host.append(root);
  render(html`<div class="alu" data-game="alubari" lang=${table.words === "es" ? "es" : "en"}>
    <div class="alu-board">${sections}</div></div>`, root);
  return { placed: ctx.placed };
}

/** Round, stage, the worker being resolved, an open contract window and the ending. */
function drawStatus(ctx) {
  const { view, w, table } = ctx;
  const parts = [`${w.round} ${view.round}`, `${w.stage}: ${term(table, "stage", view.stage)}`];
  const worker = view.worker;
  if (worker) {
    const who = seatName(table, worker.seat, w);
    const step = `${term(table, "worker_stage", worker.stage)}, ${worker.count} ${w.of} ${worker.limit} ${w.done}`;
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

// Where each kind of board move is offered: the section's heading id and its name in the words.
const WHERE = {
  place_worker: ["alu-areas-h", "areas"],
  build_station: ["alu-railway-h", "railwayShort"],
  take_cube: ["alu-yard-h", "stockyard"],
  take_contract: ["alu-post-h", "postOffice"],
  buy_equipment: ["alu-shed-h", "engineShed"],
  play_contract: ["alu-players-h", "contracts"],
};

/** Scroll to the first choice under heading `id` and focus it (the board may be long on a phone). */
function goTo(id) {
  const section = document.getElementById(id)?.closest("section");
  const choice = section && section.querySelector(".alu-choice");
  if (!choice) return;
  choice.scrollIntoView({ block: "center", behavior: "smooth" });
  choice.focus({ preventScroll: true });
}

/** The sections holding this turn's board choices, with how many each holds. */
function choiceSections(ctx) {
  const counts = new Map();
  for (const offer of ctx.offers) {
    if (!ctx.placed.has(offer.index) || !WHERE[offer.kind]) continue;
    const [id, word] = WHERE[offer.kind];
    counts.set(id, { word, n: (counts.get(id)?.n ?? 0) + 1 });
  }
  return [...counts.entries()];
}

/** Where this turn's board choices are: a button per section holding some, which scrolls to them. */
function drawWhere(ctx) {
  const { w } = ctx;
  const sections = choiceSections(ctx);
  if (!sections.length) return null;
  return html`<nav class="alu-where" aria-label=${w.yourChoices}>
    <span><span class="alu-key" aria-hidden="true">▸</span> ${w.yourChoices}:</span>
    ${sections.map(([id, { word, n }]) => html`<button type="button" class="alu-jump"
      onClick=${() => goTo(id)}>${w[word]} (${n}) ↓</button>`)}
  </nav>`;
}
