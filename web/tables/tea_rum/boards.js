// The Tea & Rum action boards (rows, workers, the row a worker would use now, the alternative
// action), the ships of the round and the round strip (wishes, rewards, victory type).

import { el } from "../svg.js";
import { capital, choice, panel, seatDot } from "./kit.js";
import { gainsText } from "./words.js";

/** The four action boards; the current row's options and the alternative take a worker. */
export function drawActionBoards(ctx) {
  return el("div", { class: "tr-boards" }, ...ctx.view.action_boards.map((board) => drawActionBoard(ctx, board)));
}

function drawActionBoard(ctx, board) {
  const { w } = ctx;
  const name = `${w.boards[board.board] ?? board.board}${board.fountain ? ` · ${w.fountain}` : ""}`;
  const workers = [];
  for (let slot = 0; slot < board.capacity; slot += 1) workers.push(seatDot(ctx.table, board.workers[slot], w));
  const rows = board.rows.map((row) => drawRow(ctx, board, row));
  const alternative = choice(ctx, "worker_action", (b) => b.board === board.board && b.alternative === true,
    { class: "tr-alternative" }, `${w.alternative}: ${gainsText(board.alternative, w)}`);
  return panel({ class: `tr-board${board.fountain ? " tr-fountain" : ""}`, "data-board": board.board }, name,
    el("div", { class: "tr-workers", role: "group", "aria-label": w.workersHere }, ...workers),
    el("ol", { class: "tr-rows" }, ...rows),
    alternative);
}

function drawRow(ctx, board, row) {
  const { w } = ctx;
  const current = row.row === board.current_row;
  const label = el("span", { class: "tr-row-number", text: current ? `${row.row} · ${w.now}` : `${row.row}` });
  const options = row.blank ? [] : row.options.map((option, i) => {
    const match = (b) => b.board === board.board && !b.alternative && Number(b.option ?? 0) === i;
    return choice(ctx, current ? "worker_action" : null, match, { class: "tr-option" }, gainsText(option.gains, w));
  });
  return el("li", { class: current ? "tr-row tr-current" : "tr-row", "data-row": row.row }, label, ...options);
}

/** The ships of the round: cost and their two rows (buy a ship by its row). */
export function drawShips(ctx) {
  const { view, w } = ctx;
  if (!view.ships.length) return null;
  const ships = view.ships.map((ship) => {
    const rows = ship.rows.map((row, r) =>
      choice(ctx, "buy_ship", (b) => Number(b.ship) === ship.ship && Number(b.row ?? 0) === r, { class: "tr-option" },
        gainsText(row.gains, w)));
    const head = `${w.ship} ${ship.ship} · $${ship.cost}${ship.taken ? ` · ${w.taken}` : ""}`;
    return el("div", { class: ship.taken ? "tr-card tr-taken" : "tr-card", "data-ship": ship.ship },
      el("h4", { text: head }), ...rows);
  });
  return panel({ "data-panel": "ships" }, w.ships, el("div", { class: "tr-cards" }, ...ships));
}

/** The five rounds: the wish to satisfy, its reward colour and points, and the victory type (2 players). */
export function drawRounds(ctx) {
  const { view, w } = ctx;
  const rounds = view.rounds.map((round) => {
    const now = round.round === view.round;
    const symbols = round.symbols.map((s) => w.symbols[s] ?? s).join(" + ");
    const lines = [
      el("h4", { text: `${w.round} ${round.round}${now ? ` · ${w.now}` : ""}` }),
      el("p", { text: `${capital(w.wish)}: ${symbols}` }),
      el("p", { text: `${capital(w.colours[round.reward_colour] ?? round.reward_colour)}: ${round.first_reward} / ${round.second_reward}` }),
    ];
    if (round.victory_type) lines.push(el("p", { text: `${capital(w.victory)}: ${w.colours[round.victory_type] ?? round.victory_type}` }));
    return el("div", { class: now ? "tr-card tr-now" : "tr-card", "data-round": round.round }, ...lines);
  });
  return panel({ "data-panel": "rounds" }, w.rounds, el("div", { class: "tr-cards tr-round-cards" }, ...rounds));
}
