// The Tea & Rum table of the reference web client (see web/tables/ for the table contract).
//
// The table is HTML laid out with CSS grid (tea_rum/tea_rum.css), not one scaled picture: text
// keeps its CSS size on a phone and on a wide screen, and every legal move is a real button
// (tea_rum/kit.js).  The view is already redacted for this viewer: a closed chest arrives as
// `vp_hidden` with no VP, the secret end-game exchange only to its owner.  The table draws a
// hidden chest as hidden (never as zero).  Spatial moves are offered where they belong: a worker
// on an action board's row option or alternative, a ship's row, a contract in blue or red, an
// allegiance, a captain, a building, warehouse expansions, captain activations, and every step of
// a trade on the trade board.  The rest (choices, discards, end of turn, the exchange) are
// buttons in the turn bar, which stays at the bottom of the screen while the board scrolls, so
// the decision and its answers are always together.

import { el, kindOf, term } from "./svg.js";
import { offers, seatName } from "./drawing.js";
import { drawActionBoards, drawRounds, drawShips } from "./tea_rum/boards.js";
import { offered } from "./tea_rum/kit.js";
import { drawAllegiances, drawBuildings, drawCaptains, drawContracts } from "./tea_rum/market.js";
import { drawAutomaAndSupply, drawFinal, drawPlayers, drawReputation } from "./tea_rum/players.js";
import { drawTrade } from "./tea_rum/trade.js";
import { gainsText, wordsFor } from "./tea_rum/words.js";

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
  const sections = [drawFinal, drawTrade, drawRounds, drawActionBoards, drawShips, drawContracts, drawAllegiances,
    drawCaptains, drawBuildings, drawPlayers, drawReputation, drawAutomaAndSupply].map((draw) => draw(ctx));
  const root = el("div", { class: "tr", "data-game": "tea_rum", role: "region", "aria-label": w.title },
    el("div", { class: "tr-grid" }, ...sections.filter(Boolean)));
  root.append(drawTurnBar(ctx));
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
 * The turn bar: the status line, and for the seat to act every legal move the board did not
 * place (each a button with the API's sentence), plus a button that brings the board's
 * highlighted choices into view.
 */
function drawTurnBar(ctx) {
  const { table, w } = ctx;
  const bar = el("div", { class: "tr-turn", "data-turn-bar": "" }, el("p", { class: "tr-status", "data-status": "", text: statusLine(ctx) }));
  const legal = table.legal;
  if (!legal) return bar;
  const onBoard = ctx.placed.size;
  const rest = legal.moves.map((_, i) => i).filter((i) => !ctx.placed.has(i));
  const buttons = rest.map((i) => offered(ctx, i, { class: "tr-move" }, moveLabel(ctx, i)));
  if (onBoard) {
    const show = el("button", { type: "button", class: "tr-show", text: `${w.showChoices} (${onBoard})` });
    show.addEventListener("click", () => {
      const first = bar.parentElement?.querySelector(".tr-grid .legal");
      if (first) {
        first.scrollIntoView({ block: "center", behavior: "smooth" });
        first.focus({ preventScroll: true });
      }
    });
    buttons.unshift(show);
  }
  bar.append(el("div", { class: "tr-moves" }, ...buttons));
  return bar;
}

/** A move's sentence; a choice among options also says what the option gives. */
function moveLabel(ctx, index) {
  const move = ctx.table.legal.moves[index];
  const sentence = ctx.table.legal.texts[index] || "";
  if (kindOf(move) !== "choose_option") return sentence;
  const option = ctx.view.decision?.options?.[Number(move.choose_option.option ?? 0)];
  const gains = option ? gainsText(option.gains ?? [], ctx.w) : "";
  return gains ? `${sentence} ${gains}` : sentence;
}
