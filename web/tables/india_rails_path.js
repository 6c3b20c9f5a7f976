// India Rails: a run of track segments built in one gesture, confirmed once (issue #42, item 6).
//
// With "Build a path" on, the player picks one of the turn's legal segments (the engine's list:
// its first step), then one neighbouring milepost after another; each offer carries its price on
// the map, the panel above the map keeps the running total, and one confirm posts every segment
// in one request (`act(first, rest)`: POST /moves with `moves`, applied atomically, so a path the
// engine refuses changes nothing and stays on screen with the refusal).
//
// Which continuations are offered is a forecast of the engine's own checks (services/india_rails/
// track.py `build_problem`), run on the view after the path's earlier segments: the map's edges
// (river and strait flags from the board document), segments nobody owns, no track inside a major
// city, floods, sandstorms, reserved segments, the turn's 20M and the player's cash, two segments
// a turn from major-city mileposts, city entry limits.  Only its blocking rule (a segment may not
// cut another player off from a city) is left to the engine: it needs the whole map's search, and
// the engine still refuses such a path when it is posted.  The engine remains the authority.
import { el, svg, SEAT_COLOURS } from "./svg.js";
import { PRICES, RULES, terrainName } from "./india_rails_legend.js";

const WORDS = {
  en: { toggle: "Build a path", start: "Pick a first segment on the map, then the next mileposts one by one.",
    path: (n, cost, left) => `Path: ${n} segment${n === 1 ? "" : "s"}, ${cost}M (${left}M left to build this turn)`,
    build: (n, cost) => `Build ${n} segment${n === 1 ? "" : "s"} for ${cost}M`, undo: "Undo last", clear: "Clear path",
    first: "Start the path", extend: (to, cost, total) => `Extend the path to ${to}: +${cost}M (${total}M in all)`, none: "No further segment fits this turn.",
    across: (river) => `across the ${river}`, post: (terrain) => `a milepost (${terrain})` },
  es: { toggle: "Construir un trazado", start: "Elige un primer tramo en el mapa y después los puntos siguientes, uno a uno.",
    path: (n, cost, left) => `Trazado: ${n} tramo${n === 1 ? "" : "s"}, ${cost}M (quedan ${left}M para construir este turno)`,
    build: (n, cost) => `Construir ${n} tramo${n === 1 ? "" : "s"} por ${cost}M`, undo: "Deshacer el último", clear: "Borrar el trazado",
    first: "Empezar el trazado", extend: (to, cost, total) => `Alargar el trazado hasta ${to}: +${cost}M (${total}M en total)`, none: "Ningún tramo más cabe este turno.",
    across: (river) => `cruzando el ${river}`, post: (terrain) => `un punto (${terrain})` },
};
const pair = (a, b) => (a < b ? `${a}-${b}` : `${b}-${a}`);

let G = null; // the static graph, built once from the board document
/** The map's graph for forecasts: each milepost's edges (river, strait), closed edges, cities. */
export function pathBoard(board) {
  if (G) return G;
  const terrain = new Map(board.mileposts.map((p) => [p.id ?? 0, p.terrain]));
  const adj = new Map();
  for (const e of board.edges || []) {
    const [a, b] = [e.a ?? 0, e.b ?? 0];
    const edge = { key: pair(a, b), river: e.river || "", strait: Boolean(e.strait) };
    if (!adj.has(a)) adj.set(a, []);
    if (!adj.has(b)) adj.set(b, []);
    adj.get(a).push({ ...edge, to: b });
    adj.get(b).push({ ...edge, to: a });
  }
  const cityAt = new Map();
  const closed = new Set();
  for (const c of board.cities) {
    const posts = c.size === "major" ? [c.centre, ...(c.outposts || [])] : [c.milepost];
    posts.forEach((m) => cityAt.set(m ?? 0, c));
    if (c.size !== "major") continue;
    (c.red_area || []).forEach(([a, b]) => closed.add(pair(a, b)));
    posts.forEach((a) => posts.forEach((b) => a !== b && adj.get(a)?.some((e) => e.to === b) && closed.add(pair(a, b))));
  }
  const major = new Set([...cityAt].filter(([, c]) => c.size === "major").map(([m]) => m));
  G = { terrain, adj, cityAt, closed, major, cities: new Map(board.cities.map((c) => [c.name, c])) };
  return G;
}

/** Mileposts within `radius` steps of a city (a major city counted from its centre), as the engine counts. */
function around(city, radius) {
  const start = city.size === "major" ? city.centre : city.milepost;
  const seen = new Map([[start, 0]]);
  const queue = [start];
  while (queue.length) {
    const here = queue.shift();
    if (seen.get(here) >= radius) continue;
    for (const { to } of G.adj.get(here) || []) if (!seen.has(to)) (seen.set(to, seen.get(here) + 1), queue.push(to));
  }
  return [...seen.keys()];
}

/** What the checks read, from the view as the seat sees it (its own cash is never hidden from it). */
function context(view, seat) {
  const owner = new Map();
  const mine = new Set();
  for (const p of view.players || []) for (const s of p.track || []) {
    owner.set(pair(s.a ?? 0, s.b ?? 0), p.seat ?? 0);
    if ((p.seat ?? 0) === seat) (mine.add(s.a ?? 0), mine.add(s.b ?? 0));
  }
  const me = (view.players || []).find((p) => (p.seat ?? 0) === seat) || {};
  const turn = view.turn || {};
  const cards = (view.active_events || []).map((e) => e.card || {});
  const storm = new Set(cards.filter((c) => c.kind === "sandstorm" && G.cities.has(c.centre))
    .flatMap((c) => around(G.cities.get(c.centre), c.radius ?? 0)).filter((m) => G.terrain.get(m) === "desert"));
  return {
    seat, owner, mine, storm, players: (view.players || []).length,
    money: Math.min(RULES.budget - (turn.spent ?? 0), me.cash ?? 0),
    majorLeft: RULES.majorSegmentsPerTurn - (turn.major_segments ?? 0),
    flooded: new Set(cards.filter((c) => c.kind === "flood").flatMap((c) => c.rivers || [])),
    reserved: new Map((view.reserved || []).map((r) => [pair(r.segment?.a ?? 0, r.segment?.b ?? 0), r.owner ?? 0])),
  };
}

/** The engine's city entry limits at `milepost` for a segment `key` (track.py `_entry_problem`): true when they refuse. */
function entryRefused(ctx, key, milepost) {
  const city = G.cityAt.get(milepost);
  if (!city || city.size === "major") return false;
  const cap = RULES.entry[city.size];
  const edges = G.adj.get(milepost) || [];
  const seats = edges.filter((e) => ctx.owner.has(e.key)).map((e) => ctx.owner.get(e.key));
  const present = new Set(seats);
  const free = edges.filter((e) => !ctx.owner.has(e.key) && e.key !== key).length;
  if (!present.has(ctx.seat) && present.size >= cap) return true;
  if (seats.filter((s) => s === ctx.seat).length >= RULES.entry.perPlayer) return true;
  return Math.min(cap, ctx.players) - new Set([...present, ctx.seat]).size > free;
}

/** The price of building from `u` to `v` now, or null when the engine would refuse it (but for blocking). */
function price(ctx, u, v) {
  const edge = (G.adj.get(u) || []).find((e) => e.to === v);
  if (!edge || G.closed.has(edge.key) || ctx.owner.has(edge.key)) return null;
  if (!ctx.mine.has(u) && !G.major.has(u)) return null;
  if ((edge.river && ctx.flooded.has(edge.river)) || ctx.storm.has(u) || ctx.storm.has(v)) return null;
  if (ctx.reserved.has(edge.key) && ctx.reserved.get(edge.key) !== ctx.seat) return null;
  const cost = PRICES[G.terrain.get(v)] + (edge.river ? PRICES.river : 0) + (edge.strait ? PRICES.strait : 0);
  if (!(cost <= ctx.money) || (G.major.has(u) && ctx.majorLeft <= 0)) return null;
  return entryRefused(ctx, edge.key, u) || entryRefused(ctx, edge.key, v) ? null : cost;
}

/** The checks' context after building u→v for `cost` (handlers.py `build_track`). */
function built(ctx, u, v, cost) {
  const key = pair(u, v);
  ctx.owner.set(key, ctx.seat);
  ctx.mine.add(u).add(v);
  ctx.money -= cost;
  if (G.major.has(u)) ctx.majorLeft -= 1;
  ctx.reserved.delete(key);
}

/**
 * Where a path stands: its mileposts and each segment's price, the context after it, and the
 * continuations from its end ([{to, cost}]).  A path whose step is no longer allowed is cut there.
 */
export function forecast(view, seat, posts) {
  const ctx = context(view, seat);
  const costs = [];
  for (let i = 1; i < posts.length; i++) {
    const cost = price(ctx, posts[i - 1], posts[i]);
    if (cost === null) return forecast(view, seat, posts.slice(0, i));
    costs.push(cost);
    built(ctx, posts[i - 1], posts[i], cost);
  }
  const end = posts[posts.length - 1];
  const next = posts.length < 2 ? [] : (G.adj.get(end) || []).map((e) => ({ to: e.to, cost: price(ctx, end, e.to) }))
    .filter((o) => o.cost !== null);
  return { posts, costs, total: costs.reduce((a, b) => a + b, 0), left: ctx.money, next };
}

// The path being built, for the legal list it started on (a new position starts afresh).
let state = { on: false, version: null, posts: [] };

/** Whether path building is on (the table then draws the build choices through `pathLayer`). */
export const pathOn = () => state.on;

/** The legal build moves of the list: [{index, from, to}]. */
function firstSteps(table) {
  return (table.legal?.moves || []).map((move, index) => ({ move, index })).filter(({ move }) => move.build_track)
    .map(({ move, index }) => ({ index, from: move.build_track.from_milepost ?? 0, to: move.build_track.to_milepost ?? 0 }));
}

/** The "Build a path" switch, shown when the turn offers segments; `redraw` repaints the table's choices. */
export function pathToggle(table, redraw) {
  if (!firstSteps(table).length) return null;
  const t = WORDS[table.words] || WORDS.en;
  const toggle = el("button", { type: "button", class: "ir-path-toggle", "aria-pressed": String(state.on), text: t.toggle });
  toggle.addEventListener("click", () => {
    state = { on: !state.on, version: table.legal?.version ?? null, posts: [] };
    toggle.setAttribute("aria-pressed", String(state.on));
    redraw();
  });
  return toggle;
}

/**
 * The path's drawing and its offers (SVG, drawn below the names) and its panel (HTML), for the
 * table's current position; `point` places a milepost, `discAt` finds a price tag's spot off the
 * names, `repaint` draws both again after a change.
 */
export function pathLayer(table, { point, discAt, repaint }) {
  if (state.version !== (table.legal?.version ?? null)) state = { ...state, version: table.legal?.version ?? null, posts: [] };
  const t = WORDS[table.words] || WORDS.en;
  const steps = firstSteps(table);
  const first = steps.find((s) => s.from === state.posts[0] && s.to === state.posts[1]);
  if (state.posts.length && !first) state.posts = [];
  const seen = forecast(table.view, table.seat, state.posts);
  state.posts = seen.posts;
  const change = (posts) => ((state.posts = posts), repaint());
  const offers = state.posts.length
    ? seen.next.map((o) => offer(point, discAt, [seen.posts.at(-1), o.to], o.cost, t.extend(where(table.words, seen.posts.at(-1), o.to), o.cost, seen.total + o.cost),
      () => change([...state.posts, o.to])))
    : steps.map((s) => offer(point, discAt, [s.from, s.to], price(context(table.view, table.seat), s.from, s.to) ?? "?",
      `${t.first}: ${table.legal.texts[s.index] || ""}`, () => change([s.from, s.to])));
  const line = seen.posts.map((m) => point(m).join(",")).join(" ");
  const drawn = svg("g", { class: "ir-path" },
    seen.posts.length ? svg("polyline", { points: line, fill: "none", stroke: SEAT_COLOURS[table.seat ?? 0], "stroke-width": 12, "stroke-dasharray": "4 6",
      "stroke-linecap": "round", class: "ir-path-line", "data-posts": seen.posts.join(" ") }) : null,
    ...offers);
  const panel = el("div", { class: "panel ir-path-panel", role: "status", "data-total": String(seen.total), "data-segments": String(seen.costs.length) },
    el("span", { class: "ir-path-sum", text: seen.costs.length ? t.path(seen.costs.length, seen.total, seen.left) : t.start }),
    seen.costs.length && !seen.next.length ? el("span", { class: "ir-path-end", text: ` ${t.none}` }) : null);
  if (seen.costs.length) {
    const rest = seen.posts.slice(2).map((to, i) => ({ "@type": first.move?.["@type"], build_track: { from_milepost: seen.posts[i + 1], to_milepost: to } }));
    panel.append(el("br"),
      button("ir-path-build", t.build(seen.costs.length, seen.total), () => table.act(first.index, rest)),
      button("ir-path-undo", t.undo, () => change(seen.posts.length > 2 ? seen.posts.slice(0, -1) : [])),
      button("ir-path-clear", t.clear, () => change([])));
  }
  return { drawn, panel };
}

/** Where a step goes, for its label: the city, or the terrain, and the river it crosses. */
function where(language, from, to) {
  const t = WORDS[language] || WORDS.en;
  const city = G.cityAt.get(to);
  const river = (G.adj.get(from) || []).find((e) => e.to === to)?.river;
  const place = city ? city.name : t.post(terrainName(language, G.terrain.get(to)));
  return river ? `${place}, ${t.across(river)}` : place;
}

function button(id, text, onClick) {
  const node = el("button", { type: "button", id, class: id, text });
  node.addEventListener("click", onClick);
  return node;
}

/** One offer: a dashed segment with its price printed on it; a click, a tap, Enter or Space takes it. */
function offer(point, discAt, [from, to], cost, label, take) {
  const [x1, y1] = point(from);
  const [x2, y2] = point(to);
  const [cx, cy] = discAt(x1, y1, x2, y2, 11);
  const node = svg("g", { class: "ir-step", tabindex: 0, role: "button", "aria-label": label, "data-from": from, "data-to": to, "data-cost": cost },
    svg("title", { text: label }),
    svg("line", { x1, y1, x2, y2, stroke: "rgba(255,190,0,.9)", "stroke-width": 10, "stroke-dasharray": "12 8" }),
    svg("circle", { cx: (x1 + x2) / 2, cy: (y1 + y2) / 2, r: 12.5, fill: "transparent", class: "ir-hit" }),
    svg("circle", { cx, cy, r: 11, fill: "#ffd23f", stroke: "#1a1a1a", "stroke-width": 1.5, "pointer-events": "none" }),
    svg("text", { x: cx, y: cy + 5, "font-size": 14, "text-anchor": "middle", "font-weight": "bold", "pointer-events": "none", text: String(cost) }));
  node.addEventListener("click", take);
  node.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    take();
    // The offers were drawn again: the keyboard goes on from the first new one (or the confirm).
    document.querySelector(".ir-step, #ir-path-build")?.focus();
  });
  return node;
}
