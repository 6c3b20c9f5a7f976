// The Alubari table of the reference web client (see web/tables/ for the table contract).
//
// Everything in an Alubari view is public (the bag and the deck order are never in it), so the
// table draws the whole view.  Spatial moves are offered on the board: placing a worker on an
// action space, building a station, taking a stockyard cube, a Post Office contract or an engine
// shed Equipment, and playing a held contract.  Every other move stays a button of the shell.

import { drawSections, text } from "./drawing.js";
import { drawAreas, drawEstates, drawRailway, drawTracks } from "./alubari/board.js";
import { drawDesk, drawPlayers, drawScoreSheet } from "./alubari/panels.js";
import { wordsFor } from "./alubari/words.js";
import { term } from "./svg.js";

/** Fill `host` with the Alubari board for `table`; returns the legal moves placed on it. */
export function drawTable(host, table) {
  return drawSections(host, table, {
    game: "alubari",
    width: 1200,
    wordsFor,
    sections: [drawStatus, drawScoreSheet, drawAreas, drawTracks, drawRailway, drawEstates, drawDesk, drawPlayers],
  });
}

/** Round, stage, the worker being resolved, an open contract window and the ending. */
function drawStatus(svg, ctx, y) {
  const { view, w, table } = ctx;
  const parts = [`${w.round} ${view.round}`, `${w.stage}: ${term(table, "stage", view.stage)}`];
  const worker = view.worker;
  if (worker) {
    const where = `${worker.area}${worker.space} ${w.areas[worker.area] ?? term(table, "area_kind", worker.kind)}`;
    parts.push(`${w.worker}: ${where}, ${term(table, "worker_stage", worker.stage)} ${worker.count}/${worker.limit}`);
  }
  if (view.contract_window) parts.push(`${w.window} ${view.contract_window.area}`);
  if (view.ending && view.ending.extra_round_seat >= 0 && view.ending.reason) parts.push(`${w.ending}: ${view.ending.reason}`);
  text(svg, 12, y + 16, parts.join(" · "), { "font-size": 14, "font-weight": 600, "data-status": "" });
  return y + 26;
}
