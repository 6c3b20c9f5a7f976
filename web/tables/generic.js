// The fallback table: any game without its own table file is shown as its view's public
// fields, and every legal move becomes a button of the shell (nothing is placed on a board).
import { html, render } from "../vendor/htm-preact-standalone.js";

function summary(value, depth = 0) {
  if (value === null || typeof value !== "object") return String(value);
  if (depth > 2) return Array.isArray(value) ? `[${value.length}]` : "{…}";
  if (Array.isArray(value)) return `[${value.map((v) => summary(v, depth + 1)).join(", ")}]`;
  return `{${Object.entries(value)
    .filter(([key]) => key !== "@type")
    .map(([key, v]) => `${key}: ${summary(v, depth + 1)}`)
    .join(", ")}}`;
}

/** Draw the view as a list of its fields; places no move on the board. */
export function drawTable(host, table) {
  const fields = Object.entries(table.view || {}).filter(([key]) => key !== "@type");
  render(
    html`<dl class="generic-view">
      ${fields.map(([key, value]) => html`<dt>${key}</dt><dd>${summary(value)}</dd>`)}
    </dl>`,
    host,
  );
  return { placed: new Set() };
}
