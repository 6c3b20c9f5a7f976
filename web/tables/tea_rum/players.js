// Tea & Rum player boards (money, population, VP or a closed chest, warehouse and expansions,
// buildings, captains, contracts, allegiance, wishes), the reputation track and the automa.

import { el } from "../svg.js";
import { seatColour, seatName } from "../drawing.js";
import { choice, fact, panel, resourceLabel, seatDot } from "./kit.js";
import { buildingName } from "./market.js";
import { RESOURCES } from "./words.js";

const REPUTATION_STEPS = 25;

/** The reputation track 0–25: each step a cell, the players standing on it named in it. */
export function drawReputation(ctx) {
  const { view, w, table } = ctx;
  const cells = [];
  for (let step = 0; step <= REPUTATION_STEPS; step += 1) {
    const here = view.players.filter((p) => p.reputation === step);
    cells.push(el("li", { class: here.length ? "tr-step tr-occupied" : "tr-step", "data-step": step },
      el("span", { text: step }),
      ...here.map((p) => el("span", { class: "tr-marker", "data-reputation-seat": p.seat }, seatDot(table, p.seat, w)))));
  }
  const standings = view.players.map((p) => `${seatName(table, p.seat, w)} ${p.reputation}`).join(" · ");
  return panel({ "data-panel": "reputation" }, w.reputation,
    el("p", { class: "tr-note", text: standings }),
    el("ol", { class: "tr-track", start: 0 }, ...cells));
}

/** The general supply and, with 2 players, the automa's tokens and face-down victory cards. */
export function drawAutomaAndSupply(ctx) {
  const { view, w } = ctx;
  const parts = [el("p", { class: "tr-stock" }, ...RESOURCES.map((r) => resourceLabel(r, view.supply[r] ?? 0, w)))];
  if (view.automa) {
    const a = view.automa;
    const drawn = a.drawn.map((b) => w.boards[b] ?? b).join(", ") || "—";
    parts.push(fact(w.automa, `${a.tokens_left} ${w.automaTokens} · ${w.drawn}: ${drawn} · ${a.victory_cards_face_down} ${w.faceDown}`));
  }
  return panel({ "data-panel": "supply", class: "tr-wide" }, w.supply, ...parts);
}

/** The end of the game: Governor(s), Pirate King(s), the winners (two in 3–4 players), final VP. */
export function drawFinal(ctx) {
  const { view, w, table } = ctx;
  const final = view.final;
  if (!final) return null;
  const names = (seats) => seats.map((s) => seatName(table, s, w)).join(", ") || "—";
  const heading = final.winners.length > 1 ? w.twoWinners : w.winners;
  const parts = [
    el("p", { class: "tr-winners", "data-final-winners": "", text: `${heading}: ${names(final.winners)}` }),
    fact(w.governor, names(final.governors)),
    fact(w.pirateKing, names(final.pirate_kings)),
  ];
  if (final.victory_colour) parts.push(fact(w.victoryType, w.colours[final.victory_colour] ?? final.victory_colour));
  parts.push(el("ul", { class: "tr-scores" }, ...final.blue.map((b, s) =>
    el("li", { text: `${seatName(table, s, w)}: ${b} ${w.blueVp} · ${final.red[s]} ${w.redVp}` }))));
  return panel({ "data-panel": "final", "data-winners": final.winners.join(","), class: "tr-final tr-wide" }, w.final, ...parts);
}

/** One board per player; the viewer's own board offers its expansions and captain activations. */
export function drawPlayers(ctx) {
  return el("div", { class: "tr-players" }, ...ctx.view.players.map((p) => drawPlayer(ctx, p)));
}

/** The VP line: both colours, or a closed chest whose contents this viewer may not see. */
function vpLine(p, w) {
  if (p.vp_hidden) return `${w.chest}: ${w.chestClosed}`;
  const chest = p.chest ? ` (${w.chest})` : "";
  return `${p.blue_vp} ${w.blueVp} · ${p.red_vp} ${w.redVp}${chest}`;
}

function drawPlayer(ctx, p) {
  const { view, w, table } = ctx;
  const acting = (view.to_act || []).includes(p.seat);
  const label = p.label ? ` · ${w.player} ${p.label}` : "";
  const you = table.seat === p.seat ? ` (${w.you})` : "";
  const heading = `${seatName(table, p.seat, w)}${label}${you}${acting ? ` · ${w.toAct}` : ""}`;
  const vp = el("p", { class: p.vp_hidden ? "tr-vp tr-hidden" : "tr-vp", "data-vp-seat": p.seat,
    "data-hidden": p.vp_hidden ? "true" : "false", text: vpLine(p, w) });
  const node = panel({ class: acting ? "tr-player tr-acting" : "tr-player", "data-player": p.seat }, heading,
    el("p", { text: `$${p.money} ${w.money} · ${w.population} ${p.population} · ${w.reputation} ${p.reputation}` }),
    vp,
    drawWarehouse(ctx, p),
    ...playerFacts(p, w, table),
    drawHeldCaptains(ctx, p));
  node.style.setProperty("--seat", seatColour(p.seat));
  node.querySelector("h3").prepend(seatDot(table, p.seat, w));
  return node;
}

function playerFacts(p, w, table) {
  const wishes = Object.entries(p.wishes).map(([k, v]) => `${w.symbols[k] ?? k} ${v}`).join(", ");
  const allegiance = p.allegiance ? `${p.allegiance}${p.allegiance_fulfilled ? ` (${w.fulfilled})` : ""}` : w.none;
  const buildings = p.buildings.map((b) => buildingName(table, b)).join(", ") || "—";
  const facts = [
    fact(`${w.buildings} (${p.buildings.length})`, buildings),
    fact(w.contracts, `${p.contracts.length}`),
    fact(w.allegiance, allegiance),
    fact(w.workers, `${p.workers_on_boards}${p.ships_passed ? ` · ${w.passed}` : ""}`),
    fact(w.wishes, wishes),
  ];
  if (table.seat === p.seat && (p.exchanged_blue || p.exchanged_red || p.exchange_done)) {
    facts.push(fact(w.exchanged, `${p.exchanged_blue} ${w.blueVp}, ${p.exchanged_red} ${w.redVp}`));
  }
  return facts;
}

function drawWarehouse(ctx, p) {
  const { w } = ctx;
  const used = RESOURCES.reduce((sum, r) => sum + (p.warehouse[r] ?? 0), 0);
  const own = p.seat === ctx.table.seat;
  const tokens = p.expansion_tokens.map((token) => {
    const label = token.bought ? `✓ ${w.bought}` : `$${token.cost}`;
    const match = (b) => Number(b.token ?? 0) === token.token;
    return choice(ctx, own ? "expand_warehouse" : null, match, { class: "tr-token", "data-token": token.token }, label);
  });
  return el("div", { class: "tr-warehouse" },
    fact(`${w.warehouse} ${used}/${p.warehouse_capacity}`),
    el("div", { class: "tr-stock" }, ...RESOURCES.map((r) =>
      el("span", { class: "tr-stock-item", "data-warehouse": r }, resourceLabel(r, p.warehouse[r] ?? 0, w)))),
    fact(w.expansions),
    el("div", { class: "tr-tokens" }, ...tokens));
}

function drawHeldCaptains(ctx, p) {
  const { w } = ctx;
  const own = p.seat === ctx.table.seat;
  const held = p.captains.map((c) =>
    choice(ctx, own ? "activate_captain" : null, (b) => Number(b.captain) === c.captain,
      { class: "tr-token tr-captain", "data-captain": c.captain },
      `${w.captain} ${c.captain}${c.face_up ? "" : ` · ${w.faceDownOne}`}`));
  return held.length ? el("div", { class: "tr-tokens" }, ...held) : el("div", { class: "tr-tokens" });
}
