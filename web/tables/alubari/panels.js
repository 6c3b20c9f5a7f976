// The Alubari side panels: stockyard and bag, the event rondel, the Post Office, the engine shed,
// the general supply, and each player's supply with their Equipment and contracts.

import { box, chip, el, findOffer, group, offer, panelsInRow, seatColour, seatName, text } from "../drawing.js";
import { costText } from "./words.js";
import { term } from "../svg.js";

const CUBE_COLOURS = { iron_ore: "#e67e22", stone: "#95a5a6", chai: "#27ae60" };
const CUBE_ENUMS = { iron_ore: "IRON_ORE", stone: "STONE", chai: "CHAI" };

/** The band of stockyard, Post Office and engine shed. */
export function drawDesk(svg, ctx, y) {
  drawYard(svg, ctx, y);
  drawPostOffice(svg, ctx, y);
  drawShed(svg, ctx, y);
  return y + 156;
}

/** Stockyard cubes (take one on the board), bag count, rondel events and the general supply. */
function drawYard(svg, ctx, y) {
  const { view, w, offers, placed, table } = ctx;
  const g = group(svg, 12, y, { "data-panel": "stockyard" });
  box(g, 0, 0, 300, 150, { fill: "#fdf2e9" });
  text(g, 8, 18, `${w.stockyard} · ${w.bag}: ${view.bag_count}`, { "font-weight": 600 });
  Object.entries(CUBE_ENUMS).forEach(([cube, name], i) => {
    const node = chip(g, 10 + i * 96, 30, 88, 40, `${view.stockyard[cube]} ${w.res[cube]}`, { fill: CUBE_COLOURS[cube] });
    node.setAttribute("data-cube", cube);
    offer(node, findOffer(offers, placed, "take_cube", (b) => b.cube === name), table, placed);
  });
  const s = view.supply;
  text(g, 8, 92, `${w.supply}: ${s.rubble} ${w.res.rubble} · ${s.steel} ${w.res.steel} · ${s.tea_leaves} ${w.res.tea_leaves}`, { "font-size": 11 });
  text(g, 8, 108, `${s.game_markers} ${w.gameMarkers}`, { "font-size": 11 });
  text(g, 8, 128, `${w.rondel}:`, { "font-size": 11, "font-weight": 600 });
  view.rondel.forEach((space, i) => {
    const r = group(g, 58 + i * 26, 116);
    el("circle", { cx: 12, cy: 10, r: 11, fill: space.has_cube ? "#fff" : "#eee", stroke: "#8a7f6a" }, r);
    if (space.has_cube) el("rect", { x: 7, y: 5, width: 10, height: 10, fill: "#ecf0f1", stroke: "#333" }, r);
    el("title", {}, r).textContent = `${space.space}: ${space.kind}`;
  });
  return g;
}

/** A contract card as one line: weather, areas, effect, requirements and points. */
export function contractText(contract, w, table) {
  const effect = contract.effect;
  const gain = effect.resource ? `+${effect.amount} ${w.res[effect.resource] ?? effect.resource}` : `${term(table, "effect", effect.kind)} ${effect.amount || ""}`.trim();
  const needs = contract.requirements.map((r) => `${r.count} ${term(table, "need", r.kind)}`).join(", ");
  const weather = w.weatherNames[contract.weather] ?? "";
  return `#${contract.id} ${weather} ${contract.areas.join("/")}: ${gain} | ${needs} → ${contract.points}${w.vp}`;
}

/** The Post Office positions A–C with their face-up contracts, and the deck. */
function drawPostOffice(svg, ctx, y) {
  const { view, w, offers, placed, table } = ctx;
  const g = group(svg, 318, y, { "data-panel": "post-office" });
  box(g, 0, 0, 430, 150, { fill: "#f4ecf7" });
  text(g, 8, 18, `${w.postOffice} · ${w.deck}: ${view.deck_count} (${w.weatherNames[view.deck_top_weather] ?? ""}) · ${w.discard}: ${view.discard_count}`, { "font-weight": 600 });
  view.post_office.forEach((slot, i) => {
    const label = slot.empty || !slot.contract ? w.empty : contractText(slot.contract, w, ctx.table);
    const node = chip(g, 8, 28 + i * 38, 414, 32, `${"ABC"[slot.slot] ?? slot.slot}: ${label}`, { fill: "#fff" });
    offer(node, findOffer(offers, placed, "take_contract", (b) => Number(b.slot ?? 0) === slot.slot), table, placed);
  });
  return g;
}

/** The engine shed: Equipment for sale, its cost and chai. */
function drawShed(svg, ctx, y) {
  const { view, w, offers, placed, table } = ctx;
  const g = group(svg, 756, y, { "data-panel": "engine-shed" });
  box(g, 0, 0, 432, 150, { fill: "#ebf5fb" });
  text(g, 8, 18, w.engineShed, { "font-weight": 600 });
  view.engine_shed.forEach((item, i) => {
    const eq = item.equipment;
    const node = chip(g, 8 + (i % 2) * 210, 26 + Math.floor(i / 2) * 40, 204, 36, eq.name, { fill: "#fff" });
    const label = node.querySelector("text");
    label.setAttribute("y", 15);
    label.setAttribute("font-size", 10);
    text(node, 102, 30, `${costText(eq.cost)} · ${item.chai}C`, { "text-anchor": "middle", "font-size": 9, class: "pin" });
    offer(node, findOffer(offers, placed, "buy_equipment", (b) => Number(b.equipment_id) === eq.id), table, placed);
  });
  return g;
}

const PLAYER_WIDTH = 230;

/** One panel per player: workers, markers, chai, resources, Equipment and contracts (play held ones). */
export function drawPlayers(svg, ctx, y) {
  return panelsInRow(svg, ctx.view.player_states, y, PLAYER_WIDTH, 6, (p, x) => drawPlayer(svg, ctx, p, x, y));
}

function drawPlayer(svg, ctx, p, x, y) {
  const { view, w, table } = ctx;
  const g = group(svg, x, y, { "data-player": p.seat });
  const lines = 7 + p.equipment.length + p.contracts.length * 2;
  const height = 24 + lines * 16;
  const acting = view.to_act.includes(p.seat);
  box(g, 0, 0, PLAYER_WIDTH, height, { fill: "#fff", stroke: seatColour(p.seat), "stroke-width": acting ? 4 : 2 });
  const you = table.seat === p.seat ? ` (${w.you})` : "";
  text(g, 8, 18, `${seatName(table, p.seat, w)}${you}${acting ? ` · ${w.toAct}` : ""}`, { "font-weight": 600, fill: seatColour(p.seat) });
  const rows = [
    `${w.workers}: ${p.workers} · ${w.tempWorker}: ${p.temp_worker === "TEA_HOUSE" ? w.teaHouse : w.inPlay}`,
    `${w.markers}: ${p.markers} · ${w.chai}: ${p.chai} (${p.chai_points}${w.vp})`,
    `${p.iron_ore} ${w.res.iron_ore} · ${p.stone} ${w.res.stone} · ${p.rubble} ${w.res.rubble}`,
    `${p.steel} ${w.res.steel} · ${p.tea_leaves} ${w.res.tea_leaves}${p.sits_out ? ` · ${w.sitsOut}` : ""}`,
    `${w.equipment}:`,
    ...p.equipment.map((eq) => `  ${eq.name}`),
    `${w.contracts}:`,
  ];
  rows.forEach((row, k) => text(g, 8, 36 + k * 16, row, { "font-size": 11 }));
  drawHeldContracts(g, ctx, p, 36 + rows.length * 16 - 10);
  return height;
}

function drawHeldContracts(parent, ctx, p, y) {
  const { w, offers, placed, table } = ctx;
  p.contracts.forEach((held, k) => {
    const label = `${contractText(held.contract, w, ctx.table)}${held.used ? ` (${w.used})` : ""}`;
    // The panel is narrow: a long card is cut, and its whole text is the tooltip.
    const short = label.length > 46 ? `${label.slice(0, 45)}…` : label;
    const node = chip(parent, 6, y + k * 32, PLAYER_WIDTH - 12, 28, short, { fill: held.used ? "#eee" : "#fdfefe" });
    node.querySelector("text").setAttribute("font-size", 9);
    if (short !== label) el("title", {}, node).textContent = label;
    if (p.seat === table.seat) {
      offer(node, findOffer(offers, placed, "play_contract", (b) => Number(b.contract_id) === held.contract.id), table, placed);
    }
  });
}

const SHEET_COLUMNS = ["estates", "stations", "track", "contracts", "chai", "tea_leaves", "equipment", "total"];

/** The final score sheets, one row per player (once the game is over). */
export function drawScoreSheet(svg, ctx, y) {
  const { view, w, table } = ctx;
  if (!view.final_scores.length) return y;
  const g = group(svg, 12, y, { "data-panel": "final-scores" });
  const height = 30 + view.final_scores.length * 20;
  box(g, 0, 0, 1176, height, { fill: "#fef9e7", stroke: "#b7950b", "stroke-width": 2 });
  text(g, 8, 18, w.final, { "font-weight": 600 });
  SHEET_COLUMNS.forEach((column, c) => text(g, 220 + c * 110, 18, w.sheet[column], { "font-size": 11, "font-weight": 600 }));
  view.final_scores.forEach((row, r) => {
    text(g, 8, 38 + r * 20, seatName(table, row.seat, w), { fill: seatColour(row.seat), "font-weight": 600 });
    SHEET_COLUMNS.forEach((column, c) => text(g, 220 + c * 110, 38 + r * 20, row[column], { "font-size": 11 }));
  });
  return y + height + 6;
}
