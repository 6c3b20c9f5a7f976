// The Tea & Rum action boards (rows, workers, the row a worker would use now, the alternative
// action), the ships of the round and the round strip (wishes, rewards, victory type).

import { box, chip, el, findOffer, group, offer, panelsInRow, seatColour, text } from "../drawing.js";
import { gainsText } from "./words.js";

const BOARD_WIDTH = 291;

/** The four action boards; the current row's options and the alternative take a worker. */
export function drawActionBoards(svg, ctx, y) {
  return panelsInRow(svg, ctx.view.action_boards, y, BOARD_WIDTH, 4, (board, x) => drawActionBoard(svg, ctx, board, x, y));
}

function drawActionBoard(svg, ctx, board, x, y) {
  const { w } = ctx;
  const g = group(svg, x, y, { "data-board": board.board });
  const height = 60 + board.rows.length * 34 + 40;
  box(g, 0, 0, BOARD_WIDTH, height, { fill: board.fountain ? "#eaf2f8" : "#fbf6e9" });
  text(g, 8, 18, `${w.boards[board.board] ?? board.board}${board.fountain ? ` · ${w.fountain}` : ""}`, { "font-weight": 600 });
  drawWorkers(g, board, 8, 28);
  board.rows.forEach((row, k) => drawRow(g, ctx, board, row, 6, 52 + k * 34));
  const alternative = chip(g, 6, 56 + board.rows.length * 34, BOARD_WIDTH - 12, 28, `${w.alternative}: ${gainsText(board.alternative, w)}`, { fill: "#fff" });
  const found = findOffer(ctx.offers, ctx.placed, "worker_action", (b) => b.board === board.board && b.alternative === true);
  offer(alternative, found, ctx.table, ctx.placed);
  return height;
}

function drawWorkers(parent, board, x, y) {
  for (let slot = 0; slot < board.capacity; slot += 1) {
    const seat = board.workers[slot];
    const taken = seat !== undefined;
    el("circle", {
      cx: x + 10 + slot * 24, cy: y + 8, r: 9, fill: taken ? seatColour(seat) : "#fff", stroke: "#555",
      "data-worker-seat": taken ? seat : "",
    }, parent);
  }
}

function drawRow(parent, ctx, board, row, x, y) {
  const { w } = ctx;
  const current = row.row === board.current_row;
  box(parent, x, y, BOARD_WIDTH - 12, 30, { fill: current ? "#fdebd0" : "#fff", stroke: current ? "#e67e22" : "#ccc" });
  text(parent, x + 6, y + 19, `${row.row}`, { "font-weight": 700 });
  if (row.blank) return;
  const width = (BOARD_WIDTH - 44) / row.options.length;
  row.options.forEach((option, i) => {
    const node = chip(parent, x + 26 + i * width, y + 3, width - 4, 24, gainsText(option.gains, w), { fill: current ? "#fff" : "#f8f8f8" });
    if (!current) return;
    const found = findOffer(ctx.offers, ctx.placed, "worker_action",
      (b) => b.board === board.board && !b.alternative && Number(b.option ?? 0) === i);
    offer(node, found, ctx.table, ctx.placed);
  });
}

/** The ships of the round: cost and their two rows (buy a ship by its row). */
export function drawShips(svg, ctx, y) {
  const { view, w } = ctx;
  if (!view.ships.length) return y;
  const g = group(svg, 12, y, { "data-panel": "ships" });
  box(g, 0, 0, 1176, 96, { fill: "#eaf2f8" });
  text(g, 8, 18, w.ships, { "font-weight": 600 });
  const width = Math.min(140, (1160 - 8) / view.ships.length);
  view.ships.forEach((ship, i) => {
    const s = group(g, 8 + i * width, 24, { "data-ship": ship.ship });
    box(s, 0, 0, width - 6, 66, { fill: ship.taken ? "#d5d8dc" : "#fff" });
    text(s, 6, 14, `#${ship.ship} · $${ship.cost}${ship.taken ? ` · ${w.taken}` : ""}`, { "font-size": 11, "font-weight": 600 });
    ship.rows.forEach((row, r) => {
      const node = chip(s, 4, 20 + r * 22, width - 14, 20, gainsText(row.gains, w), { fill: "#fdfefe" });
      const found = findOffer(ctx.offers, ctx.placed, "buy_ship", (b) => Number(b.ship) === ship.ship && Number(b.row ?? 0) === r);
      offer(node, found, ctx.table, ctx.placed);
    });
  });
  return y + 102;
}

/** The five rounds: the wish to satisfy, its reward colour and points, and the victory type (2 players). */
export function drawRounds(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y, { "data-panel": "rounds" });
  box(g, 0, 0, 1176, 42, { fill: "#f4ecf7" });
  text(g, 8, 26, w.rounds, { "font-weight": 600 });
  view.rounds.forEach((round, i) => {
    const now = round.round === view.round;
    const r = group(g, 80 + i * 219, 5);
    box(r, 0, 0, 212, 32, { fill: now ? "#fff" : "#faf5fc", stroke: now ? "#7d3c98" : "#ccc", "stroke-width": now ? 2 : 1 });
    const symbols = round.symbols.map((s) => w.symbols[s] ?? s).join("+");
    const victory = round.victory_type ? ` · ${w.victory}: ${w.colours[round.victory_type] ?? round.victory_type}` : "";
    text(r, 6, 13, `${round.round}: ${w.wish} ${symbols}`, { "font-size": 10 });
    text(r, 6, 27, `${w.colours[round.reward_colour] ?? round.reward_colour} ${round.first_reward}/${round.second_reward}${victory}`, { "font-size": 10 });
  });
  return y + 48;
}
