// The Tea & Rum table's small HTML kit: panels, the pieces that offer a legal move (real buttons,
// so a tap, Enter and Space all work and a phone gets a full-size target), resource labels with
// an icon beside the word, and worker dots.  Layout is CSS grid (tea_rum.css); the only SVG is
// in icons that carry no text, so no text is ever scaled below its CSS size.

import { el, svg } from "../svg.js";
import { findOffer, seatColour, seatName } from "../drawing.js";
import { RESOURCE_COLOURS } from "./words.js";

/** A titled panel: `<section class="tr-panel">` with a heading and the children. */
export function panel(attrs, heading, ...children) {
  return el("section", { ...attrs, class: `tr-panel ${attrs.class ?? ""}`.trim() }, el("h3", { text: heading }), ...children);
}

/**
 * A piece of the board that offers the first unplaced legal move of `kind` matching `match`:
 * a `<button class="legal" data-move-index>` whose tooltip is the move's sentence (the shell
 * posts it on a click and shows the sentence and its price on hover).  With no such move the
 * piece is a plain `<div>` holding the same children.
 */
export function choice(ctx, kind, match, attrs, ...children) {
  const found = kind ? findOffer(ctx.offers, ctx.placed, kind, match) : null;
  const cls = `tr-piece ${attrs.class ?? ""}`.trim();
  if (!found) return el("div", { ...attrs, class: cls }, ...children);
  return offered(ctx, found.index, { ...attrs, class: cls }, ...children);
}

/** A button for legal move `index` (marked placed), its sentence as tooltip. */
function offered(ctx, index, attrs, ...children) {
  ctx.placed.add(index);
  const sentence = ctx.table.legal?.texts?.[index] || "";
  return el(
    "button",
    { type: "button", ...attrs, class: `${attrs.class ?? ""} legal`.trim(), "data-move-index": index, title: sentence || undefined },
    el("span", { class: "tr-mark", "aria-hidden": "true", text: "▶" }),
    ...children,
  );
}

/** A small square in a resource's colour (decoration: the word beside it names the resource). */
export function resourceIcon(resource) {
  return svg("svg", { class: "tr-icon", width: 12, height: 12, viewBox: "0 0 12 12", "aria-hidden": "true", focusable: "false" },
    svg("rect", { x: 0.5, y: 0.5, width: 11, height: 11, rx: 2, fill: RESOURCE_COLOURS[resource] ?? "#999", stroke: "#333" }));
}

/** "3 wheat" with the wheat icon before it. */
export function resourceLabel(resource, count, w) {
  return el("span", { class: "tr-res", "data-resource": resource }, resourceIcon(resource), `${count} ${w.res[resource] ?? resource}`);
}

/** A dot in a seat's colour (or an empty slot), named for screen readers and on hover. */
export function seatDot(table, seat, w) {
  const taken = seat !== undefined && seat !== null;
  const name = taken ? (seat >= 0 ? seatName(table, seat, w) : w.automa) : w.free;
  return svg("svg", { class: "tr-dot", width: 18, height: 18, viewBox: "0 0 18 18", role: "img", "aria-label": name,
    "data-worker-seat": taken ? seat : "" },
  svg("title", { text: name }),
  svg("circle", { cx: 9, cy: 9, r: 7.5, fill: taken ? seatColour(seat) : "#fff", stroke: "#333", "stroke-width": 1.5 }));
}

/** `text` with its first letter in capitals (labels start a line). */
export function capital(text) {
  return text ? text[0].toLocaleUpperCase() + text.slice(1) : text;
}

/** A line of label and value: `<p><b>Label:</b> value</p>`. */
export function fact(label, ...value) {
  return el("p", { class: "tr-fact" }, el("b", { text: `${capital(label)}: ` }), ...value);
}
