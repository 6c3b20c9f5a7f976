// India Rails' terrain legend (issue #42, item 6): each kind of milepost as the map draws it
// (the same colour and shape) and what building into it costs.  The prices are those of
// seeds/india_rails/costs.json ("build" and the river surcharge); the board document does not
// carry them, so they are written here and tests/web/test_web_ir_map.py checks them against
// the content file, so a change there fails the test until this table follows.
import { el, svg } from "./svg.js";

/** Map colour of each terrain; india_rails.js draws the mileposts with these. */
export const TERRAIN = { clear: "#9a9a8a", mountain: "#8b5a2b", alpine: "#5b6f8a", desert: "#d9b45a", salt_flat: "#c9c9c9", city: "#c0392b", major: "#8e1b10" };
/** Build price (M) of a segment into each terrain, and of crossing a river (costs.json). */
export const PRICES = { clear: 1, mountain: 2, desert: 2, salt_flat: 3, alpine: 5, city: 3, major: 5, river: 2 };
const ORDER = ["clear", "mountain", "desert", "salt_flat", "alpine", "city", "major", "river"];
const WORDS = {
  en: { title: "Building prices", clear: "Clear", mountain: "Mountain", desert: "Desert", salt_flat: "Salt flat", alpine: "Alpine",
    city: "Small or medium city", major: "Major city", river: "River crossing (extra)", into: "into" },
  es: { title: "Precios de construcción", clear: "Llano", mountain: "Montaña", desert: "Desierto", salt_flat: "Salar", alpine: "Alta montaña",
    city: "Ciudad pequeña o mediana", major: "Ciudad principal", river: "Cruzar un río (extra)", into: "hacia" },
};

/** The small drawing of one terrain: the milepost's own symbol, or a stretch of river. */
function swatch(kind) {
  const shape = kind === "river"
    ? svg("line", { x1: 2, y1: 18, x2: 22, y2: 6, stroke: "#6aa5d8", "stroke-width": 5 })
    : kind === "city" || kind === "major"
      ? svg("rect", { x: 5, y: 5, width: 14, height: 14, fill: TERRAIN[kind] })
      : svg("circle", { cx: 12, cy: 12, r: kind === "clear" ? 4 : 7, fill: TERRAIN[kind] });
  return svg("svg", { width: 24, height: 24, viewBox: "0 0 24 24", "aria-hidden": "true", class: "ir-swatch" }, shape);
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
