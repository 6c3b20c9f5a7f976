// India Rails: the milepost map (from GET /v1/game-types/india_rails/board, fetched once when
// this module loads), each player's track in their colour, trains, cities with their goods; the
// players' cash (or "hidden"), trains and loads, demand cards as the view shows them (the
// engine's view decides what is hidden), events in play, the load tray and this turn's spending.
//
// Placed on the board: building a segment (a dashed line; its disc sits at the midpoint, or slides
// along the segment off a city name), placing a train and moving a train (a ring round the
// milepost).  City names and goods are drawn last, above the choices, and let clicks through; the
// terrain legend with build prices is india_rails_legend.js (issue #42).  With "Build a path" on,
// the build choices are a path's offers instead, each with its price printed on it, confirmed once
// (india_rails_path.js).  Everything else (pick up, deliver, drop, upgrade, discard, end the turn,
// ...) is a button of the shell.
//
// The map is drawn at a fixed scale (1 px a unit on a desktop, 1.8 on a phone: city names of 18 px
// and more, goods of 14, track targets of 45 px on a phone that never overlap) inside a scrolling viewport that opens
// on the choices of the turn and keeps the reader's scrolling while the choices stay the same;
// "whole map" fits all of it in the viewport and hides the words it would shrink below 12 px
// (issue #34); "−" and "+" zoom in steps, and the viewport pans by dragging (touch) or scrolling.
// With no choices (an end screen, another's turn) it opens on the middle of the play.
import { API } from "../js/api.js";
import { el, kindOf, legal, SEAT_COLOURS, SEAT_INK, svg, term } from "./svg.js";
import { legend, terrainShape } from "./india_rails_legend.js";
import { pathBoard, pathLayer, pathOn, pathToggle } from "./india_rails_path.js";
// What the shell shows of this game beyond the board: the end screen's breakdown and verdict,
// the places a move touched (web/tables/breakdowns.js, verdicts.js, places.js).
export { indiaRailsBreakdown as breakdown } from "./breakdowns.js";
export { indiaRailsVerdict as verdict } from "./verdicts.js";
export { indiaRailsMarks as marks } from "./places.js";

const BOARD = await (await fetch(`${API}/v1/game-types/india_rails/board`)).json();
const POSTS = new Map(BOARD.mileposts.map((p) => [p.id, p]));
const TOP = Math.max(...BOARD.mileposts.map((p) => p.y)) + 60;
const MIN_X = Math.min(...BOARD.mileposts.map((p) => p.x)) - 60;
// Wide enough for the longest name at the east edge (names are written to the right of their city).
const MAX_X = Math.max(...BOARD.mileposts.map((p) => p.x)) + 60 + Math.max(...BOARD.cities.map((c) => 14 * c.name.length));
const BOTTOM = Math.min(...BOARD.mileposts.map((p) => p.y)) - 60;
const WORDS = {
  en: { whole: "Whole map", zoom: "Zoom to choices", cash: "cash", hidden: "hidden", debt: "debt", track: "segments", hand: "Demand cards",
    events: "Events in play", none: "none", trains: "train", spent: "spent this turn", win: "to win", phase: "phase", round: "round", tray: "Loads left", speed: "speed", holds: "holds" },
  es: { whole: "Mapa entero", zoom: "Acercar a las opciones", cash: "dinero", hidden: "oculto", debt: "deuda", track: "tramos", hand: "Cartas de demanda",
    events: "Eventos en juego", none: "ninguno", trains: "tren", spent: "gastado este turno", win: "para ganar", phase: "fase", round: "ronda", tray: "Cargas restantes", speed: "velocidad", holds: "lleva" },
};
let wholeMap = false; // the reader's choice, kept across redraws
const PHONE = "(max-width: 760px)";
let seen = { choices: "", scroll: null }; // the choices last opened on, and the reader's scrolling since
// The reader's zoom ("−" / "+", kept across redraws): steps around the base scale; the smallest
// still writes the smallest words (14 units) at 12 px or more on a phone, and hides them on a
// desktop (as the whole map does).
const ZOOMS = [0.7, 1, 1.5, 2.2];
let zoom = 1;
const scale = () => (matchMedia(PHONE).matches ? 1.8 : 1) * ZOOMS[zoom];

function point(id) {
  const post = POSTS.get(id);
  return post ? [post.x, TOP - post.y] : [0, 0];
}

function project([lon, lat]) {
  const p = BOARD.projection;
  return [(lon - p.lon_origin) * p.km_per_deg_lon, TOP - (lat - p.lat_origin) * p.km_per_deg_lat];
}

let baseMap = null; // the static map, built once; each drawing moves it into its new SVG
function mapLayer() {
  if (baseMap) return baseMap;
  const rivers = Object.entries(BOARD.river_lines || {}).flatMap(([name, lines]) =>
    lines.map((line) => svg("polyline", { points: line.map((c) => project(c).join(",")).join(" "), fill: "none", stroke: "#6aa5d8", "stroke-width": 8, class: "river", "data-river": name })),
  );
  const posts = BOARD.mileposts.map((p) => {
    const [x, y] = point(p.id);
    return terrainShape(p, x, y);
  });
  const rings = BOARD.cities.map((c) => {
    const [x, y] = point(c.milepost);
    return svg("circle", { cx: x, cy: y, r: c.size === "major" ? 30 : 18, fill: "none", stroke: "#8e1b10", "stroke-width": 4, class: "city-ring", "data-city": c.name });
  });
  baseMap = svg("g", { class: "ir-map" }, rivers, posts, rings);
  return baseMap;
}

let baseLabels = null; // city names and goods, built once; drawn above the choice markers
/** City names and goods on a halo of the map's colour, above the choices and not clickable (issue #42). */
function labelLayer() {
  if (baseLabels) return baseLabels;
  const halo = { stroke: "#f3efe2", "stroke-width": 5, "paint-order": "stroke", "stroke-linejoin": "round" };
  const cities = BOARD.cities.map((c) => {
    const [x, y] = point(c.milepost);
    return svg("g", { class: `city ${c.size}`, "data-city": c.name },
      svg("text", { x: x + 24, y: y - 10, "font-size": c.size === "major" ? 22 : 18, "font-weight": c.size === "major" ? "bold" : "normal", ...halo, text: c.name }),
      (c.goods || []).length ? svg("text", { x: x + 24, y: y + 12, "font-size": 14, fill: "#4a4a4a", ...halo, text: c.goods.join(", ") }) : null);
  });
  baseLabels = svg("g", { class: "ir-labels", "pointer-events": "none" }, cities);
  return baseLabels;
}

function trackLayer(view) {
  return (view.players || []).flatMap((p) =>
    (p.track || []).map((s) => {
      const [x1, y1] = point(s.a ?? 0);
      const [x2, y2] = point(s.b ?? 0);
      return svg("line", { x1, y1, x2, y2, stroke: SEAT_COLOURS[p.seat ?? 0], "stroke-width": 12, "stroke-linecap": "round", class: "track",
        "data-seat": p.seat ?? 0, "data-a": s.a ?? 0, "data-b": s.b ?? 0 });
    }),
  );
}

function trainLayer(view) {
  return (view.players || []).flatMap((p) =>
    (p.trains || []).filter((t) => (t.milepost ?? -1) >= 0).map((t, i) => {
      const [x, y] = point(t.milepost);
      return svg("g", { class: "train", "data-seat": p.seat ?? 0, "data-train": i },
        svg("circle", { cx: x, cy: y, r: 26, fill: SEAT_COLOURS[p.seat ?? 0], stroke: "#1a1a1a", "stroke-width": 5 }),
        svg("text", { x: x - 11, y: y + 11, "font-size": 32, fill: SEAT_INK[p.seat ?? 0], text: "T" }));
    }),
  );
}

// Where city names and goods are written (approximately: the width from the letter count), so a
// build marker's disc can sit beside them instead of on them.
const LABEL_BOXES = BOARD.cities.flatMap((c) => {
  const [x, y] = point(c.milepost);
  const size = c.size === "major" ? 22 : 18;
  const boxes = [[x + 22, y - 10 - size, (c.size === "major" ? 0.66 : 0.6) * size * c.name.length + 4, size + 4]];
  if ((c.goods || []).length) boxes.push([x + 22, y - 2, 0.58 * 14 * c.goods.join(", ").length + 4, 18]);
  return boxes;
});

/** Where along a segment its marker's disc (radius r) goes: the spot nearest the middle that covers
 * the least of the names (a segment may run straight through one). */
function discAt(x1, y1, x2, y2, r) {
  const overlap = ([cx, cy]) => LABEL_BOXES.reduce((sum, [bx, by, w, h]) =>
    sum + Math.max(0, Math.min(cx + r, bx + w) - Math.max(cx - r, bx)) * Math.max(0, Math.min(cy + r, by + h) - Math.max(cy - r, by)), 0);
  const spots = [0.5, 0.65, 0.35, 0.8, 0.2, 0.9, 0.1].map((t) => [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t]);
  return spots.reduce((best, spot) => (overlap(spot) < overlap(best) ? spot : best));
}

/** Clickable places for builds, train placements and train moves; returns [shapes, their points]. */
function placeMoves(table, placed, paths = false) {
  const shapes = [];
  const points = [];
  if (!table.legal) return [shapes, points];
  table.legal.moves.forEach((move, i) => {
    const kind = kindOf(move);
    const body = move[kind] || {};
    if (kind === "build_track" && paths) {
      placed.add(i); // offered by the path's layer (india_rails_path.js) instead
      points.push(point(body.from_milepost ?? 0), point(body.to_milepost ?? 0));
    } else if (kind === "build_track") {
      const [x1, y1] = point(body.from_milepost ?? 0);
      const [x2, y2] = point(body.to_milepost ?? 0);
      const disc = discAt(x1, y1, x2, y2, 7);
      const target = svg("g", {},
        svg("line", { x1, y1, x2, y2, stroke: "rgba(255,190,0,.9)", "stroke-width": 10, "stroke-dasharray": "12 8" }),
        // 25 units across: the midpoints of two segments from one milepost are 25 units apart, so
        // targets never overlap (45 px on a phone).
        svg("circle", { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, r: 12.5, fill: "transparent", stroke: "none", class: "ir-hit" }),
        // The disc a reader sees is smaller than the place that takes the tap, so it covers less
        // of the track and of the names (which are drawn above it anyway).
        // (and moved along the segment, off a city's name or goods, when one is at the middle).
        svg("circle", { cx: disc[0], cy: disc[1], r: 7, fill: "#ffd23f", stroke: "#1a1a1a", "stroke-width": 2, "pointer-events": "none", class: "ir-disc" }));
      shapes.push(legal(target, i, placed, table.legal.texts[i]));
      points.push([x1, y1], [x2, y2]);
    } else if (kind === "place_train" || kind === "move_train") {
      const [x, y] = point(kind === "place_train" ? body.milepost ?? 0 : body.to_milepost ?? 0);
      // A ring round the milepost, not a disc over it: the city's square and name stay visible.
      // (In a group: the shell's style for .legal outlines the group, the ring keeps its own colour.)
      const target = svg("g", {}, svg("circle", { cx: x, cy: y, r: 20, fill: "none", stroke: "#ffd23f", "stroke-width": 7, "pointer-events": "all", class: "ir-ring" }));
      shapes.push(legal(target, i, placed, table.legal.texts[i]));
      points.push([x, y]);
    }
  });
  return [shapes, points];
}

const MAP_BOX = [MIN_X, 0, MAX_X - MIN_X, TOP - BOTTOM];

/** Where the play is when nothing is offered (an end screen, another's turn): the track and the trains. */
function playPoints(view) {
  const players = view.players || [];
  const track = players.flatMap((p) => (p.track || []).flatMap((s) => [point(s.a ?? 0), point(s.b ?? 0)]));
  const trains = players.flatMap((p) => (p.trains || []).filter((t) => (t.milepost ?? -1) >= 0).map((t) => point(t.milepost ?? 0)));
  return [...track, ...trains];
}

/** Scroll the viewport to the middle of the choices (new choices), or back where the reader left it;
 * with no choices, to the middle of the players' track and trains (issue #42: an end screen opened
 * on an empty corner). */
function place(viewport, choices, view) {
  const points = choices.length ? choices : playPoints(view);
  // Without choices the reader's panning is kept from move to move (another's moves redraw the map);
  // the game's end opens afresh on the end position.
  const key = choices.length ? points.map((p) => p.join(",")).join(" ") : view.phase === "over" ? `the end of ${points.length}` : "the play";
  if (key === seen.choices && seen.scroll) {
    [viewport.scrollLeft, viewport.scrollTop] = seen.scroll;
  } else if (points.length && !choices.length) {
    centre(viewport, points);
  } else if (points.length) {
    const s = scale();
    const xs = points.map((p) => p[0]);
    const ys = points.map((p) => p[1]);
    const [width, height] = [(Math.max(...xs) - Math.min(...xs)) * s, (Math.max(...ys) - Math.min(...ys)) * s];
    // All the choices when they fit in the viewport, else the first of them (the list's order).
    const all = width <= viewport.clientWidth && height <= viewport.clientHeight;
    const [x, y] = all ? [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2] : points[0];
    viewport.scrollLeft = (x - MIN_X) * s - viewport.clientWidth / 2;
    viewport.scrollTop = y * s - viewport.clientHeight / 2;
  }
  seen = { choices: key, scroll: [viewport.scrollLeft, viewport.scrollTop] };
  viewport.addEventListener("scroll", () => (seen.scroll = [viewport.scrollLeft, viewport.scrollTop]));
}

/** Scroll the viewport to the middle of the box around `points`. */
function centre(viewport, points) {
  const s = scale();
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  viewport.scrollLeft = ((Math.min(...xs) + Math.max(...xs)) / 2 - MIN_X) * s - viewport.clientWidth / 2;
  viewport.scrollTop = ((Math.min(...ys) + Math.max(...ys)) / 2) * s - viewport.clientHeight / 2;
}

/** "−" and "+": the map drawn smaller or larger, about the middle of what the viewport shows. */
function zoomButtons(table) {
  const words = table.words === "es" ? ["Alejar el mapa", "Acercar el mapa"] : ["Zoom out", "Zoom in"];
  return [-1, 1].map((step, i) => {
    const button = el("button", { type: "button", class: `ir-zoom-step ${step < 0 ? "ir-zoom-out" : "ir-zoom-in"}`, "aria-label": words[i], title: words[i], text: step < 0 ? "−" : "+" });
    button.disabled = !ZOOMS[zoom + step];
    button.addEventListener("click", () => {
      const viewport = button.closest(".ir-table").querySelector(".ir-viewport");
      const board = viewport.querySelector("svg");
      const before = scale();
      const middle = [(viewport.scrollLeft + viewport.clientWidth / 2) / before + MIN_X, (viewport.scrollTop + viewport.clientHeight / 2) / before];
      zoom = Math.max(0, Math.min(ZOOMS.length - 1, zoom + step));
      board.setAttribute("width", Math.round(MAP_BOX[2] * scale()));
      board.setAttribute("height", Math.round(MAP_BOX[3] * scale()));
      centre(viewport, [middle]);
      fit(board);
      button.parentElement.querySelectorAll(".ir-zoom-step").forEach((b, j) => (b.disabled = !ZOOMS[zoom + (j ? 1 : -1)]));
    });
    return button;
  });
}

/** The whole map fitted; at any scale, words that would read below 12 px are hidden (the smallest is
 * 14 units): the whole map, or a desktop's map zoomed out. */
function fit(board) {
  board.classList.toggle("ir-fit", wholeMap);
  const m = board.getScreenCTM();
  board.classList.toggle("ir-no-words", !!m && m.a * 14 < 12);
}

function demandCard(card) {
  return el("div", { class: "ir-card", "data-card": card.id ?? 0 },
    ...(card.demands || []).map((d) => el("div", { class: "ir-demand", text: `${d.load} → ${d.city}: ${d.payout}M` })));
}

function playerPanel(view, table, p) {
  const t = WORDS[table.words] || WORDS.en;
  const seat = p.seat ?? 0;
  const mine = table.seat !== null && seat === table.seat;
  const cash = p.cash_hidden ? t.hidden : `${p.cash ?? 0}M`;
  const trains = (p.trains || []).map((train, i) =>
    el("div", { class: "ir-train", "data-train": i, text: `${t.trains} ${i + 1}: ${term(table, "loco", train.loco)} (${t.speed} ${train.speed ?? 0}, ${t.holds} ${train.capacity ?? 0}) ${(train.loads || []).map((l) => l.load).join(", ")}` }));
  return el("div", { class: `panel ir-player${mine ? " mine" : ""}`, "data-seat": seat },
    el("strong", {}, el("span", { class: "dot", style: `background:${SEAT_COLOURS[seat]}` }), ` ${table.players[seat]}`),
    el("div", { class: "ir-cash", "data-hidden": p.cash_hidden ? "true" : "false", text: `${t.cash}: ${cash}${p.debt ? ` · ${t.debt} ${p.debt}M` : ""} · ${(p.track || []).length} ${t.track}` }),
    ...trains,
    (p.hand || []).length ? el("div", { class: "ir-hand" }, el("em", { text: t.hand }), ...(p.hand || []).map(demandCard)) : null);
}

/** "Whole map" / "Zoom to choices", above the map (on a phone, below it would sit under the action bar). */
function zoomToggle(table) {
  const t = WORDS[table.words] || WORDS.en;
  const toggle = el("button", { type: "button", class: "ir-zoom", text: wholeMap ? t.zoom : t.whole });
  toggle.addEventListener("click", () => {
    wholeMap = !wholeMap;
    fit(toggle.closest(".ir-table").querySelector("svg"));
    toggle.textContent = wholeMap ? t.zoom : t.whole;
  });
  return toggle;
}

function panels(view, table) {
  const t = WORDS[table.words] || WORDS.en;
  const events = (view.active_events || []).map((e) => (e.card ? e.card.title : "")).filter(Boolean);
  const turn = view.turn || {};
  const status = el("div", { class: "panel ir-status",
    text: `${t.phase}: ${term(table, "phase", view.phase || "")}${view.round ? ` · ${t.round} ${view.round}` : ""} · ${t.spent}: ${turn.spent ?? 0}M · ${view.win_cash ?? 0}M ${t.win}` });
  const eventPanel = el("div", { class: "panel ir-events", text: `${t.events}: ${events.length ? events.join(", ") : t.none}` });
  const tray = el("div", { class: "panel ir-tray", text: `${t.tray}: ${(view.tray || []).map((l) => `${l.load} ${l.available ?? 0}`).join(", ")}` });
  return el("div", { class: "ir-panels" }, status, legend(table.words), ...(view.players || []).map((p) => playerPanel(view, table, p)), eventPanel, tray);
}

/** Draw an India Rails table (see web/README.md for the contract). */
export function drawTable(host, table) {
  pathBoard(BOARD);
  const view = table.view;
  const placed = new Set();
  const targets = svg("g", { class: "ir-targets" });
  const pathSlot = el("div", { class: "ir-path-slot" });
  let points = [];
  // The choices: the engine's moves as markers, or with "Build a path" on, the path's offers.
  const paint = () => {
    const [shapes, spots] = placeMoves(table, placed, pathOn());
    const path = pathOn() ? pathLayer(table, { point, discAt, repaint: paint }) : null;
    targets.replaceChildren(...shapes, ...(path ? [path.drawn] : []));
    pathSlot.replaceChildren(...(path ? [path.panel] : []));
    points = spots;
  };
  paint();
  const s = scale();
  const board = svg("svg", { viewBox: MAP_BOX.join(" "), width: Math.round(MAP_BOX[2] * s), height: Math.round(MAP_BOX[3] * s),
    class: "ir-board", role: "group", "aria-label": "India Rails" },
    mapLayer(), trackLayer(view), trainLayer(view), targets, labelLayer());
  const viewport = el("div", { class: "ir-viewport", tabindex: 0, role: "group", "aria-label": "India Rails" }, board);
  const tools = el("div", { class: "ir-tools" }, zoomToggle(table), ...zoomButtons(table), pathToggle(table, paint));
  host.append(el("div", { class: "ir-table" }, tools, pathSlot, viewport, panels(view, table)));
  fit(board);
  place(viewport, points, view);
  return { placed };
}
