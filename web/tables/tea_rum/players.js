// Tea & Rum player boards (money, population, VP or a closed chest, warehouse and expansions,
// buildings, captains, contracts, allegiance, wishes), the reputation track and the automa.

import { box, chip, el, findOffer, group, offer, panelsInRow, seatColour, seatName, text } from "../drawing.js";
import { RESOURCES, RESOURCE_COLOURS } from "./words.js";

const REPUTATION_STEPS = 25;

/** The reputation track 0–25 with each player's marker. */
export function drawReputation(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y, { "data-panel": "reputation" });
  box(g, 0, 0, 1176, 48, { fill: "#fef5e7" });
  text(g, 8, 28, w.reputation, { "font-weight": 600 });
  for (let step = 0; step <= REPUTATION_STEPS; step += 1) {
    box(g, 96 + step * 41, 6, 38, 22, { fill: "#fff", rx: 2 });
    text(g, 96 + step * 41 + 19, 21, step, { "text-anchor": "middle", "font-size": 10 });
  }
  view.players.forEach((p, k) => {
    el("circle", { cx: 96 + p.reputation * 41 + 8 + k * 8, cy: 38, r: 4, fill: seatColour(p.seat), "data-reputation-seat": p.seat }, g);
  });
  return y + 54;
}

const PLAYER_WIDTH = 292;

/** One board per player; the viewer's own board offers its expansions and captain activations. */
export function drawPlayers(svg, ctx, y) {
  return panelsInRow(svg, ctx.view.players, y, PLAYER_WIDTH, 4, (p, x) => drawPlayer(svg, ctx, p, x, y));
}

/** The VP line: both colours, or a closed chest whose contents this viewer may not see. */
function vpLine(p, w) {
  if (p.vp_hidden) return `${w.chest}: ${w.chestClosed}`;
  const chest = p.chest ? ` (${w.chest})` : "";
  return `${p.blue_vp} ${w.blueVp} · ${p.red_vp} ${w.redVp}${chest}`;
}

function drawPlayer(svg, ctx, p, x, y) {
  const { view, w, table } = ctx;
  const g = group(svg, x, y, { "data-player": p.seat });
  const acting = (view.to_act || []).includes(p.seat);
  const lines = playerLines(p, w, table);
  const height = 128 + lines.length * 15 + p.captains.length * 26;
  box(g, 0, 0, PLAYER_WIDTH, height, { fill: "#fff", stroke: seatColour(p.seat), "stroke-width": acting ? 4 : 2 });
  const label = p.label ? ` [${p.label}]` : "";
  const you = table.seat === p.seat ? ` (${w.you})` : "";
  text(g, 8, 18, `${seatName(table, p.seat, w)}${label}${you}${acting ? ` · ${w.toAct}` : ""}`, { "font-weight": 600, fill: seatColour(p.seat) });
  text(g, 8, 36, `$${p.money} ${w.money} · ${w.population} ${p.population} · ${w.reputation} ${p.reputation}`, { "font-size": 11 });
  const vp = text(g, 8, 52, vpLine(p, w), { "font-size": 11, "data-vp-seat": p.seat, "data-hidden": p.vp_hidden ? "true" : "false" });
  if (p.vp_hidden) vp.setAttribute("font-style", "italic");
  drawWarehouse(g, ctx, p, 8, 60);
  lines.forEach((line, k) => text(g, 8, 134 + k * 15, line, { "font-size": 10 }));
  drawCaptains(g, ctx, p, 126 + lines.length * 15);
  return height;
}

function playerLines(p, w, table) {
  const wishes = `${w.wishes}: ${Object.entries(p.wishes).map(([k, v]) => `${w.symbols[k] ?? k} ${v}`).join(", ")}`;
  const allegiance = p.allegiance ? `#${p.allegiance}${p.allegiance_fulfilled ? ` (${w.fulfilled})` : ""}` : w.none;
  const lines = [
    ...wrap(`${w.buildings} (${p.buildings.length}): ${p.buildings.join(", ") || "—"}`, 52),
    `${w.contracts}: ${p.contracts.length} · ${w.allegiance}: ${allegiance}`,
    `${w.workers}: ${p.workers_on_boards}${p.ships_passed ? ` · ${w.passed}` : ""}`,
    wishes,
  ];
  if (table.seat === p.seat && (p.exchanged_blue || p.exchanged_red || p.exchange_done)) {
    lines.push(`${w.exchanged}: ${p.exchanged_blue} ${w.colours.blue}, ${p.exchanged_red} ${w.colours.red}`);
  }
  return lines;
}

/** `line` cut at spaces into lines of at most `width` characters. */
function wrap(line, width) {
  const out = [""];
  for (const word of line.split(" ")) {
    const last = out[out.length - 1];
    if (last && last.length + word.length + 1 > width) out.push(`  ${word}`);
    else out[out.length - 1] = last ? `${last} ${word}` : word;
  }
  return out;
}

function drawWarehouse(parent, ctx, p, x, y) {
  const { w } = ctx;
  const used = RESOURCES.reduce((sum, r) => sum + (p.warehouse[r] ?? 0), 0);
  text(parent, x, y + 10, `${w.warehouse} ${used}/${p.warehouse_capacity}`, { "font-size": 10, "font-weight": 600 });
  RESOURCES.forEach((r, i) => {
    const g = group(parent, x + i * 46, y + 14, { "data-warehouse": r });
    box(g, 0, 0, 42, 22, { fill: RESOURCE_COLOURS[r], "fill-opacity": 0.35, rx: 2 });
    text(g, 21, 15, `${p.warehouse[r] ?? 0} ${w.res[r].slice(0, 4)}`, { "text-anchor": "middle", "font-size": 9 });
  });
  text(parent, x, y + 50, `${w.expansions}:`, { "font-size": 10 });
  p.expansion_tokens.forEach((token, i) => {
    const node = chip(parent, x + 66 + i * 34, y + 40, 30, 18, token.bought ? "✓" : `$${token.cost}`, { fill: token.bought ? "#d5f5e3" : "#fff" });
    if (p.seat !== ctx.table.seat) return;
    const found = findOffer(ctx.offers, ctx.placed, "expand_warehouse", (b) => Number(b.token ?? 0) === token.token);
    offer(node, found, ctx.table, ctx.placed);
  });
}

function drawCaptains(parent, ctx, p, y) {
  const { w } = ctx;
  p.captains.forEach((held, k) => {
    const node = chip(parent, 6, y + k * 26, PLAYER_WIDTH - 12, 22, `${w.captain} #${held.captain}${held.face_up ? "" : " ↓"}`, { fill: "#f2f4f4" });
    if (p.seat !== ctx.table.seat) return;
    const found = findOffer(ctx.offers, ctx.placed, "activate_captain", (b) => Number(b.captain) === held.captain);
    offer(node, found, ctx.table, ctx.placed);
  });
}

/** The 2-player automa: tokens left and drawn, face-down victory cards; the general supply. */
export function drawAutomaAndSupply(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y, { "data-panel": "supply" });
  box(g, 0, 0, 1176, 30, { fill: "#f8f9f9" });
  const supply = RESOURCES.map((r) => `${view.supply[r] ?? 0} ${w.res[r]}`).join(" · ");
  text(g, 8, 20, `${w.supply}: ${supply}`, { "font-size": 11 });
  if (view.automa) {
    const a = view.automa;
    const drawn = a.drawn.map((b) => w.boards[b] ?? b).join(", ") || "—";
    text(g, 640, 20, `${w.automa}: ${a.tokens_left} ${w.automaTokens} · ${w.drawn}: ${drawn} · ${a.victory_cards_face_down} ${w.faceDown}`, { "font-size": 11 });
  }
  return y + 36;
}

/** The end of the game: Governor(s), Pirate King(s), the winners (two in 3–4 players), final VP. */
export function drawFinal(svg, ctx, y) {
  const { view, w, table } = ctx;
  const final = view.final;
  if (!final) return y;
  const g = group(svg, 12, y, { "data-panel": "final", "data-winners": final.winners.join(",") });
  box(g, 0, 0, 1176, 56, { fill: "#fef9e7", stroke: "#b7950b", "stroke-width": 2 });
  const names = (seats) => seats.map((s) => seatName(table, s, w)).join(", ") || "—";
  const colour = final.victory_colour ? ` · ${w.victory}: ${w.colours[final.victory_colour] ?? final.victory_colour}` : "";
  const heading = final.winners.length > 1 ? w.twoWinners : w.winners;
  text(g, 8, 20, `${w.final}: ${w.governor}: ${names(final.governors)} · ${w.pirateKing}: ${names(final.pirate_kings)}${colour}`, { "font-weight": 600 });
  text(g, 8, 44, `${heading}: ${names(final.winners)} · ${final.blue.map((b, s) => `${seatName(table, s, w)} ${b}/${final.red[s]}`).join(" · ")}`, { "data-final-winners": "" });
  return y + 62;
}
