// The Tea & Rum displays: contracts (fulfil one in blue or red), allegiances, captains for hire,
// and the building stock by colour.

import { el, term } from "../svg.js";
import { seatName } from "../drawing.js";
import { capital, choice, panel } from "./kit.js";
import { costText, gainsText } from "./words.js";

/** Contract spaces, newest first: cost, VP in either colour, and the space's bonus. */
export function drawContracts(ctx) {
  const { view, w } = ctx;
  const spaces = view.contracts.map((space) => {
    const parts = [el("h4", { text: space.contract ? `${w.contract} ${space.contract}` : capital(w.empty) })];
    if (space.contract) {
      parts.push(el("p", { text: `${capital(w.cost)}: ${costText(space.cost, w) || "—"}` }));
      const colours = ["blue", "red"].map((colour) =>
        choice(ctx, "fulfill_contract", (b) => Number(b.space ?? 0) === space.space && b.colour === colour,
          { class: `tr-option tr-${colour}` }, `${colour === "blue" ? space.blue : space.red} ${w.colours[colour]}`));
      parts.push(el("div", { class: "tr-pair" }, ...colours));
    }
    parts.push(el("p", { text: `${capital(w.bonus)}: ${gainsText(space.bonus, w) || "—"}` }));
    return el("div", { class: space.contract ? "tr-card" : "tr-card tr-taken", "data-contract-space": space.space }, ...parts);
  });
  const heading = `${w.contracts} · ${w.deck}: ${view.contract_deck_count}`;
  return panel({ "data-panel": "contracts" }, heading, el("div", { class: "tr-cards" }, ...spaces));
}

/** Allegiance cards: requirements, payment, red VP, and who took each. */
export function drawAllegiances(ctx) {
  const { view, w, table } = ctx;
  const cards = view.allegiances.map((card) => {
    const taken = card.taken_by >= 0;
    const needs = Object.entries(card.requirements).map(([k, v]) => `${term(table, "condition", k)} ${v}`).join(", ");
    const parts = [el("strong", { text: `${capital(w.allegiance)} ${card.allegiance} · ${card.red} ${w.redVp}` })];
    if (needs) parts.push(el("span", { class: "tr-line", text: `${capital(w.requirements)}: ${needs}` }));
    const pays = costText(card.payment, w);
    if (pays) parts.push(el("span", { class: "tr-line", text: `${capital(w.payment)}: ${pays}` }));
    if (taken) parts.push(el("span", { class: "tr-line tr-owner", text: `${capital(w.takenBy)}: ${seatName(table, card.taken_by, w)}` }));
    return choice(ctx, "take_allegiance", (b) => Number(b.allegiance) === card.allegiance,
      { class: taken ? "tr-card tr-taken" : "tr-card", "data-allegiance": card.allegiance }, ...parts);
  });
  return panel({ "data-panel": "allegiances" }, w.allegiances, el("div", { class: "tr-cards" }, ...cards));
}

/** The captains on display: cost, instant effect, cannons wanted and reward, one card each. */
export function drawCaptains(ctx) {
  const { view, w } = ctx;
  const cards = view.captains.map((card) => choice(ctx, "hire_captain", (b) => Number(b.captain) === card.captain,
    { class: "tr-card", "data-captain": card.captain },
    el("strong", { text: `${w.captain} ${card.captain}` }),
    el("span", { class: "tr-line", text: `${capital(w.cost)}: ${costText(card.cost, w) || "—"}` }),
    el("span", { class: "tr-line", text: `${capital(w.instant)}: ${gainsText(card.instant, w) || "—"}` }),
    el("span", { class: "tr-line", text: `${capital(w.cannons)}: ${card.cannons} → ${gainsText(card.reward, w) || "—"}` })));
  const heading = `${w.captains} · ${w.deck}: ${view.captain_deck_count}`;
  return panel({ "data-panel": "captains" }, heading, el("div", { class: "tr-cards" }, ...cards));
}

/** A building's name in the reader's language (the API's names), else the name the view holds. */
export function buildingName(table, code, fallback) {
  return term(table, "building", code, fallback ?? code);
}

/** The building stock in one column per colour: name, cost, VP and copies left. */
export function drawBuildings(ctx) {
  const { view, w, table } = ctx;
  const colours = [...new Set(view.buildings.map((b) => b.colour))];
  const columns = colours.map((colour) => {
    const cards = view.buildings.filter((b) => b.colour === colour).map((b) =>
      choice(ctx, "build", (m) => m.building === b.building,
        { class: `tr-card tr-building tr-${colour}${b.copies ? "" : " tr-taken"}`, "data-building": b.building },
        el("strong", { text: buildingName(table, b.building, b.name) }),
        el("span", { class: "tr-line", text: `${costText(b.cost, w) || "—"} → ${gainsText(b.vp, w)}` }),
        el("span", { class: "tr-line", text: `${b.copies} ${w.copies}` })));
    return el("div", { class: "tr-column", "data-colour": colour },
      el("h4", { text: capital(w.colours[colour] ?? colour) }), ...cards);
  });
  const parts = [el("div", { class: "tr-columns" }, ...columns)];
  if (view.removed_buildings.length) {
    const removed = view.removed_buildings.map((b) => buildingName(table, b)).join(", ");
    parts.push(el("p", { class: "tr-note", text: `${capital(w.removed)}: ${removed}` }));
  }
  return panel({ "data-panel": "buildings" }, w.buildings, ...parts);
}
