// The Tea & Rum displays: contracts (fulfil one in blue or red), allegiances, captains for hire,
// and the building stock by colour.

import { box, chip, findOffer, group, offer, seatColour, seatName, text } from "../drawing.js";
import { costText, gainsText } from "./words.js";
import { term } from "../svg.js";

/** The band of contracts and allegiances. */
export function drawMarket(svg, ctx, y) {
  drawContracts(svg, ctx, y);
  drawAllegiances(svg, ctx, y);
  return y + 124;
}

/** Contract spaces, newest first: cost, VP in either colour, and the space's bonus. */
function drawContracts(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y, { "data-panel": "contracts" });
  box(g, 0, 0, 580, 118, { fill: "#fef9e7" });
  text(g, 8, 18, `${w.contracts} · ${w.deck}: ${view.contract_deck_count}`, { "font-weight": 600 });
  const width = 570 / Math.max(view.contracts.length, 1);
  view.contracts.forEach((space, i) => {
    const c = group(g, 6 + i * width, 26, { "data-contract-space": space.space });
    box(c, 0, 0, width - 6, 86, { fill: space.contract ? "#fff" : "#f2f3f4" });
    if (space.contract) {
      text(c, 6, 14, `#${space.contract}: ${costText(space.cost, w)}`, { "font-size": 10, "font-weight": 600 });
      ["blue", "red"].forEach((colour, k) => {
        const amount = colour === "blue" ? space.blue : space.red;
        const node = chip(c, 4 + k * ((width - 10) / 2), 22, (width - 14) / 2, 24, `${amount} ${w.colours[colour]}`, {
          fill: colour === "blue" ? "#d6eaf8" : "#fadbd8",
        });
        const found = findOffer(ctx.offers, ctx.placed, "fulfill_contract", (b) => Number(b.space ?? 0) === space.space && b.colour === colour);
        offer(node, found, ctx.table, ctx.placed);
      });
    }
    text(c, 6, 66, `+ ${gainsText(space.bonus, w) || "—"}`, { "font-size": 10 });
  });
  return g;
}

/** Allegiance cards: requirements, payment, red VP, and who took each. */
function drawAllegiances(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 598, y, { "data-panel": "allegiances" });
  box(g, 0, 0, 590, 118, { fill: "#fdedec" });
  text(g, 8, 18, w.allegiances, { "font-weight": 600 });
  const width = 580 / Math.max(view.allegiances.length, 1);
  view.allegiances.forEach((card, i) => {
    const taken = card.taken_by >= 0;
    const needs = Object.entries(card.requirements).map(([k, v]) => `${term(ctx.table, "condition", k)} ${v}`).join(", ");
    const node = chip(g, 6 + i * width, 26, width - 6, 86, `#${card.allegiance} · ${card.red} ${w.colours.red}`, {
      fill: taken ? seatColour(card.taken_by) : "#fff",
    });
    node.setAttribute("data-allegiance", String(card.allegiance));
    node.querySelector("text").setAttribute("y", 16);
    text(node, 6, 40, `${w.requirements}: ${needs}`, { "font-size": 9, class: "pin" });
    const pays = costText(card.payment, w);
    if (pays) text(node, 6, 56, `${w.payment}: ${pays}`, { "font-size": 9, class: "pin" });
    if (taken) text(node, 6, 76, seatName(ctx.table, card.taken_by, w), { "font-size": 10, class: "pin", fill: "#fff" });
    offer(node, findOffer(ctx.offers, ctx.placed, "take_allegiance", (b) => Number(b.allegiance) === card.allegiance), ctx.table, ctx.placed);
  });
  return g;
}

/** The captains on display: round, cost, instant effect, cannons wanted and reward. */
export function drawCaptains(svg, ctx, y) {
  const { view, w } = ctx;
  const g = group(svg, 12, y, { "data-panel": "captains" });
  box(g, 0, 0, 1176, 72, { fill: "#f2f4f4" });
  text(g, 8, 18, `${w.captains} · ${w.deck}: ${view.captain_deck_count}`, { "font-weight": 600 });
  view.captains.forEach((card, i) => {
    const line = `#${card.captain} ${costText(card.cost, w)} · ${w.instant}: ${gainsText(card.instant, w) || "—"} · ${card.cannons} ${w.cannons} → ${gainsText(card.reward, w)}`;
    const node = chip(g, 8 + i * 292, 28, 286, 36, line, { fill: "#fff" });
    node.querySelector("text").setAttribute("font-size", 9);
    offer(node, findOffer(ctx.offers, ctx.placed, "hire_captain", (b) => Number(b.captain) === card.captain), ctx.table, ctx.placed);
  });
  return y + 78;
}

const COLOUR_FILLS = { purple: "#ebdef0", green: "#d5f5e3", yellow: "#fcf3cf", brown: "#edbb99" };

/** The building stock in one column per colour: name, cost, VP and copies left. */
export function drawBuildings(svg, ctx, y) {
  const { view, w } = ctx;
  const colours = [...new Set(view.buildings.map((b) => b.colour))];
  const g = group(svg, 12, y, { "data-panel": "buildings" });
  const tallest = Math.max(1, ...colours.map((c) => view.buildings.filter((b) => b.colour === c).length));
  const height = 48 + tallest * 34;
  box(g, 0, 0, 1176, height, { fill: "#fbfcfc" });
  const removed = view.removed_buildings.length ? ` · ${w.removed}: ${view.removed_buildings.join(", ")}` : "";
  text(g, 8, 18, `${w.buildings}${removed}`, { "font-weight": 600 });
  const width = 1164 / Math.max(colours.length, 1);
  colours.forEach((colour, i) => {
    text(g, 8 + i * width, 38, w.colours[colour] ?? colour, { "font-size": 11, "font-weight": 600 });
    view.buildings.filter((b) => b.colour === colour).forEach((b, k) => {
      const node = chip(g, 6 + i * width, 44 + k * 34, width - 8, 30, "", { fill: b.copies ? COLOUR_FILLS[colour] ?? "#fff" : "#eee" });
      node.setAttribute("data-building", b.building);
      const label = node.querySelector("text");
      label.setAttribute("y", 12);
      label.setAttribute("font-size", 10);
      label.setAttribute("font-weight", 600);
      label.textContent = `${b.name} (${b.copies} ${w.copies})`;
      text(node, (width - 8) / 2, 25, `${costText(b.cost, w)} → ${gainsText(b.vp, w)}`, { "text-anchor": "middle", "font-size": 9, class: "pin" });
      offer(node, findOffer(ctx.offers, ctx.placed, "build", (m) => m.building === b.building), ctx.table, ctx.placed);
    });
  });
  return y + height + 6;
}
