// The fallback table: any game without its own table file is shown as its view's public
// fields, and every legal move becomes a button of the shell (nothing is placed on a board).
//
// Words, not code names: a field is labelled with the game's word for it when the API has one
// (GET /v1/game-types `terms`, group "fields"), else with its name made readable
// ("current_player" -> "Current player"); a code value (an enum such as "PLACE") is the game's
// word for it (the terms group named like its field, else any group that knows the code), else
// made readable too; a seat number in a field about seats or players is that player's name.
import { html, render } from "../vendor/htm-preact-standalone.js";
import { readable } from "../js/i18n.js";

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$|^[a-z0-9]+(_[a-z0-9]+)+$/;

function termsOf(table) {
  return (table && table.terms) || {};
}

/** A field's label: the game's word for it, else its name made readable. */
export function fieldLabel(table, key) {
  const fields = termsOf(table).fields || {};
  return Object.hasOwn(fields, key) ? fields[key] : readable(key);
}

function codeWord(table, key, value) {
  const terms = termsOf(table);
  if (terms[key] && Object.hasOwn(terms[key], value)) return terms[key][value];
  for (const group of Object.values(terms)) if (Object.hasOwn(group, value)) return group[value];
  return CODE.test(value) ? readable(value).toLowerCase() : value;
}

function scalar(table, key, value) {
  const players = (table && table.players) || [];
  if (typeof value === "number" && /seat|player/i.test(key) && Number.isInteger(value) && players[value]) return players[value];
  if (typeof value === "string") return codeWord(table, key, value);
  return String(value);
}

function summary(table, key, value, depth = 0) {
  if (value === null || typeof value !== "object") return scalar(table, key, value);
  if (depth > 2) return Array.isArray(value) ? `(${value.length})` : "…";
  if (Array.isArray(value)) return `[${value.map((v) => summary(table, key, v, depth + 1)).join(", ")}]`;
  return `{${Object.entries(value)
    .filter(([k]) => k !== "@type")
    .map(([k, v]) => `${fieldLabel(table, k)}: ${summary(table, k, v, depth + 1)}`)
    .join("; ")}}`;
}

/** Draw the view as a list of its fields, in words; places no move on the board. */
export function drawTable(host, table) {
  const fields = Object.entries(table.view || {}).filter(([key]) => key !== "@type");
  render(
    html`<dl class="generic-view">
      ${fields.map(([key, value]) => html`<dt data-field=${key}>${fieldLabel(table, key)}</dt><dd>${summary(table, key, value)}</dd>`)}
    </dl>`,
    host,
  );
  return { placed: new Set() };
}
