// India Rails' terrain legend (issue #42, item 6): each kind of milepost as the map draws it
// (the same colour and shape) and what building into it costs.  The prices are those of
// seeds/india_rails/costs.json ("build" and the river surcharge); the board document does not
// carry them, so they are written here and tests/web/test_web_ir_map.py checks them against
// the content file, so a change there fails the test until this table follows.
import { el, svg } from "./svg.js";

/** Map colour of each terrain; india_rails.js draws the mileposts with these. */
export const TERRAIN = { clear: "#9a9a8a", mountain: "#8b5a2b", alpine: "#5b6f8a", desert: "#d9b45a", salt_flat: "#c9c9c9", city: "#c0392b", major: "#8e1b10" };
// Each terrain also has its own shape, on the map and in the legend: nothing by colour alone
// (issue #42, item 3).
// Outlines around (0, 0): a peak for mountains, two peaks for alpine, a diamond for desert, a flat hexagon for salt.
const OUTLINES = {
  mountain: "-10,8 0,-10 10,8",
  alpine: "-13,8 -6,-10 0,0 6,-10 13,8",
  desert: "0,-10 10,0 0,10 -10,0",
  salt_flat: "-12,0 -7,-5 7,-5 12,0 7,5 -7,5",
};

/** A milepost's mark: a dot for clear ground, a square for a city, its terrain's outline else. */
export function terrainShape(p, x, y) {
  const data = { class: "milepost", "data-milepost": p.id, "data-terrain": p.terrain, fill: TERRAIN[p.terrain] || "#999" };
  if (p.terrain === "major" || p.terrain === "city") return svg("rect", { x: x - 11, y: y - 11, width: 22, height: 22, ...data });
  const outline = OUTLINES[p.terrain];
  if (!outline) return svg("circle", { cx: x, cy: y, r: 5, ...data });
  const points = outline.split(" ").map((pair) => pair.split(",").map(Number)).map(([dx, dy]) => `${x + dx},${y + dy}`).join(" ");
  return svg("polygon", { points, stroke: "#2b2b2b", "stroke-width": 1.5, ...data });
}

/** Build price (M) of a segment into each terrain, and of crossing a river or a strait (costs.json). */
export const PRICES = { clear: 1, mountain: 2, desert: 2, salt_flat: 3, alpine: 5, city: 3, major: 5, river: 2, strait: 2 };
/** The building limits a path's forecast needs (costs.json: turn_budget, major_segments_per_turn,
 * city_entry_limit); tests/web/test_web_ir_path.py checks them against the content file too. */
export const RULES = { budget: 20, majorSegmentsPerTurn: 2, entry: { small: 2, medium: 3, perPlayer: 3 } };
const ORDER = ["clear", "mountain", "desert", "salt_flat", "alpine", "city", "major", "river"];
const WORDS = {
  en: { title: "Building prices", clear: "Clear", mountain: "Mountain", desert: "Desert", salt_flat: "Salt flat", alpine: "Alpine",
    city: "Small or medium city", major: "Major city", river: "River crossing (extra)", into: "into" },
  es: { title: "Precios de construcción", clear: "Llano", mountain: "Montaña", desert: "Desierto", salt_flat: "Salar", alpine: "Alta montaña",
    city: "Ciudad pequeña o mediana", major: "Ciudad principal", river: "Cruzar un río (extra)", into: "hacia" },
};

/** A terrain's name in the table's language ("Mountain", "Montaña"). */
export function terrainName(language, kind) {
  return (WORDS[language] || WORDS.en)[kind] || kind;
}

/** The map's own symbol of a terrain at a swatch's middle, without what marks a milepost of the map. */
function symbolOf(kind) {
  const shape = terrainShape({ id: "", terrain: kind }, 12, 12);
  for (const name of ["class", "data-milepost", "data-terrain"]) shape.removeAttribute(name);
  return shape;
}

/** The small drawing of one terrain: the milepost's own symbol, or a stretch of river. */
function swatch(kind) {
  const shape = kind === "river"
    ? svg("line", { x1: 2, y1: 18, x2: 22, y2: 6, stroke: "#6aa5d8", "stroke-width": 5 })
    : symbolOf(kind);
  return svg("svg", { width: 24, height: 24, viewBox: "-2 -2 28 28", "aria-hidden": "true", class: "ir-swatch" }, shape);
}

/** The legend, in the table's language: one line per terrain with its symbol and price. */
export function legend(language) {
  const t = WORDS[language] || WORDS.en;
  const lines = ORDER.map((kind) =>
    el("li", { "data-terrain": kind, "data-price": String(PRICES[kind]) }, swatch(kind),
      el("span", { text: ` ${t[kind]}: ${kind === "river" ? "+" : ""}${PRICES[kind]}M` })));
  return el("section", { class: "panel ir-legend", "aria-label": t.title },
    el("strong", { text: t.title }), el("ul", {}, ...lines));
}
