// Small helpers for tables that draw SVG by hand (no library needed for a few hundred shapes).
const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (`text` sets its text) and children. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child) el.append(child);
  return el;
}

/** An HTML element the same way. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** Mark `node` as the clickable place of legal move `index` (the shell handles the click). */
export function legal(node, index, placed, title) {
  node.classList.add("legal");
  node.setAttribute("data-move-index", String(index));
  // Reachable by keyboard: the shell plays a focused move on Enter or Space (web/js/table.js).
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  if (title) {
    node.setAttribute("aria-label", title);
    node.append(svg("title", { text: title }));
  }
  placed.add(index);
  return node;
}

/** Colours of seats 0..5, used by every table for collectors, crates, track. */
export const SEAT_COLOURS = ["#1f6fb4", "#c9302c", "#2e9a4a", "#8a4fb5", "#e07b12", "#3b3b3b"];

/** The move kind of a legal move (its one field besides `@type`, `text` and `costs`). */
export function kindOf(move) {
  return Object.keys(move).find((key) => key !== "@type" && key !== "text" && key !== "costs");
}

/** The game's word for a code (`table.terms`, from GET /v1/game-types), else `fallback` or the code. */
export function term(table, group, key, fallback) {
  const words = (table && table.terms && table.terms[group]) || {};
  return words[key] ?? fallback ?? key;
}
