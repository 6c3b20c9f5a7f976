// A small SVG kit shared by the Alubari and Tea & Rum tables: elements, layout in sections, and
// the link between a legal move and the board element that offers it.  Seat colours and move
// kinds come from `svg.js` (shared by every table), so a seat has one colour in the whole client.
//
// A table draws everything from the view it is given; this kit holds no state of its own.

import { kindOf, SEAT_COLOURS } from "./svg.js";

const NS = "http://www.w3.org/2000/svg";

export const NOBODY = "#f4f1ea";

/** The fill of a seat's pieces; negative seats (the game, an automa) are grey. */
export function seatColour(seat) {
  if (seat === null || seat === undefined || seat < 0) return "#7f8c8d";
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/** A new SVG element with attributes, appended to `parent` when given. */
export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** A text element; `size` in viewBox units. */
export function text(parent, x, y, content, attrs = {}) {
  const node = el("text", { x, y, "font-size": 12, fill: "#222", ...attrs }, parent);
  node.textContent = String(content);
  return node;
}

/** A rectangle with rounded corners by default. */
export function box(parent, x, y, width, height, attrs = {}) {
  return el("rect", { x, y, width, height, rx: 4, fill: "#fff", stroke: "#8a7f6a", ...attrs }, parent);
}

/** A group translated to (x, y). */
export function group(parent, x = 0, y = 0, attrs = {}) {
  return el("g", { transform: `translate(${x},${y})`, ...attrs }, parent);
}

/** The root SVG filling `host` at its width (the board scales with the page). */
export function svgRoot(host, width, height, label) {
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width: "100%",
    role: "img",
    "aria-label": label,
    "font-family": "system-ui, sans-serif",
    class: "table-board",
  });
  svg.style.maxWidth = `${width}px`;
  svg.style.display = "block";
  const style = el("style", {}, svg);
  style.textContent =
    ".legal{cursor:pointer}.legal>.hit{stroke:#16a085;stroke-width:3;stroke-dasharray:5 3}" +
    ".legal:hover>.hit{fill:#d1f2eb}.pin{pointer-events:none}";
  host.appendChild(svg);
  return svg;
}

/**
 * The legal moves as `{index, kind, body}`, so a table can find the ones it offers on its board.
 * `legal` may be null (not this viewer's turn, a spectator).
 */
export function offers(legal) {
  if (!legal || !Array.isArray(legal.moves)) return [];
  return legal.moves.map((move, index) => {
    const kind = kindOf(move) ?? "";
    return { index, kind, body: move[kind] ?? {} };
  });
}

/** The first offered move of `kind` whose body passes `match` and is not placed yet, or null. */
export function findOffer(list, placed, kind, match = () => true) {
  for (const offer of list) {
    if (offer.kind === kind && !placed.has(offer.index) && match(offer.body)) return offer;
  }
  return null;
}

/**
 * Make `node` (a group whose first shape has class `hit`) the board element of a legal move:
 * class `legal`, `data-move-index` (the shell posts the move on a click), a tooltip with the
 * move's sentence, and a place in the keyboard's order (the shell plays it on Enter or Space).
 */
export function offer(node, found, table, placed) {
  if (!found) return false;
  node.classList.add("legal");
  node.setAttribute("data-move-index", String(found.index));
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  const sentence = table.legal?.texts?.[found.index];
  if (sentence) el("title", {}, node).textContent = sentence;
  placed.add(found.index);
  return true;
}

/** A clickable-looking piece: a group with a `hit` rectangle and a centred label. */
export function chip(parent, x, y, width, height, label, attrs = {}) {
  const node = group(parent, x, y);
  box(node, 0, 0, width, height, { class: "hit", ...attrs });
  text(node, width / 2, height / 2 + 4, label, { "text-anchor": "middle", class: "pin", "font-size": 11 });
  return node;
}

/** The display name of a seat: the player's name (`table.players` is the names by seat), else "Seat n". */
export function seatName(table, seat, words) {
  const player = table.players?.[seat];
  const name = typeof player === "string" ? player : player?.name;
  return name || `${words.seat} ${seat + 1}`;
}

/** Draw one panel per item side by side from (12, y); returns the y below the tallest. */
export function panelsInRow(svg, items, y, width, gap, drawOne) {
  let height = 0;
  items.forEach((item, i) => {
    height = Math.max(height, drawOne(item, 12 + i * (width + gap), y));
  });
  return y + height + 6;
}

/**
 * Draw a whole table: `spec.sections` are drawn top to bottom, each `(svg, ctx, y) => next y`,
 * with `ctx = {view, w, table, placed, offers}`; the board's height follows its content.
 */
export function drawSections(host, table, spec) {
  const w = spec.wordsFor(table.words);
  const placed = new Set();
  const ctx = { view: table.view, w, table, placed, offers: offers(table.legal) };
  const svg = svgRoot(host, spec.width, spec.width, w.title);
  svg.setAttribute("data-game", spec.game);
  let y = 8;
  for (const section of spec.sections) y = section(svg, ctx, y);
  svg.setAttribute("viewBox", `0 0 ${spec.width} ${y}`);
  return { placed };
}
