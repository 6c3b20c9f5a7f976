// The Tea & Rum table of the reference web client (see web/tables/ for the table contract).
//
// The table is HTML laid out with CSS grid (tea_rum/tea_rum.css), not one scaled picture: text
// keeps its CSS size on a phone and on a wide screen, and every legal move is a real button
// (tea_rum/kit.js).  The view is already redacted for this viewer: a closed chest arrives as
// `vp_hidden` with no VP, the secret end-game exchange only to its owner.  The table draws a
// hidden chest as hidden (never as zero).  Spatial moves are offered where they belong: a worker
// on an action board's row option or alternative, a ship's row, a contract in blue or red, an
// allegiance, a captain, a building, warehouse expansions, captain activations, and every step of
// a trade on the trade board, a choice among options in the decision panel at the top (which
// says in words who decides what now).  The rest (discards, end of turn, the exchange) are the
// shell's buttons, which on a phone stay at the bottom of the screen while the board scrolls.

import { el, term } from "./svg.js";
import { offers, seatName } from "./drawing.js";
import { drawActionBoards, drawRounds, drawShips } from "./tea_rum/boards.js";
import { choice } from "./tea_rum/kit.js";
import { drawAllegiances, drawBuildings, drawCaptains, drawContracts } from "./tea_rum/market.js";
import { drawAutomaAndSupply, drawFinal, drawPlayers, drawReputation } from "./tea_rum/players.js";
import { drawTrade } from "./tea_rum/trade.js";
import { gainsText, wordsFor } from "./tea_rum/words.js";
// What the shell shows of this game beyond the board: the end screen's breakdown and verdict,
// the places a move touched (web/tables/breakdowns.js, verdicts.js, places.js).
export { teaRumBreakdown as breakdown } from "./breakdowns.js";
export { teaRumVerdict as verdict } from "./verdicts.js";
export { teaRumMarks as marks } from "./places.js";

const STYLE_ID = "tea-rum-style";

/** Link the table's own stylesheet once (the shell's style.css knows nothing of this table). */
function linkStyle() {
  if (document.getElementById(STYLE_ID)) return;
  const link = document.createElement("link");
  link.id = STYLE_ID;
  link.rel = "stylesheet";
  link.href = new URL("./tea_rum/tea_rum.css", import.meta.url).href;
  document.head.append(link);
}

/** Fill `host` with the Tea & Rum table for `table`; returns the legal moves placed on it. */
export function drawTable(host, table) {
  linkStyle();
  const w = wordsFor(table.words);
  const ctx = { view: table.view, w, table, placed: new Set(), offers: offers(table.legal) };
  const decision = drawDecision(ctx);
  const sections = [drawFinal, drawTrade, drawRounds, drawActionBoards, drawShips, drawContracts, drawAllegiances,
    drawCaptains, drawBuildings, drawPlayers, drawReputation, drawAutomaAndSupply].map((draw) => draw(ctx));
  const root = el("div", { class: "tr", "data-game": "tea_rum", role: "region", "aria-label": w.title },
    el("div", { class: "tr-grid" }, decision, ...sections.filter(Boolean)));
  addChoiceFinder(decision, ctx, root);
  host.append(root);
  return { placed: ctx.placed };
}

/** Round, phase and who decides what now, in words. */
function statusLine(ctx) {
  const { view, w, table } = ctx;
  const parts = [`${w.round} ${view.round}`, term(table, "phase", view.phase)];
  const decision = view.decision;
  if (decision) {
    const who = decision.seat >= 0 ? seatName(table, decision.seat, w) : w.automa;
    parts.push(`${who}: ${term(table, "decision", decision.kind)}`);
  }
  return parts.join(" · ");
}

/**
 * The decision now: the status line and, when it is a choice among options, each option with
 * what it gives (a button for the seat that chooses).  The other moves that have no place on the
 * board (discards, end of turn, the exchange) are the shell's buttons in `#moves`.
 */
function drawDecision(ctx) {
  const { view, w } = ctx;
  const parts = [el("p", { class: "tr-status", "data-status": "", text: statusLine(ctx) })];
  const options = view.decision?.kind === "choose" ? view.decision.options ?? [] : [];
  if (options.length) {
    parts.push(el("div", { class: "tr-options" }, ...options.map((option, i) =>
      choice(ctx, "choose_option", (b) => Number(b.option ?? 0) === i, { class: "tr-option", "data-option": i },
        `${w.option} ${i + 1}: ${gainsText(option.gains ?? [], w) || "—"}`))));
  }
  return el("section", { class: "tr-panel tr-decision", "data-panel": "decision" }, ...parts);
}

/** A button that brings the first choice offered on the board into view (a long board on a phone). */
function addChoiceFinder(decision, ctx, root) {
  const elsewhere = [...root.querySelectorAll(".tr-grid .legal")].filter((node) => !decision.contains(node));
  if (!elsewhere.length) return;
  const show = el("button", { type: "button", class: "tr-show", text: `${ctx.w.showChoices} (${elsewhere.length})` });
  show.addEventListener("click", () => {
    const first = elsewhere[0];
    first.scrollIntoView({ block: "center", behavior: "smooth" });
    first.focus({ preventScroll: true });
  });
  decision.append(show);
}
