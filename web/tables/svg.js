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

/**
 * Colours of seats 0..5, used by every table for collectors, crates, track. Nothing by colour
 * alone (issue #42, item 3): none is near a resource's colour (Darjeeling's teas, Tea & Rum's
 * goods, India Rails' terrain; tests/web/test_web_colours.py measures the distance), and a
 * seat's pieces carry its pattern (`seatFill`) or its number besides.
 */
export const SEAT_COLOURS = ["#1565c0", "#d81b8a", "#00a3a3", "#6a3fc0", "#64b5f6", "#a4c400"];
/** Ink that reads on each seat colour (a number on a collector, a pattern's marks). */
export const SEAT_INK = ["#fff", "#fff", "#111", "#fff", "#111", "#111"];

// Each seat's marks over its colour, in a 6-unit tile: a dot, stripes one way or the other, a cross.
const MARKS = [
  '<circle cx="3" cy="3" r="1.3"/>',
  '<path d="M-1 1l2-2M0 6l6-6M5 7l2-2" stroke-width="1.2"/>',
  '<path d="M0 3h6" stroke-width="1.4"/>',
  '<path d="M-1 5l2 2M0 0l6 6M5 -1l2 2" stroke-width="1.2"/>',
  '<path d="M3 0v6" stroke-width="1.4"/>',
  '<path d="M0 3h6M3 0v6" stroke-width="1"/>',
];

/** The `<defs>` of every seat's pattern, for an SVG that fills with `seatFill` (ids are the same in each). */
export function seatPatterns() {
  const defs = svg("defs");
  defs.innerHTML = SEAT_COLOURS.map(
    (colour, seat) => `<pattern id="seat-mark-${seat}" width="6" height="6" patternUnits="userSpaceOnUse">
      <rect width="6" height="6" fill="${colour}"/><g fill="${SEAT_INK[seat]}" stroke="${SEAT_INK[seat]}">${MARKS[seat]}</g></pattern>`,
  ).join("");
  return defs;
}

/** A seat's fill: its colour with its marks (needs `seatPatterns()` in the same SVG). */
export function seatFill(seat) {
  return `url(#seat-mark-${seat % SEAT_COLOURS.length})`;
}

/** The move kind of a legal move (its one field besides `@type`, `text` and `costs`). */
export function kindOf(move) {
  return Object.keys(move).find((key) => key !== "@type" && key !== "text" && key !== "costs");
}

/** The game's word for a code (`table.terms`, from GET /v1/game-types), else `fallback` or the code. */
export function term(table, group, key, fallback) {
  const words = (table && table.terms && table.terms[group]) || {};
  return words[key] ?? fallback ?? key;
}
