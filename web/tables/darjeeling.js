// Darjeeling: the region's tile grid (tea tiles, cities, collectors with their facing), the
// wharf (ships by multiplier with each seat's crates, water tiles), the demand chute, the scoring
// track, my screen (my tiles and action tiles) and the others' screens as counts.
//
// Placed on the board: starting positions, collector moves (the destination space), borrowing a
// crate (the ship it comes from).  Everything else (taking an action tile, laying out, playing
// actions, loading, ending the turn) is a button of the shell.
//
// A start is chosen in two taps, so that every target is a whole space (44 px on a phone): one
// start space is selected (the first at first; tapping another selects it) and each facing it
// allows is a square on the neighbouring space it faces.  The grid and the wharf are two SVGs laid
// out by CSS (side by side on a desktop, one above the other on a phone); the grid never shrinks
// below 0.85 px a unit and scrolls sideways instead (issue #34: text, tap targets).
import { el, kindOf, legal, SEAT_COLOURS, SEAT_INK, seatFill, seatPatterns, svg } from "./svg.js";
// What the shell shows of this game beyond the board: the end screen's breakdown and verdict,
// the places a move touched (web/tables/breakdowns.js, verdicts.js, places.js).
export { darjeelingBreakdown as breakdown } from "./breakdowns.js";
export { highestScoreVerdict as verdict } from "./verdicts.js";
export { darjeelingMarks as marks } from "./places.js";

const CELL = 56;
const PAD = 8;
// Room for the row numbers (left) and column numbers (top): they read as the move sentences do,
// "row 6, column 1" counting from 1 at the top left.
const LABEL = 22;
const MIN_SCALE = 0.85; // CSS px per unit at least: spaces of 47 px, labels of 12.75 px
let startSpace = null; // the selected start space, "row,col", kept across redraws
/** The teas' colours; each tea also carries its letter (nothing by colour alone, issue #42 item 3). */
export const TEA = { BLACK: "#3a3a3a", GREEN: "#4f9a4f", WHITE: "#efe9d2", RED: "#b8453b" };
const INK = { BLACK: "#fff", GREEN: "#111", WHITE: "#333", RED: "#fff" }; // 4.5:1 on each tea (axe)
const STEP = { NORTH: [-1, 0], EAST: [0, 1], SOUTH: [1, 0], WEST: [0, -1] };
const DIRECTIONS = ["NORTH", "EAST", "SOUTH", "WEST"];
const TURN_OFFSET = { STRAIGHT: 0, TURN_UNSPECIFIED: 0, RIGHT: 1, BACK: 2, LEFT: 3 };
const WORDS = {
  en: { wharf: "Wharf", water: "water tiles", chute: "Demand", score: "Score", goal: "goal", screen: "Your screen",
    tiles: "tiles", actions: "action tiles", bag: "bag", supply: "crates", shipment: "Laid out", city: "city",
    warehouse: "Warehouse", hidden: "behind the screen", row: "row", column: "column",
    regions: { india: "India", china: "China", sri_lanka: "Sri Lanka" },
    variety: { BLACK: "black", GREEN: "green", WHITE: "white", RED: "red" },
    action: { NO_ROTTING: "no rotting", DOUBLE_DEMAND: "double demand" }, half: "half crate", halves: "half crates" },
  es: { wharf: "Muelle", water: "losetas de agua", chute: "Demanda", score: "Puntos", goal: "meta", screen: "Tu pantalla",
    tiles: "losetas", actions: "losetas de acción", bag: "bolsa", supply: "cajas", shipment: "Expuesto", city: "ciudad",
    warehouse: "Almacén", hidden: "tras la pantalla", row: "fila", column: "columna",
    regions: { india: "India", china: "China", sri_lanka: "Sri Lanka" },
    variety: { BLACK: "negro", GREEN: "verde", WHITE: "blanco", RED: "rojo" },
    action: { NO_ROTTING: "sin podredumbre", DOUBLE_DEMAND: "demanda doble" }, half: "media caja", halves: "medias cajas" },
};

function turned(facing, turn) {
  const i = DIRECTIONS.indexOf(facing);
  return DIRECTIONS[(i + (TURN_OFFSET[turn] ?? 0)) % 4];
}

function centre(row, col) {
  return [PAD + col * CELL + CELL / 2, PAD + row * CELL + CELL / 2];
}

function arrow(row, col, facing, size) {
  const [cx, cy] = centre(row, col);
  const [dr, dc] = STEP[facing] || [0, -1];
  const tip = [cx + dc * size, cy + dr * size];
  const left = [cx - dr * size * 0.55 + dc * size * 0.1, cy + dc * size * 0.55 + dr * size * 0.1];
  const right = [cx + dr * size * 0.55 + dc * size * 0.1, cy - dc * size * 0.55 + dr * size * 0.1];
  return [tip, left, right].map((p) => p.join(",")).join(" ");
}

/** A tea's letter in the reader's language (B, G, W, R; in Spanish N, V, B, R). */
function teaLetter(t, variety) {
  return (t.variety[variety] || "?").charAt(0).toUpperCase();
}

function tileShape(space, t) {
  const [x, y] = [PAD + (space.col ?? 0) * CELL, PAD + (space.row ?? 0) * CELL];
  const group = svg("g", { class: `space ${String(space.kind).toLowerCase()}`, "data-row": space.row ?? 0, "data-col": space.col ?? 0 });
  if (space.kind === "CITY") {
    group.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 6, fill: "#c9b38a", stroke: "#7a6642" }));
    group.append(svg("path", { d: `M${x + 16} ${y + 38} v-14 l12 -10 l12 10 v14 z`, fill: "#7a6642" }));
    return group;
  }
  if (space.kind !== "TILE" || !space.tile) {
    group.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 6, fill: "#e9e4d6", stroke: "#cfc8b6" }));
    return group;
  }
  const variety = space.tile.variety;
  group.dataset.variety = variety;
  group.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 6, fill: TEA[variety] || "#999", stroke: "#555" }),
    svg("text", { x: x + 6, y: y + 19, "font-size": 15, "font-weight": "bold", fill: INK[variety] || "#fff", class: "dj-tea-letter",
      text: teaLetter(t, variety) }),
    svg("title", { text: t.variety[variety] || "" }));
  for (let h = 0; h < (space.tile.halves || 0); h += 1) {
    group.append(svg("circle", { cx: x + 16 + h * 12, cy: y + CELL - 14, r: 4.5, fill: INK[variety] || "#fff" }));
  }
  return group;
}

function collectors(view) {
  return (view.player_states || [])
    .filter((p) => p.collector && p.collector.placed)
    .map((p) => {
      const c = p.collector;
      const [cx, cy] = centre(c.row ?? 0, c.col ?? 0);
      const colour = SEAT_COLOURS[p.seat ?? 0];
      return svg(
        "g",
        { class: "collector", "data-seat": p.seat ?? 0 },
        svg("circle", { cx, cy: cy - 4, r: 13, fill: colour, stroke: "#1a1a1a", "stroke-width": 2 }),
        svg("polygon", { points: arrow(c.row ?? 0, c.col ?? 0, c.facing, 24), fill: colour, stroke: "#1a1a1a", "stroke-width": 1 }),
        // The seat's number on its collector: told apart without its colour.
        svg("text", { x: cx, y: cy + 1, "text-anchor": "middle", "font-size": 15, "font-weight": "bold",
          fill: SEAT_INK[(p.seat ?? 0) % SEAT_INK.length], class: "dj-seat-number", text: (p.seat ?? 0) + 1 }),
      );
    });
}

/** The choose_start moves by space ("row,col" -> [index, ...]), in the order of their first move. */
function startsBySpace(legalList) {
  const spaces = new Map();
  (legalList ? legalList.moves : []).forEach((move, i) => {
    if (kindOf(move) !== "choose_start") return;
    const key = `${move.choose_start.row ?? 0},${move.choose_start.col ?? 0}`;
    spaces.set(key, [...(spaces.get(key) || []), i]);
  });
  return spaces;
}

function spaceRect(row, col, attrs) {
  return svg("rect", { x: PAD + col * CELL + 1, y: PAD + row * CELL + 1, width: CELL - 2, height: CELL - 2, rx: 8, ...attrs });
}

/** Start choices: every start space selectable; the selected one's facings as squares beside it. */
function startMoves(table, placed, redraw, t) {
  const spaces = startsBySpace(table.legal);
  if (!spaces.size) return [];
  if (!spaces.has(startSpace)) startSpace = spaces.keys().next().value;
  const shapes = [];
  for (const [key, indexes] of spaces) {
    const [row, col] = key.split(",").map(Number);
    indexes.forEach((i) => placed.add(i)); // reachable in two taps: select the space, then a facing
    if (key === startSpace) {
      shapes.push(spaceRect(row, col, { fill: "none", stroke: "#1a1a1a", "stroke-width": 4, class: "dj-start-selected" }));
      continue;
    }
    // A yellow ring under a dark dashed one: it reads on light and dark tiles, and leaves the tea's colour.
    const select = svg("g", { class: "dj-start-space", role: "button", tabindex: 0, "aria-label": `${t.row} ${row + 1}, ${t.column} ${col + 1}` },
      spaceRect(row, col, { fill: "transparent", stroke: "#ffd23f", "stroke-width": 6 }),
      spaceRect(row, col, { fill: "transparent", stroke: "#1a1a1a", "stroke-width": 2, "stroke-dasharray": "6 4" }));
    const choose = () => { startSpace = key; redraw(); };
    select.addEventListener("click", choose);
    select.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
    shapes.push(select);
  }
  const [row, col] = startSpace.split(",").map(Number);
  for (const i of spaces.get(startSpace)) {
    const facing = table.legal.moves[i].choose_start.facing;
    const [dr, dc] = STEP[facing] || [0, -1];
    const [r, c] = [row + dr, col + dc];
    const target = svg("g", { class: "dj-facing", "data-facing": facing },
      spaceRect(r, c, { fill: "#ffd23f" }),
      svg("polygon", { points: arrow(r, c, facing, 18).split(" ").map((p) => p.split(",").map(Number))
        .map(([x, y]) => `${x - dc * 6},${y - dr * 6}`).join(" "), fill: "#1a1a1a" }));
    shapes.push(legal(target, i, placed, table.legal.texts[i]));
  }
  return shapes;
}

/** Clickable places for the legal moves that have one; their indexes go into `placed`. */
function placeMoves(view, table, placed, redraw, t) {
  const shapes = startMoves(table, placed, redraw, t);
  if (!table.legal) return shapes;
  const me = (view.player_states || []).find((p) => (p.seat ?? 0) === table.seat);
  table.legal.moves.forEach((move, i) => {
    const kind = kindOf(move);
    const body = move[kind] || {};
    if (kind === "move_collector" && me && me.collector && me.collector.placed) {
      const facing = turned(me.collector.facing, body.turn || "STRAIGHT");
      const [dr, dc] = STEP[facing];
      const row = (me.collector.row ?? 0) + dr * (body.distance ?? 0);
      const col = (me.collector.col ?? 0) + dc * (body.distance ?? 0);
      shapes.push(legal(spaceRect(row, col, { fill: "rgba(255,210,63,.45)" }), i, placed, table.legal.texts[i]));
    }
  });
  return shapes;
}

function wharf(view, table, placed, x0) {
  const t = WORDS[table.words] || WORDS.en;
  const ships = view.ships || [];
  const group = svg("g", { class: "wharf" }, svg("text", { x: x0, y: PAD + 14, text: t.wharf, "font-weight": "bold" }));
  const borrow = new Map();
  (table.legal ? table.legal.moves : []).forEach((move, i) => {
    if (kindOf(move) === "borrow_crate") borrow.set(move.borrow_crate.ship ?? 0, i);
  });
  // The top berth is drawn at the top: ships are listed from the bottom berth.
  ships.forEach((ship, index) => {
    const y = PAD + 24 + (ships.length - 1 - index) * 70;
    const hull = svg("rect", { x: x0, y, width: 150, height: 60, rx: 10, fill: "#8a6a43", stroke: "#4a3620", class: "ship", "data-ship": index });
    group.append(hull, svg("text", { x: x0 + 8, y: y + 18, fill: "#fff", text: `×${ship.multiplier ?? 0}` }));
    let slot = 0;
    (ship.crates || []).forEach((count, seat) => {
      for (let c = 0; c < count; c += 1, slot += 1) {
        // A crate: its seat's colour with its seat's marks, in a dark ring (not by colour alone).
        group.append(svg("rect", { x: x0 + 8 + (slot % 10) * 13, y: y + 26 + Math.floor(slot / 10) * 14, width: 11, height: 11, fill: seatFill(seat), stroke: "#1a1a1a", class: "crate", "data-seat": seat }));
      }
    });
    if (borrow.has(index)) group.append(legal(svg("rect", { x: x0 - 3, y: y - 3, width: 156, height: 66, rx: 12, fill: "rgba(255,200,0,.25)" }), borrow.get(index), placed, table.legal.texts[borrow.get(index)]));
  });
  const below = PAD + 24 + ships.length * 70;
  group.append(svg("text", { x: x0, y: below + 4, text: `${view.water_tiles ?? 0} ${t.water}`, "font-size": 14 }));
  group.append(svg("text", { x: x0, y: below + 30, text: t.chute, "font-weight": "bold" }));
  (view.chute || []).forEach((variety, i) => {
    const [x, y] = [x0 + (i % 8) * 21, below + 38 + Math.floor(i / 8) * 21];
    group.append(svg("g", { class: "demand", "data-variety": variety },
      svg("rect", { x, y, width: 19, height: 19, rx: 3, fill: TEA[variety] || "#999", stroke: "#555" }),
      svg("text", { x: x + 9.5, y: y + 14.5, "text-anchor": "middle", "font-size": 14, "font-weight": "bold", fill: INK[variety] || "#fff",
        text: teaLetter(t, variety) }),
      svg("title", { text: t.variety[variety] || "" })));
  });
  return group;
}

function tileChip(tile, t) {
  const halves = tile.halves || 0;
  const title = `${t.variety[tile.variety] || ""}, ${halves} ${halves === 1 ? t.half : t.halves}`;
  return el("span", { class: `dj-tile dj-${String(tile.variety).toLowerCase()}`, title }, `${teaLetter(t, tile.variety)} ${"●".repeat(halves)}`);
}

/** Row numbers down the left and column numbers along the top, as the sentences count them. */
function gridLabels(rows, cols, t) {
  const labels = [];
  for (let r = 0; r < rows; r += 1) {
    const [, cy] = centre(r, 0);
    labels.push(svg("text", { x: LABEL - 6, y: cy + LABEL + 4, "text-anchor": "end", "font-size": 15, fill: "#5c4f38",
      class: "dj-row-label", "data-row": r + 1, "aria-label": `${t.row} ${r + 1}`, text: r + 1 }));
  }
  for (let c = 0; c < cols; c += 1) {
    const [cx] = centre(0, c);
    labels.push(svg("text", { x: cx + LABEL, y: LABEL - 4, "text-anchor": "middle", "font-size": 15, fill: "#5c4f38",
      class: "dj-col-label", "data-col": c + 1, "aria-label": `${t.column} ${c + 1}`, text: c + 1 }));
  }
  return labels;
}

/**
 * The score a player's line shows: the track while the game goes on; once it is over the final
 * score, less one point per half crate left behind the screen (rulebook, "Game End"), which is
 * the score of the game's result (the track alone once made the panel disagree with the result).
 */
function shownScore(view, p) {
  if (view.phase !== "GAME_OVER") return p.score ?? 0;
  return p.final_score ?? (p.score ?? 0) - (p.penalty ?? 0);
}

function panels(view, table) {
  const t = WORDS[table.words] || WORDS.en;
  const players = view.player_states || [];
  const goal = view.goal || 100;
  const over = view.phase === "GAME_OVER";
  const scores = el(
    "div",
    { class: "panel dj-scores" },
    el("strong", { text: `${t.score} (${t.goal} ${goal})` }),
    ...players.map((p) => {
      const points = shownScore(view, p);
      return el(
        "div",
        { class: "dj-score", "data-seat": p.seat ?? 0 },
        el("span", { class: "dot", style: `background:${SEAT_COLOURS[p.seat ?? 0]}` }),
        ` ${table.players[p.seat ?? 0]}: ${points}`,
        over && p.penalty ? el("span", { class: "dj-penalty", text: ` (${p.score ?? 0} − ${p.penalty} ${t.halves})` }) : null,
        el("span", { class: "bar", style: `width:${Math.max(0, Math.min(100, (points / goal) * 100))}%;background:${SEAT_COLOURS[p.seat ?? 0]}` }),
      );
    }),
  );
  const screens = players.map((p) => {
    const mine = table.seat !== null && (p.seat ?? 0) === table.seat;
    const tiles = p.tiles || [];
    const actions = p.action_tiles || [];
    return el(
      "div",
      { class: `panel dj-screen${mine ? " mine" : ""}`, "data-seat": p.seat ?? 0 },
      el("strong", { text: mine ? t.screen : table.players[p.seat ?? 0] }),
      el("div", { class: "dj-counts", text: `${p.tile_count ?? 0} ${t.tiles}, ${p.action_tile_count ?? 0} ${t.actions}, ${p.crates_in_supply ?? 0} ${t.supply}` }),
      tiles.length ? el("div", { class: "dj-tiles" }, ...tiles.map((tile) => tileChip(tile, t))) : null,
      actions.length ? el("div", { class: "dj-actions", text: actions.map((a) => (a.faces || []).map((f) => t.action[f] || f).join(" / ")).join(", ") }) : null,
    );
  });
  const shipment = view.shipment && (view.shipment.tiles || []).length
    ? el("div", { class: "panel dj-shipment" }, el("strong", { text: `${t.shipment}: ` }), ...(view.shipment.tiles || []).map((tile) => tileChip(tile, t)))
    : null;
  const extra = el("div", { class: "panel dj-supply", text: `${t.bag}: ${view.bag_count ?? 0} · ${t.warehouse}: ${(view.warehouse || []).length}` });
  return el("div", { class: "dj-panels" }, scores, shipment, ...screens, extra);
}

/** Draw a Darjeeling table (see web/README.md for the contract). */
export function drawTable(host, table) {
  const view = table.view;
  const placed = new Set();
  const rows = view.rows || 0;
  const cols = view.cols || 0;
  const t = WORDS[table.words] || WORDS.en;
  const gridWidth = LABEL + PAD * 2 + cols * CELL;
  const gridHeight = LABEL + PAD * 2 + rows * CELL;
  const wharfHeight = PAD + 24 + (view.ships || []).length * 70 + 110;
  const redraw = () => {
    const scroll = host.querySelector(".dj-grid-wrap");
    const left = scroll ? scroll.scrollLeft : 0;
    host.replaceChildren();
    drawTable(host, table);
    const again = host.querySelector(".dj-grid-wrap");
    if (again) again.scrollLeft = left;
  };
  // The board's name in words: the region's name, never its code (issue #42, item 7).
  const named = `Darjeeling, ${t.regions[view.region] || ""}`.replace(/, $/, "");
  // The grid sits below and right of its labels.
  const grid = svg(
    "g",
    { transform: `translate(${LABEL},${LABEL})`, class: "dj-grid" },
    (view.spaces || []).map((space) => tileShape(space, t)),
    collectors(view),
    placeMoves(view, table, placed, redraw, t),
  );
  const board = svg(
    "svg",
    { viewBox: `0 0 ${gridWidth} ${gridHeight}`, class: "dj-board", role: "group", "aria-label": named,
      style: `min-width:${Math.ceil(gridWidth * MIN_SCALE)}px` },
    gridLabels(rows, cols, t),
    grid,
  );
  const wharfBoard = svg(
    "svg",
    { viewBox: `0 0 176 ${wharfHeight}`, class: "dj-wharf-board", role: "img", "aria-label": t.wharf },
    seatPatterns(),
    wharf(view, table, placed, 6),
  );
  const scroller = el("div", { class: "dj-grid-wrap", tabindex: 0, role: "group", "aria-label": named }, board);
  host.append(el("div", { class: "dj-boards" }, scroller, wharfBoard), panels(view, table));
  return { placed };
}
