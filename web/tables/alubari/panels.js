// The Alubari desk and players as HTML: the stockyard with the bag, the general supply and the
// event rondel; the Post Office; the engine shed; one card per player (supply, Equipment, held
// contracts); and the final score sheet.

import { html } from "../../vendor/htm-preact-standalone.js";
import { findOffer, seatColour, seatName } from "../drawing.js";
import { term } from "../svg.js";
import { cls, costTag, pawn, piece, pointsTag, seatTag } from "./kit.js";
import { pointsText } from "./words.js";

const CUBE_ENUMS = { iron_ore: "IRON_ORE", stone: "STONE", chai: "CHAI" };

/** Stockyard, Post Office and engine shed side by side (stacked on a phone). */
export function drawDesk(ctx) {
  return html`<div class="alu-desk">${drawYard(ctx)}${drawPostOffice(ctx)}${drawShed(ctx)}</div>`;
}

/** Stockyard cubes (take one there), the bag, the general supply and the event rondel. */
function drawYard(ctx) {
  const { view, w, table } = ctx;
  const s = view.supply;
  return html`<section class="alu-section alu-yard" data-panel="stockyard" aria-labelledby="alu-yard-h">
    <h2 id="alu-yard-h">${w.stockyard}</h2>
    <div class="alu-cubes">${Object.entries(CUBE_ENUMS).map(([cube, name]) => {
      const found = findOffer(ctx.offers, ctx.placed, "take_cube", (b) => b.cube === name);
      const content = html`<span class=${`alu-res alu-res-${cube}`}>${view.stockyard[cube]} ${w.res[cube]}</span>`;
      return piece(ctx, found, "alu-cube", content, { "data-cube": cube });
    })}</div>
    <p><strong>${w.bag}:</strong> ${view.bag_count} ${w.cubes}</p>
    <p><strong>${w.supply}:</strong> ${[...["rubble", "steel", "tea_leaves"].map((k) => `${s[k]} ${w.res[k]}`),
      `${s.game_markers} ${w.gameMarkers}`].join(" · ")}</p>
    <h3>${w.rondel}</h3>
    <ol class="alu-rondel">${view.rondel.map((space) => {
      const name = term(table, "event", space.kind);
      return html`<li class=${cls("alu-event", { "has-cube": space.has_cube })}
        title=${`${w.space} ${space.space}: ${name}${space.has_cube ? ` (${w.eventCube})` : ""}`}>
        <span class="alu-event-no">${space.space}</span> <span>${name}</span>
        ${space.has_cube ? html`<span class="alu-event-cube">■ ${w.eventCube}</span>` : null}</li>`;
    })}</ol>
  </section>`;
}

/** A contract card: its weather and areas, effect, needs and points. */
export function contractCard(contract, w, table) {
  const effect = contract.effect;
  const gain = effect.resource
    ? `${term(table, "effect", effect.kind)} ${effect.amount} ${w.res[effect.resource] ?? term(table, "need", effect.resource)}`
    : `${term(table, "effect", effect.kind)}${effect.amount ? ` ${effect.amount}` : ""}`;
  const needs = contract.requirements.map((r) => `${r.count} ${term(table, "need", r.kind)}`).join(", ");
  const weather = term(table, "weather", contract.weather);
  return html`<span class="alu-card">
    <span class="alu-card-head"><strong>${w.contract} ${contract.id}</strong>${` · ${w.weatherOf}: ${weather} · ${w.areasOf} ${contract.areas.join(", ")}`}</span>
    <span>${w.effect}: ${gain}</span>
    <span>${w.needs}: ${needs || w.nothing} → ${pointsTag(contract.points, w)}</span>
  </span>`;
}

/** The Post Office positions A–C with their face-up contracts, and the deck. */
function drawPostOffice(ctx) {
  const { view, w, table } = ctx;
  return html`<section class="alu-section alu-post" data-panel="post-office" aria-labelledby="alu-post-h">
    <h2 id="alu-post-h">${w.postOffice}</h2>
    <p>${w.deck}: ${view.deck_count} (${w.deckTop}: ${term(table, "weather", view.deck_top_weather)}) · ${w.discard}: ${view.discard_count}</p>
    <ol class="alu-slots">${view.post_office.map((slot) => {
      const found = findOffer(ctx.offers, ctx.placed, "take_contract", (b) => Number(b.slot ?? 0) === slot.slot);
      const letter = "ABC"[slot.slot] ?? String(slot.slot);
      const content = html`<span class="alu-letter">${letter}</span>
        ${slot.empty || !slot.contract ? html`<span>${w.empty}</span>` : contractCard(slot.contract, w, table)}`;
      return html`<li>${piece(ctx, found, "alu-slot", content, { "data-slot": slot.slot })}</li>`;
    })}</ol>
  </section>`;
}

/** The engine shed: Equipment for sale with its cost, the chai it comes with and its upkeep. */
function drawShed(ctx) {
  const { view, w } = ctx;
  return html`<section class="alu-section alu-shed" data-panel="engine-shed" aria-labelledby="alu-shed-h">
    <h2 id="alu-shed-h">${w.engineShed}</h2>
    <ul class="alu-items">${view.engine_shed.map((item) => {
      const eq = item.equipment;
      const found = findOffer(ctx.offers, ctx.placed, "buy_equipment", (b) => Number(b.equipment_id) === eq.id);
      const content = html`<strong>${eq.name}</strong>
        <span>${w.costs}: ${costTag(eq.cost, w, w.nothing)}</span>
        ${item.chai ? html`<span>${w.comesWith} ${item.chai} ${w.res.chai}</span>` : null}
        <span>${w.upkeep}: ${costTag(eq.maintenance, w, w.nothing)}</span>`;
      return html`<li>${piece(ctx, found, "alu-item", content, { "data-equipment": eq.id })}</li>`;
    })}</ul>
  </section>`;
}

/** One card per player: workers, markers, chai, resources, Equipment and contracts (play held ones). */
export function drawPlayers(ctx) {
  const { view, w } = ctx;
  return html`<section class="alu-section alu-players" aria-labelledby="alu-players-h">
    <h2 id="alu-players-h">${w.players}</h2>
    <ul class="alu-player-list">${view.player_states.map((p) => drawPlayer(ctx, p))}</ul>
  </section>`;
}

function drawPlayer(ctx, p) {
  const { view, w, table } = ctx;
  const acting = view.to_act.includes(p.seat);
  const mine = table.seat === p.seat;
  const rows = [
    [w.workers, p.workers],
    [w.tempWorker, p.temp_worker === "TEA_HOUSE" ? w.teaHouse : w.inPlay],
    [w.markers, p.markers],
    [w.chai, `${p.chai} (${pointsText(p.chai_points, w)})`],
  ];
  return html`<li class=${cls("alu-player", { "is-acting": acting, "is-mine": mine })} data-player=${p.seat}
    style=${`--seat: ${seatColour(p.seat)}`}>
    <h3>${seatTag(ctx, p.seat)}${acting ? html` <span class="alu-badge alu-to-act">▶ ${w.toAct}</span>` : null}</h3>
    ${p.sits_out ? html`<p class="alu-badge">${w.sitsOut}</p>` : null}
    <dl class="alu-facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}
      <dt>${w.resources}</dt>
      <dd>${costTag({ iron_ore: p.iron_ore, stone: p.stone, rubble: p.rubble, steel: p.steel, tea_leaves: p.tea_leaves }, w, w.none)}</dd>
      <dt>${w.equipment}</dt>
      <dd>${p.equipment.length ? html`<ul class="alu-plain">${p.equipment.map((eq) => html`<li>${eq.name}</li>`)}</ul>` : w.none}</dd>
    </dl>
    <h4>${w.contracts}</h4>
    ${p.contracts.length ? html`<ul class="alu-held">${p.contracts.map((held) => {
      const found = mine ? findOffer(ctx.offers, ctx.placed, "play_contract", (b) => Number(b.contract_id) === held.contract.id) : null;
      const content = html`${contractCard(held.contract, w, table)}${held.used ? html`<span class="alu-badge">${w.used}</span>` : null}`;
      return html`<li>${piece(ctx, found, cls("alu-contract", { "is-used": held.used }), content, { "data-contract": held.contract.id })}</li>`;
    })}</ul>` : html`<p>${w.none}</p>`}
  </li>`;
}

const SHEET_ROWS = ["estates", "stations", "track", "contracts", "chai", "tea_leaves", "equipment", "total"];

/** The final score sheet (once the game is over): a row per scoring category, a column per player,
 * so it fits a phone's width with up to five players. */
export function drawScoreSheet(ctx) {
  const { view, w } = ctx;
  if (!view.final_scores.length) return null;
  const sheets = view.final_scores;
  return html`<section class="alu-section alu-final" data-panel="final-scores" aria-labelledby="alu-final-h">
    <h2 id="alu-final-h">${w.final}</h2>
    <table>
      <thead><tr><td></td>${sheets.map((row) => html`<th scope="col" data-seat=${row.seat}>${pawn(row.seat)} ${seatName(ctx.table, row.seat, w)}</th>`)}</tr></thead>
      <tbody>${SHEET_ROWS.map((key) => html`<tr class=${key === "total" ? "alu-total" : ""}><th scope="row">${w.sheet[key]}</th>
        ${sheets.map((row) => html`<td>${row[key]}</td>`)}</tr>`)}</tbody>
    </table>
  </section>`;
}
