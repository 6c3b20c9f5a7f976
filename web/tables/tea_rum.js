// The Tea & Rum table of the reference web client (see web/tables/ for the table contract).
//
// The view is already redacted for this viewer: a closed chest arrives as `vp_hidden` with no
// VP, the secret end-game exchange only to its owner.  The table draws a hidden chest as hidden
// (never as zero).  Spatial moves are offered on the board: a worker on an action board's row
// option or alternative, a ship's row, a contract in blue or red, an allegiance, a captain, a
// building, warehouse expansions, captain activations, and every step of a trade on the trade
// board.  The rest (choices, discards, end of turn, the exchange) stay buttons of the shell.

import { drawSections, seatName, text } from "./drawing.js";
import { drawActionBoards, drawRounds, drawShips } from "./tea_rum/boards.js";
import { drawBuildings, drawCaptains, drawMarket } from "./tea_rum/market.js";
import { drawAutomaAndSupply, drawFinal, drawPlayers, drawReputation } from "./tea_rum/players.js";
import { drawTrade } from "./tea_rum/trade.js";
import { wordsFor } from "./tea_rum/words.js";

/** Fill `host` with the Tea & Rum table for `table`; returns the legal moves placed on it. */
export function drawTable(host, table) {
  return drawSections(host, table, {
    game: "tea_rum",
    width: 1200,
    wordsFor,
    sections: [drawStatus, drawFinal, drawRounds, drawActionBoards, drawTrade, drawShips, drawMarket, drawCaptains,
      drawBuildings, drawReputation, drawAutomaAndSupply, drawPlayers],
  });
}

/** Round, phase and stage, and who decides what now. */
function drawStatus(svg, ctx, y) {
  const { view, w, table } = ctx;
  const parts = [`${w.round} ${view.round}`, `${w.phase}: ${view.phase}`];
  if (view.stage) parts.push(`${w.stage}: ${view.stage}`);
  const decision = view.decision;
  if (decision) {
    const who = decision.seat >= 0 ? seatName(table, decision.seat, w) : w.automa;
    parts.push(`${who} ${w.deciding}: ${decision.kind}`);
  }
  text(svg, 12, y + 16, parts.join(" · "), { "font-size": 14, "font-weight": 600, "data-status": "" });
  return y + 26;
}
